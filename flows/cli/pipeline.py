"""The stages, each runnable alone: run (the whole daily flow), fetch, load, reparse, parse, build, export,
backfill, serve, limits."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from datetime import date
from pathlib import Path

from flows.cli.common import UsageError, duration, one_line, print_json_line, source_list, yaml_mapping
from flows.scale_out import apply_limits, concurrency_limits
from flows.schedule import Schedule, ScheduleError, serve
from flows.series_marts import write_series_marts
from scrapers.errors import SourceError
from scrapers.http import HttpClient
from scrapers.registry import all_sources
from scrapers.replay import ReplayRangeError, check_replay_range, load_recordings
from warehouse.store import db
from warehouse.ingest.backfill import GitError, backfill_ecb, backfill_skypilot
from warehouse.store.build import build as dbt_build
from warehouse.store.build import run_unit_tests
from warehouse.store.export import export_marts
from warehouse.ingest.pipeline import fetch_only, ingest_landed_runs, parse_file
from warehouse.store.progress import progress
from warehouse.store.status import FAILED_STATUSES


def cmd_run(args) -> int:
    sources = source_list(args.sources)
    if args.offline:
        try:  # here, not in the flow: a range with no day is a usage line, not a failed flow run's traceback
            check_replay_range(load_recordings(), args.since, args.until)
        except ReplayRangeError as error:
            raise UsageError(f"run --offline: {error}") from None

    from flows.daily import (  # Prefect: seconds to import
        daily,
        lighten_ephemeral_server,
        replay_offline,
    )

    build, export = not args.no_build, not args.no_build and not args.no_export
    if args.offline:
        lighten_ephemeral_server()
        report = asyncio.run(replay_offline(sources=sources, since=args.since, until=args.until, build=build, export=export))
    else:
        report = asyncio.run(daily(sources=sources, build=build, export=export))
    statuses = Counter(s["status"] for s in report["sources"])
    print(f"{len(report['sources'])} source-runs: " + ", ".join(f"{n} {status}" for status, n in sorted(statuses.items())))
    print(f"dbt build: {'done' if report['built'] else 'skipped'}; exported: {', '.join(report['exported']) or 'nothing'}")
    print("seconds per stage: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in report["stage_seconds"].items())
          + " (sources: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in report["source_stage_seconds"].items())
          + ")")
    if report["dashboard"]:
        print(f"dashboard: {report['dashboard']}/index.html (gpuprices dashboard serve)")
    elif report["dashboard_error"]:
        print(f"dashboard NOT built: {one_line(report['dashboard_error'])}")
    for event in report["alerts"]:
        print(f"ALERT {event['message']}")
    for failed in (d for d in report["alert_deliveries"] if d["status"] == "failed"):
        print(f"alert delivery failed ({failed['delivery']}, {failed['attempts']} attempts): {failed['error']}")
    if report["alerts_error"]:
        print(f"alerts NOT evaluated: {report['alerts_error']}")
    if report.get("outlook_error"):
        print(f"outlook NOT written: {one_line(report['outlook_error'])}")
    print_incidents(report)
    if report["sources"] and not any(s["status"] in ("loaded", "already_loaded") for s in report["sources"]):
        # a scheduler must notice a day on which nothing came in (the reasons are in the lines above)
        print(f"error: nothing loaded: all {len(report['sources'])} source-runs failed or were skipped", file=sys.stderr)
        return 1
    if report["built"]:
        print('try: gpuprices sql "select * from marts.gpu_prices_daily order by price_date desc limit 5"')
    # a rerun of a failed landing says already_<status>: the failure still stands
    failed = [s for s in report["sources"] if s["status"].removeprefix("already_") in FAILED_STATUSES]
    if args.strict and failed:
        names = ", ".join(f"{s['source']} ({s['status']})" for s in failed)
        print(f"error: --strict: {len(failed)} of {len(report['sources'])} source-runs did not load: {names}",
              file=sys.stderr)
        return 3
    return 0


def print_incidents(report: dict) -> None:
    """The run's source incidents (warehouse/store/incidents.py): one line each opened or closed, one per message that
    reached no channel, one per note."""
    incidents = report.get("incidents") or {}
    for incident in incidents.get("opened", []):
        print(f"INCIDENT opened {incident['incident_id']} ({incident['kind']}): {one_line(incident['detail'])[:300]}")
    for incident in incidents.get("closed", []):
        print(f"INCIDENT closed {incident['incident_id']} ({incident['kind']}): {incident['close_reason']}")
    for failed in (m for m in incidents.get("messages", []) if m["status"] == "failed"):
        print(f"incident message failed ({failed['incident_id']}, {failed['delivery']}, {failed['attempts']} "
              f"attempts): {one_line(failed['error'])[:300]}")
    for note in incidents.get("notes", []):
        print(f"incidents: {note}")
    if report.get("incidents_error"):
        print(f"incidents NOT judged: {one_line(report['incidents_error'])}")


def cmd_fetch(args) -> int:
    """Fetch and land only (no parse, no load): the raw documents go to <home>/landing/."""
    registry = all_sources()
    sources = [registry[source_id] for source_id in source_list(args.sources) or sorted(registry)]

    async def fetch_all():
        async with HttpClient() as client:
            return await fetch_only(sources, client)

    for source_id, result in asyncio.run(fetch_all()):
        if isinstance(result, SourceError):
            print(f"{source_id}: {result.status}: {result}")
        else:
            print(f"{source_id}: landed {len(result.documents)} document(s) in {result.relative_path}")
    return 0


def cmd_load(args) -> int:
    records = ingest_landed_runs(all_sources(), args.source, args.since, trigger=args.trigger)
    for record in records:
        print(f"{record.source:23} {record.run_id}  {record.status}  loaded={record.rows_loaded}")
    print(f"{len(records)} landed run(s) ingested with the current parsers")
    return 0


def cmd_parse(args) -> int:
    sources = all_sources()
    if args.source not in sources:
        raise UsageError(f"unknown source {args.source}; known: {', '.join(sorted(sources))}")
    path = Path(args.file).resolve()
    if not path.is_file():
        raise UsageError(f"{args.file}: no such file")
    try:
        frame = parse_file(sources[args.source], path)
    except Exception as error:  # noqa: BLE001 - any parser failure on a file the user picked is one line, exit 2
        raise UsageError(f"{args.source} cannot parse {args.file}: {type(error).__name__}: {one_line(error)}") from None
    for row in frame.drop(["run_id", "landing_ref"]).iter_rows(named=True):
        print_json_line(row)
    return 0


def cmd_backfill(args) -> int:
    if args.kind == "ecb":
        record = backfill_ecb(Path(args.file) if args.file else None)
        print(f"backfill ecb: {record.status}, {record.rows_loaded} rates loaded"
              + (f" ({record.error})" if record.error else ""))
        if record.status == "loaded" and not args.no_build:
            dbt_build()
        return 0 if record.status in ("loaded", "already_loaded") else 1
    if not args.repo:
        raise UsageError("backfill skypilot needs --repo PATH (a local clone of the catalog repository)")
    if not Path(args.repo).is_dir():
        raise UsageError(f"backfill skypilot --repo {args.repo}: no such folder (a local clone of the catalog "
                         "repository)")
    counts: dict[str, int] = {}
    try:
        for number, total, commit, record in backfill_skypilot(Path(args.repo), source_list(args.clouds),
                                                               args.since, args.until):
            status = record.status if record else "file_deleted"
            counts[status] = counts.get(status, 0) + 1
            offers = f", {record.rows_loaded} offers" if record and record.status == "loaded" else ""
            progress(f"backfill {number}/{total} skypilot-{commit.cloud} {commit.commit[:10]} "
                     f"{commit.committed_at:%Y-%m-%d %H:%M} {status}{offers}")
    except GitError as error:
        raise UsageError(f"backfill skypilot: {error}") from None
    print(f"backfill: {sum(counts.values())} catalog commits: "
          + (", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none found"))
    if counts and not args.no_build:
        dbt_build()
    return 1 if counts.get("failed") else 0


def cmd_build(args) -> int:
    try:
        if args.unit_tests:
            print(f"dbt unit tests: {run_unit_tests()} passed")
            return 0
        plan = dbt_build(args.select, args.vars, full_refresh=args.full_refresh)
    except RuntimeError as error:  # a failed model or test: dbt's log says which
        print(f"gpuprices build: {error}", file=sys.stderr)
        return 1
    kind = "full rebuild" if plan.full_refresh else f"incremental, {len(plan.rebuild_dates)} day(s) rewritten"
    print(f"dbt build done ({kind}: {plan.reason})")
    if not args.select:
        write_series_marts(plan)
        db.publish_snapshot()
    return 0


def cmd_export(args) -> int:
    for path in export_marts():
        print(path)
    return 0


def cmd_serve(args) -> int:
    """The daily job at every scheduled time, by serve's own clock (flows/schedule.py): nothing else to set up."""
    try:
        schedule = Schedule(every=args.every) if args.every else Schedule(cron=args.cron)
    except ScheduleError as error:
        raise UsageError(str(error)) from None
    if args.runs is not None and args.runs < 1:
        raise UsageError(f"--runs must be 1 or more, got {args.runs}")
    source_list(args.sources)  # an unknown source ends serve now, not at the first scheduled time
    return serve(schedule, run_arguments(args), args.runs)


def run_arguments(args) -> list[str]:
    """The `gpuprices run` options serve was given, for each scheduled run."""
    arguments = ["--offline"] if args.offline else []
    if args.sources:
        arguments += ["--sources", args.sources]
    for option in ("since", "until"):
        if getattr(args, option):
            arguments += [f"--{option}", getattr(args, option).isoformat()]
    for option in ("no_build", "no_export", "strict"):
        if getattr(args, option):
            arguments.append(f"--{option.replace('_', '-')}")
    return arguments


def cmd_limits(args) -> int:
    """The per-host Prefect tag concurrency limits of a distributed run (flows/scale_out.py)."""
    limits = concurrency_limits(all_sources(), args.per_host)
    for tag, limit in sorted(limits.items()):
        print(f"prefect concurrency-limit create {tag} {limit}")
    if args.apply:
        asyncio.run(apply_limits(limits))
        print(f"{len(limits)} tag concurrency limits set on the Prefect server")
    return 0


RUN_EXIT_STATUSES = """exit status:
  0  the run ended and at least one source loaded (or had loaded this observation before); without
     --strict, other sources may have failed: the lines above and the run report name them
  1  nothing loaded (every source-run failed or was skipped), or the run itself failed (its error says why)
  2  a usage error: an unknown source, a bad date or option
  3  --strict only: at least one source-run failed, was blocked, could not be parsed or was quarantined
     (a source skipped for want of its API key is not a failure)"""


def add_run_options(parser) -> None:
    """`gpuprices run`'s options; serve takes them too and passes them to every run it starts."""
    parser.add_argument("--offline", action="store_true",
                        help="replay every bundled day from the local recorded server")
    parser.add_argument("--sources", help="comma-separated source ids (default: all)")
    parser.add_argument("--since", type=date.fromisoformat, help="offline: first day to replay (YYYY-MM-DD)")
    parser.add_argument("--until", type=date.fromisoformat, help="offline: last day to replay (YYYY-MM-DD)")
    parser.add_argument("--no-build", action="store_true", help="load only; skip dbt build and export")
    parser.add_argument("--no-export", action="store_true", help="skip the Parquet export")
    parser.add_argument("--strict", action="store_true",
                        help="exit 3 when any source-run failed (default: exit 1 only when nothing loaded)")


def register(commands) -> None:
    run = commands.add_parser("run", help="the daily flow: fetch, load, dbt build, Parquet export, report",
                              epilog=RUN_EXIT_STATUSES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_options(run)
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

    parse = commands.add_parser("parse", help="print the normalized records a saved page or payload yields (JSON lines)")
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

    build = commands.add_parser("build", help="dbt build (seeds, models, data tests); --unit-tests: the formulas' tests")
    build.add_argument("--select", help="a dbt selector")
    build.add_argument("--vars", type=yaml_mapping, help="override estimate assumptions, YAML: '{mfu: 0.35, pue: 1.2}'")
    build.add_argument("--full-refresh", action="store_true",
                       help="rebuild every day (default: only the days changed since the last build)")
    build.add_argument("--unit-tests", action="store_true",
                       help="run the models' unit tests (given rows -> expected rows; the test suite runs them) "
                            "against the built warehouse instead of building")
    build.set_defaults(func=cmd_build)

    commands.add_parser("export", help="export the marts to Parquet partitioned by date").set_defaults(func=cmd_export)

    serve_command = commands.add_parser(
        "serve", help="run the daily job on a schedule, by its own clock: `gpuprices run` at every scheduled time",
        description="Keeps running and starts `gpuprices run` (with the run options given here) at every scheduled "
                    "time; needs no Prefect server. Ctrl-C or SIGTERM stops it (and a run going on).")
    when = serve_command.add_mutually_exclusive_group()
    when.add_argument("--cron", default="0 6 * * *", help="cron schedule, UTC (default: 06:00 daily)")
    when.add_argument("--every", type=duration, help="a fixed interval instead, e.g. 6h or 30s")
    serve_command.add_argument("--runs", type=int, help="stop after this many runs (default: never)")
    add_run_options(serve_command)
    serve_command.set_defaults(func=cmd_serve)

    limits = commands.add_parser("limits", help="per-host Prefect concurrency limits for runs on a work pool")
    limits.add_argument("--per-host", type=int, default=1, help="sources fetching from one host at once")
    limits.add_argument("--apply", action="store_true", help="create them on the Prefect server (PREFECT_API_URL)")
    limits.set_defaults(func=cmd_limits)
