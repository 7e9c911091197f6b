"""Reading and feeding the warehouse: sql, status, schema, sources, quotes, dashboard."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb

from config.settings import markdown_table as settings_table
from dashboards.build import build as build_site
from dashboards.build import site_root
from dashboards.serve import serve
from flows.cli.common import json_default, one_line, print_json_line
from warehouse import db
from warehouse.build import build as dbt_build
from warehouse.docs import schema_markdown, sources_markdown, sources_test_data_markdown
from warehouse.imports import BAD_ROWS, FORMATS, ImportFileError, import_prices, parse_columns
from warehouse.markets import IMPORT_MARKETS
from warehouse.quotes import QuoteFileError, load_quotes
from warehouse.status import render, status


def cmd_sql(args) -> int:
    with db.connect(read_only=True) as connection:
        if not args.allow_files:
            # read-only means the warehouse only: no COPY TO a path, no read_text('/etc/...'), and no SET to undo it
            connection.execute("SET enable_external_access = false")
            connection.execute("SET lock_configuration = true")
        try:
            result = connection.execute(args.query)
            columns = [c[0] for c in result.description] if result.description else []
            rows = result.fetchall() if columns else []
        except duckdb.Error as error:
            print(f"gpuprices sql: {one_line(error)}", file=sys.stderr)
            return 1
    if args.json:
        for row in rows:
            print_json_line(dict(zip(columns, row, strict=True)))
        return 0
    print_table(columns, rows)
    return 0


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
    print(json.dumps(report, default=json_default, indent=2) if args.json else render(report))
    return 0


def cmd_schema(args) -> int:
    print(schema_markdown())
    return 0


def cmd_sources(args) -> int:
    print(sources_test_data_markdown() if args.test_data else sources_markdown())
    return 0


def cmd_settings(args) -> int:
    print(settings_table())
    return 0


def cmd_quotes(args) -> int:
    try:
        load_id, count, already = load_quotes(Path(args.file))
    except (QuoteFileError, FileNotFoundError) as error:
        print(f"gpuprices quotes: {error}", file=sys.stderr)
        return 2
    print(f"{args.file}: already loaded as {load_id}" if already else f"{args.file}: {count} quotes loaded ({load_id})")
    if count and not args.no_build:
        dbt_build()
    return 0


def cmd_import_prices(args) -> int:
    try:
        columns = parse_columns(args.columns) if args.columns is not None else None
        result = import_prices(Path(args.file), args.source, args.format, args.market, args.currency,
                               bad_rows=args.bad_rows, columns=columns, gpu=args.gpu)
    except (ImportFileError, FileNotFoundError, IsADirectoryError) as error:
        print(f"gpuprices import prices: {args.file}: {error}", file=sys.stderr)
        return 2
    if result.already_loaded:
        print(f"{args.file}: already imported as {result.source} ({result.file_run_id}); nothing changed")
        return 0
    print(f"{args.file}: {result.prices} rows read, {result.rows_quarantined} quarantined, {result.offers_loaded} "
          f"loaded as {result.source} (each offer's last price of a day) on {result.days} days, {result.first_day} "
          f"to {result.last_day} (real observations, marked imported)")
    if result.rows_quarantined:
        shown = "\n  ".join(result.first_reasons)
        print(f"held back in raw.quarantine (`gpuprices status`), first {len(result.first_reasons)}:\n  {shown}")
    if not args.no_build:
        dbt_build()
    return 0


def cmd_dashboard(args) -> int:
    if args.action == "build":
        pages = build_site()
        print(f"{len(pages)} pages in {site_root()}; open {site_root() / 'index.html'} or `gpuprices dashboard serve`")
        return 0
    serve(site_root(), port=args.port)
    return 0


def register(commands) -> None:
    sql = commands.add_parser("sql", help="run a read-only SQL query on the warehouse")
    sql.add_argument("query")
    sql.add_argument("--json", action="store_true", help="print JSON lines")
    sql.add_argument("--allow-files", action="store_true",
                     help="let the query read and write files (read_csv, COPY TO...); off by default")
    sql.set_defaults(func=cmd_sql)

    status_command = commands.add_parser("status", help="last run and freshness per source, quarantine, unmatched GPU names")
    status_command.add_argument("--json", action="store_true")
    status_command.set_defaults(func=cmd_status)

    commands.add_parser("schema", help="print the warehouse schema (Markdown)").set_defaults(func=cmd_schema)
    sources = commands.add_parser("sources", help="print the source table (Markdown)")
    sources.add_argument("--test-data", action="store_true", help="the README's table: where each source's offline "
                                                                   "test data came from")
    sources.set_defaults(func=cmd_sources)
    commands.add_parser("settings", help="print every GPUPRICES_* setting (Markdown)").set_defaults(func=cmd_settings)

    quotes = commands.add_parser("quotes", help="broker and reseller quotes: load a CSV")
    quotes.add_argument("action", choices=["load"])
    quotes.add_argument("file", help="CSV with columns date,gpu,low,high,currency,source_note")
    quotes.add_argument("--no-build", action="store_true", help="load only; skip dbt build")
    quotes.set_defaults(func=cmd_quotes)

    imports = commands.add_parser("import", help="load price history observed elsewhere (CSV or a Keepa export)")
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

    dash = commands.add_parser("dashboard", help="build the static dashboard site (<home>/site) or serve it locally")
    dash.add_argument("action", choices=["build", "serve"])
    dash.add_argument("--port", type=int, default=8400, help="serve: port on 127.0.0.1 (0 = any free port)")
    dash.set_defaults(func=cmd_dashboard)
