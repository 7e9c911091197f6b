"""Feeding the warehouse from files: `gpuprices import prices|list|undo` and `quotes load`."""

from __future__ import annotations

import csv
import sys
from datetime import UTC
from pathlib import Path

import duckdb

from flows.cli.common import (
    clipped,
    listed_one_line,
    one_line,
    print_json_line,
    print_table,
)
from warehouse.store.build import build as dbt_build
from warehouse.store.build import load_dbt_in_background
from warehouse.ingest.imports import (
    BAD_ROWS,
    FORMATS,
    ImportFileError,
    import_prices,
    parse_columns,
)
from warehouse.store.markets import IMPORT_MARKETS
from warehouse.ingest.quotes import QuoteFileError, load_quotes
from warehouse.ingest.retractions import RetractionError, list_imports, undo_import


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


def register(commands) -> None:
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
