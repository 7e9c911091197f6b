"""Reading and feeding the warehouse: sql, status, incidents, schema, sources, quotes, dashboard."""

from __future__ import annotations

import argparse
import csv
import sys
from datetime import UTC
from pathlib import Path

import duckdb

from config.settings import data_home
from config.settings import markdown_table as settings_table
from dashboards.build import build as build_site
from dashboards.build import site_root
from dashboards.serve import serve
from flows.cli.common import (
    clipped,
    duration,
    json_text,
    listed_one_line,
    one_line,
    print_json_line,
    unique_names,
)
from warehouse import db
from warehouse.build import build as dbt_build
from warehouse.build import load_dbt_in_background
from warehouse.docs import (
    GENERATED_BLOCKS,
    MissingMarkers,
    rewrite_blocks,
    schema_markdown,
    source_credentials_markdown,
    sources_markdown,
    sources_test_data_markdown,
    stale_blocks,
)
from warehouse.imports import BAD_ROWS, FORMATS, ImportFileError, import_prices, parse_columns
from warehouse.incidents import NoOpenIncident, close_by_hand, render_line
from warehouse.incidents import listed as listed_incidents
from warehouse.markets import IMPORT_MARKETS
from warehouse.quotes import QuoteFileError, load_quotes
from warehouse.retractions import RetractionError, list_imports, undo_import
from warehouse.status import problems, render, status


def cmd_sql(args) -> int:
    if not args.query.strip():
        print('gpuprices sql: no query given: gpuprices sql "select ..."', file=sys.stderr)
        return 2
    with db.connect(read_only=True) as connection:
        if not args.allow_files:
            # read-only means the warehouse only: no COPY TO a path, no read_text('/etc/...'), and no SET to undo it
            connection.execute("SET enable_external_access = false")
            connection.execute("SET lock_configuration = true")
        else:
            connection.execute(f"SET file_search_path = '{file_search_path()}'")
        try:
            result = connection.execute(args.query)
            if result is None:  # only comments: DuckDB runs nothing and returns no result
                print("gpuprices sql: the query holds no SQL statement", file=sys.stderr)
                return 2
            columns = [c[0] for c in result.description] if result.description else []
            rows = result.fetchall() if columns else []
        except duckdb.Error as error:
            print(f"gpuprices sql: {one_line(error)}", file=sys.stderr)
            return 1
    if args.json:
        keys = unique_names(columns)  # `select 1 as a, 2 as a`: both columns, as a and a_1
        for row in rows:
            print_json_line(dict(zip(keys, row, strict=True)))
        return 0
    print_table(columns, rows)
    return 0


def file_search_path() -> str:
    """Where `sql --allow-files` looks for a file named by a relative path (DuckDB's file_search_path): the current
    directory, then the data home, so `'export/<mart>/*/*.parquet'` reads the Parquet export from anywhere. A glob
    matches in both (a directory named like the export in the current directory adds its files too). Writes (COPY
    TO) stay relative to the current directory. A path with a comma cannot be listed and is left out."""
    folders = dict.fromkeys(str(folder) for folder in (Path.cwd(), data_home()))
    return ",".join(folder for folder in folders if "," not in folder).replace("'", "''")


def print_table(columns: list[str], rows: list[tuple]) -> None:
    cells = [[("" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


def cmd_status(args) -> int:
    report = status()
    if not args.check:
        print(json_text(report, indent=2) if args.json else render(report))
        return 0
    found = problems(report, args.max_age)
    if args.json:
        print(json_text({**report, "problems": found}, indent=2))
    elif found:
        print("\n".join(found))
    else:
        feeds = sum(1 for source in report["sources"] if not source["is_imported"])
        print(f"ok: {feeds} source{'s' if feeds != 1 else ''}, none failed or stale, no open incident; newest run "
              f"{report['newest_run_at'].astimezone(UTC):%Y-%m-%d %H:%M} UTC, {report['newest_run_age_hours']} h ago")
    return 1 if found else 0


def cmd_incidents(args) -> int:
    """`incidents list [--all] [--json]`; `incidents close SOURCE --reason TEXT` (no message is sent)."""
    if args.action == "close":
        if not args.source or not (args.reason or "").strip():
            print("gpuprices incidents close: name the source and give --reason", file=sys.stderr)
            return 2
        try:
            incident = close_by_hand(args.source, args.reason)
        except NoOpenIncident as error:
            print(f"gpuprices incidents close: {error}", file=sys.stderr)
            return 1
        print(f"closed {incident['incident_id']} ({incident['kind']}): {incident['close_reason']}")
        return 0
    incidents = listed_incidents(open_only=not args.all)
    if args.json:
        for incident in incidents:
            print_json_line(incident)
    else:
        print("\n".join(render_line(incident) for incident in incidents) or
              ("no incident yet" if args.all else "no open incident"))
    return 0


def cmd_schema(args) -> int:
    print(schema_markdown())
    return 0


def cmd_sources(args) -> int:
    if args.credentials:
        print(source_credentials_markdown())
    else:
        print(sources_test_data_markdown() if args.test_data else sources_markdown())
    return 0


def cmd_docs(args) -> int:
    blocks = [block for block in GENERATED_BLOCKS if args.warehouse or not block.from_warehouse]
    try:
        found = stale_blocks(blocks) if args.check else rewrite_blocks(blocks)
    except (MissingMarkers, FileNotFoundError, duckdb.CatalogException) as error:
        print(f"gpuprices docs: {error}", file=sys.stderr)
        return 2
    for name in found:
        print(f"{'stale' if args.check else 'rewritten'}: {name}")
    if not args.warehouse:
        print("not checked: the blocks generated from the warehouse (schema, offline counts); after `gpuprices run "
              "--offline` on a fresh home: gpuprices docs --warehouse", file=sys.stderr)
    return 1 if args.check and found else 0


def cmd_settings(args) -> int:
    print(settings_table())
    return 0


def cmd_quotes(args) -> int:
    try:
        load_id, count, already = load_quotes(Path(args.file))
    except QuoteFileError as error:
        print(f"gpuprices quotes: {listed_one_line(error)}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError, csv.Error, ArithmeticError, duckdb.ConversionException,
            duckdb.OutOfRangeException) as error:
        print(f"gpuprices quotes: {args.file}: {unreadable(error)}", file=sys.stderr)
        return 2
    print(f"{args.file}: already loaded as {load_id}" if already else f"{args.file}: {count} quotes loaded ({load_id})")
    if count and not args.no_build:
        dbt_build()
    return 0


def cmd_import_prices(args) -> int:
    loading_dbt = []  # dbt loads on a thread once the file is checked (the build follows); waited for on every path
    try:
        return _import_prices(args, None if args.no_build else lambda: loading_dbt.append(load_dbt_in_background()))
    finally:
        for thread in loading_dbt:
            thread.join()


def _import_prices(args, on_checked) -> int:
    try:
        columns = parse_columns(args.columns) if args.columns is not None else None
        result = import_prices(Path(args.file), args.source, args.format, args.market, args.currency,
                               bad_rows=args.bad_rows, columns=columns, gpu=args.gpu, on_checked=on_checked)
    except ImportFileError as error:
        print(f"gpuprices import prices: {args.file}: {listed_one_line(error)}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError, csv.Error, RecursionError) as error:
        print(f"gpuprices import prices: {args.file}: {unreadable(error)}", file=sys.stderr)
        return 2
    if result.already_loaded:
        print(f"{args.file}: already imported as {result.source} ({result.file_run_id}); nothing changed")
        return 0
    print(f"{args.file}: {result.prices} rows read, {result.rows_quarantined} quarantined, {result.offers_loaded} "
          f"loaded as {result.source} (each offer's last price of a day) on {result.days} days, {result.first_day} "
          f"to {result.last_day} (real observations, marked imported); import id {result.file_run_id}")
    if result.rows_form_factor_unstated:
        print(f"of those quarantined, {result.rows_form_factor_unstated} name a datacenter GPU without its form factor "
              "(SXM, PCIe or NVL: never guessed; the GPU exists, the file does not say which part)")
    if result.rows_quarantined:
        shown = "\n  ".join(result.first_reasons)
        print(f"held back in raw.quarantine (`gpuprices status`), first {len(result.first_reasons)}:\n  {shown}")
    if not args.no_build:
        dbt_build()
    return 0


def _utc(moment) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment is not None else ""


def cmd_import_list(args) -> int:
    imports = list_imports()
    if args.json:
        for entry in imports:
            print_json_line(entry)
        return 0
    columns = ["import_id", "kind", "source", "file", "days", "rows", "held_back", "imported_utc", "retracted"]
    print_table(columns, [
        (entry["import_id"], entry["kind"], entry["source"], entry["file"],
         f"{entry['first_day']} to {entry['last_day']} ({entry['days']})", entry["rows"], entry["held_back"],
         _utc(entry["imported_at"]),
         f"{_utc(entry['retracted_at'])} UTC: {entry['reason']}" if entry["retracted_at"] is not None else "no")
        for entry in imports])
    return 0


def cmd_import_undo(args) -> int:
    try:
        done = undo_import(args.import_id, args.reason)
    except RetractionError as error:
        print(f"gpuprices import undo: {one_line(error)}", file=sys.stderr)
        return 2
    if done.already:
        print(f"{done.import_id}: already retracted on {_utc(done.retracted_at)} UTC ({done.reason}); nothing changed")
        return 0
    what = (f"{done.rows} offers on {done.runs} day(s) of {done.source}" if done.kind == "prices"
            else f"{done.rows} quotes")
    print(f"{done.import_id}: retracted ({what}), on {_utc(done.retracted_at)} UTC: {done.reason}. The rows stay in "
          "raw, marked retracted; every model leaves them out from the next build")
    if not args.no_build:
        dbt_build()
    return 0


def cmd_dashboard(args) -> int:
    if args.action == "build":
        pages = build_site()
        print(f"{len(pages)} pages in {site_root()}; open {site_root() / 'index.html'} or `gpuprices dashboard serve`")
        return 0
    try:
        serve(site_root(), port=args.port)
    except FileNotFoundError:
        raise  # no site yet: one line from main
    except OSError as error:  # the port is taken, or not ours to listen on
        print(f"gpuprices dashboard serve: cannot listen on 127.0.0.1:{args.port}: {error.strerror or error} "
              "(--port another one, or 0 for any free port)", file=sys.stderr)
        return 1
    return 0


def unreadable(error: BaseException) -> str:
    """Why a file the user gave cannot be read, on one line (no Python exception text where it says nothing)."""
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text ({error.reason} at byte {error.start}); save it as UTF-8"
    if isinstance(error, csv.Error):
        return f"not a CSV it can read ({one_line(error)})"
    if isinstance(error, RecursionError):
        return "nested too deeply to read (not a Keepa history, which is one level of prices)"
    if isinstance(error, ArithmeticError | duckdb.ConversionException | duckdb.OutOfRangeException):
        return "nothing loaded: an amount is too large to hold (at most 20 digits before the point)"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return clipped(one_line(error))


def port(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0 = any free port)")
    return number


def register(commands) -> None:
    sql = commands.add_parser("sql", help="run a read-only SQL query on the warehouse")
    sql.add_argument("query")
    sql.add_argument("--json", action="store_true", help="print JSON lines")
    sql.add_argument("--allow-files", action="store_true",
                     help="let the query read and write files (read_csv, COPY TO...); a relative path is also looked "
                          "for in the data home ('export/<mart>/*/*.parquet'); off by default")
    sql.set_defaults(func=cmd_sql)

    status_command = commands.add_parser(
        "status", help="last run and freshness per source, open incidents, quarantine, unmatched GPU names",
        epilog="exit status: 0 = shown (--check: no problem); 1 = --check found a problem, one line each; "
               "2 = a usage error or no warehouse yet")
    status_command.add_argument("--json", action="store_true")
    status_command.add_argument(
        "--check", action="store_true",
        help="for a scheduler or monitor: one line per problem (a source whose last run failed, a source carried "
             "forward or dropped, an open source incident, the newest run older than --max-age by the clock) and "
             "exit 1; exit 0 when none")
    status_command.add_argument("--max-age", type=duration, default=duration("26h"),
                                help="--check: how old the newest run may be by the clock, e.g. 26h (default), 90m, 2d")
    status_command.set_defaults(func=cmd_status)

    incidents = commands.add_parser(
        "incidents", help="source incidents (a source that broke): list the open ones (--all: every one), or close "
                          "one by hand",
        epilog="exit status: 0 = listed or closed; 1 = no open incident to close; 2 = a usage error")
    incidents.add_argument("action", choices=["list", "close"], nargs="?", default="list")
    incidents.add_argument("source", nargs="?", help="close: the source whose open incident to close")
    incidents.add_argument("--reason", help="close: why (kept as its close_reason)")
    incidents.add_argument("--all", action="store_true", help="list: closed incidents too")
    incidents.add_argument("--json", action="store_true", help="list: JSON lines")
    incidents.set_defaults(func=cmd_incidents)

    commands.add_parser("schema", help="print the warehouse schema (Markdown)").set_defaults(func=cmd_schema)
    sources = commands.add_parser("sources", help="print the source table (Markdown)")
    sources.add_argument("--test-data", action="store_true", help="the README's table: where each source's offline "
                                                                   "test data came from")
    sources.add_argument("--credentials", action="store_true", help="the credential variables each keyed source "
                                                                      "needs (docs/settings.md's table)")
    sources.set_defaults(func=cmd_sources)
    commands.add_parser("settings", help="print every GPUPRICES_* setting (Markdown)").set_defaults(func=cmd_settings)
    docs = commands.add_parser(
        "docs", help="rewrite every generated block of the docs (README counts and test data, docs/sources.md, "
                     "docs/settings.md; --warehouse: docs/schema.md and the offline counts too)",
        epilog="exit status: 0 = written (or --check: none stale); 1 = --check found a stale block; 2 = a document "
               "lost its markers, or --warehouse without a warehouse")
    docs.add_argument("--check", action="store_true", help="rewrite nothing: list the stale blocks, exit 1 if any")
    docs.add_argument("--warehouse", action="store_true",
                      help="the blocks generated from the built warehouse too (run it on the offline run's home)")
    docs.set_defaults(func=cmd_docs)

    quotes = commands.add_parser("quotes", help="broker and reseller quotes: load a CSV")
    quotes.add_argument("action", choices=["load"])
    quotes.add_argument("file", help="CSV with columns date,gpu,low,high,currency,source_note")
    quotes.add_argument("--no-build", action="store_true", help="load only; skip dbt build")
    quotes.set_defaults(func=cmd_quotes)

    imports = commands.add_parser("import", help="load price history observed elsewhere (CSV or a Keepa export); "
                                                 "list imports, undo one")
    kinds = imports.add_subparsers(dest="kind", required=True)
    prices = kinds.add_parser("prices", help="CSV: observed_at,gpu,market,price,currency[,provider,region,url,title,"
                                             "condition,per,gpu_count]; or --format keepa")
    prices.add_argument("file")
    prices.add_argument("--source", required=True, help="a name for where the prices come from, e.g. keepa-amazon")
    prices.add_argument("--format", choices=FORMATS, default="csv")
    prices.add_argument("--market", choices=list(IMPORT_MARKETS),
                        help="the whole file's market where no column gives one (keepa: default retail_new)")
    prices.add_argument("--currency", help="the whole file's currency where no column gives one (keepa: default USD)")
    prices.add_argument("--gpu", help="the whole file's GPU (a Keepa export, a one-GPU CSV without a gpu column)")
    prices.add_argument("--columns", metavar="MAP",
                        help="the file's own column names: observed_at=date,price=price_eur_lowest,gpu=gpu_type")
    prices.add_argument("--bad-rows", choices=BAD_ROWS, default="refuse",
                        help="refuse: a bad row loads nothing (default); quarantine: load the good rows, hold each "
                             "bad one back in raw.quarantine with its line and reason")
    prices.add_argument("--no-build", action="store_true", help="load only; skip dbt build")
    prices.set_defaults(func=cmd_import_prices)
    listing = kinds.add_parser("list", help="every import (price files, quotes files): its id, days, rows, and "
                                            "whether it was retracted")
    listing.add_argument("--json", action="store_true", help="print JSON lines")
    listing.set_defaults(func=cmd_import_list)
    undo = kinds.add_parser("undo", help="retract a whole import (price file or quotes file): its rows stay in raw, "
                                         "marked retracted with when and why; every model leaves them out")
    undo.add_argument("import_id", help="the import's id, as `gpuprices import list` names it")
    undo.add_argument("--reason", required=True, help="why it is taken back (kept with the retraction)")
    undo.add_argument("--no-build", action="store_true", help="retract only; skip dbt build")
    undo.set_defaults(func=cmd_import_undo)

    dash = commands.add_parser("dashboard", help="build the static dashboard site (<home>/site) or serve it locally")
    dash.add_argument("action", choices=["build", "serve"])
    dash.add_argument("--port", type=port, default=8400, help="serve: port on 127.0.0.1 (0 = any free port)")
    dash.set_defaults(func=cmd_dashboard)
