"""`gpuprices`: the command line. Every command calls the same stage functions the Prefect flows call."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

from flows import stages
from scrapers.base import RawDocument
from scrapers.errors import SourceError
from scrapers.registry import all_sources


def _source_list(value: str | None) -> list[str] | None:
    if not value:
        return None
    wanted = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(wanted) - set(all_sources()))
    if unknown:
        raise SystemExit(f"unknown source(s): {', '.join(unknown)}; known: {', '.join(sorted(all_sources()))}")
    return wanted


def _json_default(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def _print_json_line(row: dict) -> None:
    print(json.dumps(row, default=_json_default, ensure_ascii=False))


# -- commands --------------------------------------------------------------------------------------------------------
def cmd_run(args) -> int:
    from flows.daily import daily, replay_offline

    sources = _source_list(args.sources)
    build, export = not args.no_build, not args.no_build and not args.no_export
    if args.offline:
        report = asyncio.run(replay_offline(sources=sources, since=args.since, until=args.until, build=build, export=export))
    else:
        report = asyncio.run(daily(sources=sources, build=build, export=export))
    statuses = Counter(s["status"] for s in report["sources"])
    print(f"{len(report['sources'])} source-runs: " + ", ".join(f"{n} {status}" for status, n in sorted(statuses.items())))
    print(f"dbt build: {'done' if report['built'] else 'skipped'}; exported: {', '.join(report['exported']) or 'nothing'}")
    if report["dashboard"]:
        print(f"dashboard: {report['dashboard']}/index.html (gpuprices dashboard serve)")
    elif report["dashboard_error"]:
        print(f"dashboard NOT built: {report['dashboard_error']}")
    for event in report["alerts"]:
        print(f"ALERT {event['message']}")
    for failed in (d for d in report["alert_deliveries"] if d["status"] == "failed"):
        print(f"alert delivery failed ({failed['channel']}, {failed['attempts']} attempts): {failed['error']}")
    if report["alerts_error"]:
        print(f"alerts NOT evaluated: {report['alerts_error']}")
    if report["built"]:
        print('try: gpuprices sql "select * from marts.gpu_prices_daily order by price_date desc limit 5"')
    return 0


def cmd_fetch(args) -> int:
    """Fetch and land only (no parse, no load): the raw documents go to <home>/landing/."""
    from scrapers.http import HttpClient

    async def fetch_all(source_ids):
        observed_at = stages.utc_now()
        async with HttpClient() as client:
            for source_id in source_ids:
                try:
                    run = await stages.fetch_and_land(all_sources()[source_id], client, observed_at)
                    print(f"{source_id}: landed {len(run.documents)} document(s) in {run.relative_path}")
                except SourceError as error:
                    print(f"{source_id}: {error.status}: {error}")

    asyncio.run(fetch_all(_source_list(args.sources) or sorted(all_sources())))
    return 0


def cmd_load(args) -> int:
    records = stages.ingest_landed_runs(all_sources(), args.source, args.since, trigger=args.trigger)
    for record in records:
        print(f"{record.source:18} {record.run_id}  {record.status}  loaded={record.offers_loaded}")
    print(f"{len(records)} landed run(s) ingested with the current parsers")
    return 0


def cmd_parse(args) -> int:
    from warehouse.landing import LandedRun
    from warehouse.normalize import normalize

    sources = all_sources()
    if args.source not in sources:
        raise SystemExit(f"unknown source {args.source}; known: {', '.join(sorted(sources))}")
    source, path = sources[args.source], Path(args.file).resolve()
    document = RawDocument(url=path.as_uri(), status=200, body=path.read_bytes(), fetched_at=datetime.now(UTC))
    run = LandedRun(
        source=source.id, run_id="adhoc", observed_at=document.fetched_at, data_origin="captured",
        directory=path.parent, documents=[document], document_files=[path.name],
    )
    frame, _ = normalize(source.parse([document]), run, source.parser_version)
    for row in frame.drop(["run_id", "landing_ref"]).iter_rows(named=True):
        _print_json_line(row)
    return 0


def cmd_backfill(args) -> int:
    from flows.backfill import backfill_ecb, backfill_skypilot

    if args.kind == "ecb":
        record = backfill_ecb(Path(args.file) if args.file else None)
        print(f"backfill ecb: {record.status}, {record.offers_loaded} rates loaded"
              + (f" ({record.error})" if record.error else ""))
        if record.status == "loaded" and not args.no_build:
            stages.build()
        return 0 if record.status in ("loaded", "already_loaded") else 1
    if not args.repo:
        raise SystemExit("backfill skypilot needs --repo PATH (a local clone of the catalog repository)")
    counts: dict[str, int] = {}
    for number, total, commit, record in backfill_skypilot(Path(args.repo), _source_list(args.clouds),
                                                           args.since, args.until):
        status = record.status if record else "file_deleted"
        counts[status] = counts.get(status, 0) + 1
        offers = f", {record.offers_loaded} offers" if record and record.status == "loaded" else ""
        stages.progress(f"backfill {number}/{total} skypilot-{commit.cloud} {commit.commit[:10]} "
                        f"{commit.committed_at:%Y-%m-%d %H:%M} {status}{offers}")
    print(f"backfill: {sum(counts.values())} catalog commits: "
          + (", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none found"))
    if counts and not args.no_build:
        stages.build()
    return 1 if counts.get("failed") else 0


def cmd_bench(args) -> int:
    if args.kind == "build":
        from flows.bench_build import bench_build, report

        horizons = tuple(days for days in (30, 365, 1095) if days <= args.years * 365) or (30,)
        root = Path(args.root).resolve() if args.root else stages.data_home() / "bench-build"
        results, queries = bench_build(root, horizons, args.marketplace_offers, args.increments, args.query_runs)
        print(report(results, queries))
        return 0
    from flows.bench import bench_fetch

    result = bench_fetch(args.latency_ms / 1000, args.interval_ms / 1000, args.concurrency)
    print(result.report())
    return 0


def cmd_limits(args) -> int:
    """The per-host Prefect tag concurrency limits of a distributed run (flows/scale_out.py)."""
    from flows.scale_out import apply_limits, concurrency_limits

    limits = concurrency_limits(all_sources(), args.per_host)
    for tag, limit in sorted(limits.items()):
        print(f"prefect concurrency-limit create {tag} {limit}")
    if args.apply:
        asyncio.run(apply_limits(limits))
        print(f"{len(limits)} tag concurrency limits set on the Prefect server")
    return 0


def cmd_build(args) -> int:
    from warehouse import db

    plan = stages.build(args.select, args.vars, full_refresh=args.full_refresh)
    kind = "full rebuild" if plan.full_refresh else f"incremental, {len(plan.rebuild_dates)} day(s) rewritten"
    print(f"dbt build done ({kind}: {plan.reason})")
    if not args.select:
        db.publish_snapshot()
    return 0


def cmd_export(args) -> int:
    for path in stages.export_marts():
        print(path)
    return 0


def cmd_sql(args) -> int:
    from warehouse import db

    with db.connect(read_only=True) as connection:
        result = connection.execute(args.query)
        columns = [c[0] for c in result.description]
        rows = result.fetchall()
    if args.json:
        for row in rows:
            _print_json_line(dict(zip(columns, row, strict=True)))
        return 0
    _print_table(columns, rows)
    return 0


def _print_table(columns: list[str], rows: list[tuple]) -> None:
    cells = [[("" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


def cmd_status(args) -> int:
    from flows.status import status

    report = status()
    if args.json:
        print(json.dumps(report, default=_json_default, indent=2))
    else:
        from flows.status import render

        print(render(report))
    return 0


def cmd_serve(args) -> int:
    from flows.daily import daily

    daily.serve(name="gpuprices-daily", cron=args.cron, parameters={"build": True, "export": True})
    return 0


def cmd_estimate(args) -> int:
    from flows.estimate import EstimateError, EstimateRequest, ModelShape, estimate, format_rows, parse_count

    try:
        if args.model:
            if args.params or args.active_params:
                raise EstimateError("--model takes its parameters from the reference table; drop --params")
            from flows.estimate import _connect, reference_model

            with _connect() as connection:
                model = reference_model(connection, args.model)
            if args.tokens:
                model.tokens = parse_count(args.tokens, "--tokens")
        elif args.params:
            total = parse_count(args.params, "--params")
            model = ModelShape(
                name=f"{args.params} parameters", total_params=total,
                active_params=parse_count(args.active_params, "--active-params") if args.active_params else total,
                tokens=parse_count(args.tokens, "--tokens") if args.tokens else None,
                layers=args.layers, d_model=args.d_model, kv_values_per_token_per_layer=args.kv_values,
            )
        else:
            raise EstimateError("give --model NAME (a reference model) or --params N --tokens D")
        rows = estimate(EstimateRequest(
            model=model, gpu=args.gpu, mfu=args.mfu, precision=args.precision, recompute=args.recompute,
            cluster_gpus=args.gpus, inference=args.inference, context_tokens=args.context, batch_size=args.batch,
            tokens_per_second=args.tokens_per_second,
        ))
    except (EstimateError, FileNotFoundError) as error:
        print(f"gpuprices estimate: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows[0] if args.gpu else rows, default=_json_default, ensure_ascii=False, indent=2))
    else:
        view = "serving" if args.inference else "training"
        print(f"{model.name}: {view} estimate, {args.precision}" + (f", {len(rows)} GPUs ranked" if not args.gpu else ""))
        print(format_rows(rows, args.inference))
    return 0


def cmd_dashboard(args) -> int:
    from dashboards.build import build, site_root

    if args.action == "build":
        pages = build()
        print(f"{len(pages)} pages in {site_root()}; open {site_root() / 'index.html'} or `gpuprices dashboard serve`")
        return 0
    from dashboards.serve import serve

    serve(site_root(), port=args.port)
    return 0


def cmd_alerts(args) -> int:
    import duckdb

    from warehouse import db
    from warehouse.alerts import Rule, RuleError, load_config, resolve_rule_gpu, rules_path, save_config

    try:
        rules, delivery = load_config()
        if args.action == "list":
            for rule in rules:
                print(f"{rule.name:24} {rule.describe()}")
            print(f"({len(rules)} rules in {rules_path()})")
            return 0
        if args.action in ("add", "remove") and not args.name:
            raise RuleError(f"{args.action} needs the rule's name")
        if args.action == "add" and not args.gpu:
            raise RuleError("add needs --gpu (a canonical id or an alias)")
        if args.action == "remove":
            kept = [rule for rule in rules if rule.name != args.name]
            if len(kept) == len(rules):
                raise RuleError(f"no rule named {args.name!r}")
            save_config(kept, delivery)
            print(f"removed {args.name}")
            return 0
        if args.action == "add":
            condition = ("below" if args.below else "drop" if args.drop else "good_deal" if args.good_deal
                         else "new_low" if args.new_low else None)
            if condition is None:
                raise RuleError("say when: --below PRICE [--currency C], --drop PERCENT, --good-deal or --new-low")
            rule = Rule(name=args.name, gpu=args.gpu, market=args.market, condition=condition, price=args.below,
                        currency=args.currency.upper(), percent=args.drop).validate()
            if any(existing.name == rule.name for existing in rules):
                raise RuleError(f"a rule named {rule.name!r} exists; remove it first")
            with db.connect(read_only=True) as connection:
                gpu_id = resolve_rule_gpu(connection, rule.gpu)
            save_config([*rules, rule], delivery)
            print(f"added {rule.name}: {rule.describe()} (GPU {gpu_id}); evaluated at the end of every daily run")
            return 0
        from datetime import date

        from flows.alerts import deliver
        from warehouse.alerts import evaluate

        if args.action == "check":
            with db.connect(read_only=True) as connection:
                latest = connection.execute("select max(price_date) from marts.gpu_prices_daily").fetchone()[0]
            day = date.fromisoformat(args.date) if args.date else latest
            events = evaluate([day], rules)
            for event in events:
                print(f"ALERT {event['message']}")
            for result in deliver(events, delivery):
                print(f"  {result['channel']}: {result['status']} after {result['attempts']} attempt(s)"
                      + (f": {result['error']}" if result["error"] else ""))
            print(f"{len(events)} alert(s) fired on {day}")
            return 0
        with db.connect(read_only=True) as connection:  # events
            rows = db.fetch_dicts(connection, "select price_date, rule_name, message from alerts.alert_events "
                                              "order by price_date, rule_name")
        for row in rows:
            print(f"{row['price_date']}  {row['rule_name']:24} {row['message']}")
        return 0
    except (RuleError, FileNotFoundError, duckdb.Error) as error:
        print(f"gpuprices alerts: {error}", file=sys.stderr)
        return 2


def cmd_quotes(args) -> int:
    from warehouse.quotes import QuoteFileError, load_quotes

    try:
        load_id, count, already = load_quotes(Path(args.file))
    except (QuoteFileError, FileNotFoundError) as error:
        print(f"gpuprices quotes: {error}", file=sys.stderr)
        return 2
    print(f"{args.file}: already loaded as {load_id}" if already else f"{args.file}: {count} quotes loaded ({load_id})")
    if count and not args.no_build:
        stages.build()
    return 0


def cmd_schema(args) -> int:
    from warehouse.docs import schema_markdown

    print(schema_markdown())
    return 0


def cmd_sources(args) -> int:
    from warehouse.docs import sources_markdown

    print(sources_markdown())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpuprices", description="Open GPU price warehouse")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="the daily flow: fetch, load, dbt build, Parquet export, report")
    run.add_argument("--offline", action="store_true", help="replay every bundled day from the local recorded server")
    run.add_argument("--sources", help="comma-separated source ids (default: all)")
    run.add_argument("--since", type=date.fromisoformat, help="offline: first day to replay (YYYY-MM-DD)")
    run.add_argument("--until", type=date.fromisoformat, help="offline: last day to replay (YYYY-MM-DD)")
    run.add_argument("--no-build", action="store_true", help="load only; skip dbt build and export")
    run.add_argument("--no-export", action="store_true", help="skip the Parquet export")
    run.set_defaults(func=cmd_run)

    fetch = commands.add_parser("fetch", help="fetch and land raw documents only (no parse, no load)")
    fetch.add_argument("--sources", help="comma-separated source ids (default: all)")
    fetch.set_defaults(func=cmd_fetch)

    for name, trigger, text in (
        ("load", "load", "parse, check and load landed runs not yet loaded"),
        ("reparse", "reparse", "re-parse landed runs with the current parser versions (old rows are kept)"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument("--source", help="one source id (default: all)")
        command.add_argument("--since", type=date.fromisoformat, help="only runs landed on or after this date")
        command.set_defaults(func=cmd_load, trigger=trigger)

    parse = commands.add_parser("parse", help="print the normalized offers a saved page or payload yields (JSON lines)")
    parse.add_argument("source")
    parse.add_argument("file")
    parse.set_defaults(func=cmd_parse)

    backfill = commands.add_parser(
        "backfill", help="load history: every commit of a local catalog clone, or the ECB rate history")
    backfill.add_argument("kind", choices=["skypilot", "ecb"], help="what to backfill from")
    backfill.add_argument("--repo", help="skypilot: a local clone of skypilot-org/skypilot-catalog (or alike)")
    backfill.add_argument("--file", help="ecb: a downloaded eurofxref-hist.zip (default: fetch it from the ECB)")
    backfill.add_argument("--since", type=date.fromisoformat, help="first commit date (YYYY-MM-DD)")
    backfill.add_argument("--until", type=date.fromisoformat, help="last commit date (YYYY-MM-DD)")
    backfill.add_argument("--clouds", help="comma-separated clouds (default: every SkyPilot cloud we parse)")
    backfill.add_argument("--no-build", action="store_true", help="load only; skip dbt build")
    backfill.set_defaults(func=cmd_backfill)

    limits = commands.add_parser("limits", help="per-host Prefect concurrency limits for runs on a work pool")
    limits.add_argument("--per-host", type=int, default=1, help="sources fetching from one host at once")
    limits.add_argument("--apply", action="store_true", help="create them on the Prefect server (PREFECT_API_URL)")
    limits.set_defaults(func=cmd_limits)
    bench = commands.add_parser(
        "bench", help="benchmarks that print figures (fetch: against the local server; build: synthetic history)")
    bench.add_argument("kind", choices=["fetch", "build"])
    bench.add_argument("--years", type=int, default=3, help="build: longest history (1 month, 1 year, 3 years)")
    bench.add_argument("--marketplace-offers", type=int, default=10_000, help="build: marketplace offers per day")
    bench.add_argument("--increments", type=int, default=3, help="build: daily incremental builds timed per history")
    bench.add_argument("--query-runs", type=int, default=20, help="build: runs of each dashboard query")
    bench.add_argument("--root", help="build: where the bench warehouses go (default <home>/bench-build)")
    bench.add_argument("--latency-ms", type=float, default=200.0, help="injected latency per response")
    bench.add_argument("--interval-ms", type=float, default=250.0, help="per-host minimum interval between starts")
    bench.add_argument("--concurrency", type=int, default=2, help="per-host requests in flight")
    bench.set_defaults(func=cmd_bench)

    build = commands.add_parser("build", help="dbt build (seeds, models, data tests, unit tests)")
    build.add_argument("--select", help="a dbt selector")
    build.add_argument("--vars", help="override estimate assumptions, YAML: '{mfu: 0.35, pue: 1.2}'")
    build.add_argument("--full-refresh", action="store_true",
                       help="rebuild every day (default: only the days changed since the last build)")
    build.set_defaults(func=cmd_build)

    est = commands.add_parser(
        "estimate", help="training (or --inference serving) cost of a model, on one GPU or ranked across all GPUs")
    est.add_argument("--model", help="a reference model id or name (see reference.reference_models)")
    est.add_argument("--params", help="total parameters, e.g. 70B or 7e9")
    est.add_argument("--active-params", help="active parameters per token for a mixture of experts, e.g. 37B")
    est.add_argument("--tokens", help="training tokens, e.g. 2T")
    est.add_argument("--gpu", help="a canonical GPU id or any alias ('H100-80GB', 'A100 80GB'); default: rank all")
    est.add_argument("--mfu", type=float, help="model FLOPs utilization (default: marts.estimate_assumptions)")
    est.add_argument("--precision", default="bf16", choices=["bf16", "fp8", "int4"],
                     help="tensor precision (int4 = weight-only, serving only)")
    est.add_argument("--recompute", action="store_true", help="full activation recomputation (8*N*D)")
    est.add_argument("--gpus", type=int, help="cluster size for wall-clock days (default: the assumption, or min GPUs)")
    est.add_argument("--layers", type=int, help="layers, for activation memory / KV cache (with --params)")
    est.add_argument("--d-model", type=int, help="hidden size, for activation memory (with --params)")
    est.add_argument("--kv-values", type=int, help="KV cache values per token per layer (with --params --inference)")
    est.add_argument("--inference", action="store_true", help="the serving view: GPUs, tokens/s, $ per M tokens")
    est.add_argument("--context", type=int, help="serving: tokens per sequence (default: the assumption)")
    est.add_argument("--batch", type=int, help="serving: concurrent sequences (default: the assumption)")
    est.add_argument("--tokens-per-second", type=float,
                     help="serving: a stated output throughput of the whole deployment (default: roofline estimate)")
    est.add_argument("--json", action="store_true", help="an object (a list when ranked), full precision")
    est.set_defaults(func=cmd_estimate)

    quotes = commands.add_parser("quotes", help="broker and reseller quotes: load a CSV")
    quotes.add_argument("action", choices=["load"])
    quotes.add_argument("file", help="CSV with columns date,gpu,low,high,currency,source_note")
    quotes.add_argument("--no-build", action="store_true", help="load only; skip dbt build")
    quotes.set_defaults(func=cmd_quotes)

    alerts = commands.add_parser("alerts", help="price alerts: add/list/remove watch rules, check a day, list events")
    alerts.add_argument("action", choices=["add", "list", "remove", "check", "events"])
    alerts.add_argument("name", nargs="?", help="add/remove: the rule's name")
    alerts.add_argument("--gpu", help="add: a canonical GPU id or any alias (H100-80GB, RTX 4090...)")
    alerts.add_argument("--market", choices=["on_demand", "spot", "retail_new", "retail_used"], default="on_demand")
    alerts.add_argument("--below", help="add: fire at or below this price (per GPU-hour or per card)")
    alerts.add_argument("--currency", default="USD", help="add: the --below price's currency (converted each day)")
    alerts.add_argument("--drop", help="add: fire at this percent under the trailing 7-day median")
    alerts.add_argument("--good-deal", action="store_true", help="add: fire on the mart's good-deal flag")
    alerts.add_argument("--new-low", action="store_true", help="add: fire on a new lowest price ever")
    alerts.add_argument("--date", help="check: the day to evaluate (default: the latest day in the marts)")
    alerts.set_defaults(func=cmd_alerts)

    dash = commands.add_parser("dashboard", help="build the static dashboard site (<home>/site) or serve it locally")
    dash.add_argument("action", choices=["build", "serve"])
    dash.add_argument("--port", type=int, default=8400, help="serve: port on 127.0.0.1 (0 = any free port)")
    dash.set_defaults(func=cmd_dashboard)

    commands.add_parser("export", help="export the marts to Parquet partitioned by date").set_defaults(func=cmd_export)

    sql = commands.add_parser("sql", help="run a read-only SQL query on the warehouse")
    sql.add_argument("query")
    sql.add_argument("--json", action="store_true", help="print JSON lines")
    sql.set_defaults(func=cmd_sql)

    status = commands.add_parser("status", help="last run and freshness per source, quarantine, unmatched GPU names")
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)

    serve = commands.add_parser("serve", help="serve the daily flow on a cron schedule (Prefect flow.serve)")
    serve.add_argument("--cron", default="0 6 * * *", help="cron schedule, UTC (default: 06:00 daily)")
    serve.set_defaults(func=cmd_serve)

    commands.add_parser("schema", help="print the warehouse schema (Markdown)").set_defaults(func=cmd_schema)
    commands.add_parser("sources", help="print the source table (Markdown)").set_defaults(func=cmd_sources)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except FileNotFoundError as error:
        print(f"gpuprices: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
