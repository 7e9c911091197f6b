"""`gpuprices explain`: a headline traced to the offers behind it and recomputed from them (warehouse/ingest/explain.py)."""

from __future__ import annotations

import argparse
import sys
from datetime import date

import duckdb

from analytics.alerts.engine import RuleError, resolve_rule_gpu
from flows.cli.common import UsageError, json_text, one_line, positive
from warehouse.store import db
from warehouse.ingest.explain import ExplainError, explain_index, explain_price, explain_training, render
from warehouse.store.markets import MARKETS

TEXT_OFFERS = 40  # offers listed in the text output without --all (the JSON lists every one)
EXIT_EPILOG = ("exit status: 0 = every figure recomputes to what the marts hold (and the cheapest offer's landed "
               "bytes hash and re-parse to it); 1 = a mismatch, said in the output; 2 = a usage error or nothing to "
               "explain")


def day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-05-01") from None


def _gpu(connection, text: str) -> str:
    try:
        return resolve_rule_gpu(connection, text)
    except RuleError as error:
        raise UsageError(one_line(error)) from None


def cmd_explain(args) -> int:
    if getattr(args, "market", None) and args.market not in MARKETS:
        raise UsageError(f"unknown market {args.market!r}; markets: {', '.join(MARKETS)}")
    listed = None if args.json or getattr(args, "all", False) else TEXT_OFFERS
    try:
        with db.connect(read_only=True) as connection:
            if args.what == "price":
                found = explain_price(connection, _gpu(connection, args.gpu), args.market, args.date,
                                      verify=not args.no_verify, listed=listed)
            elif args.what == "index":
                found = explain_index(connection, _gpu(connection, args.gpu), args.market, args.date, args.days)
            else:
                gpu = _gpu(connection, args.gpu) if args.gpu else None
                found = explain_training(connection, args.model, gpu, args.precision, args.date,
                                         verify=not args.no_verify, listed=listed)
    except duckdb.CatalogException as error:
        print(f"gpuprices explain: the warehouse has no built marts yet ({one_line(error)}); run "
              "`gpuprices run --offline` or `gpuprices build` first", file=sys.stderr)
        return 2
    except ExplainError as error:
        print(f"gpuprices explain: {error}", file=sys.stderr)
        return 2
    print(json_text(found, indent=2) if args.json else render(found))
    return 0 if found["matches"] else 1


def register(commands) -> None:
    parser = commands.add_parser(
        "explain", help="a headline (a day's cheapest price and medians, an index move, a training cost) traced to "
                        "its offers, landed documents and rules, and recomputed from them",
        epilog=EXIT_EPILOG)
    kinds = parser.add_subparsers(dest="what", required=True)

    def common(sub) -> None:
        sub.add_argument("--date", type=day, help="the day (default: the series' latest)")
        sub.add_argument("--json", action="store_true", help="one JSON object, every offer listed")

    price = kinds.add_parser("price", help="a GPU x market x day: cheapest, medians, every offer and its rule",
                             epilog=EXIT_EPILOG)
    price.add_argument("gpu", help="a GPU (canonical id or alias)")
    price.add_argument("--market", default="on_demand", help=f"one of {', '.join(MARKETS)} (default on_demand)")
    price.add_argument("--all", action="store_true", help=f"list every offer (default: the first {TEXT_OFFERS})")
    price.add_argument("--no-verify", action="store_true",
                       help="do not hash and re-parse the cheapest offer's landed document")
    common(price)

    index = kinds.add_parser("index", help="a price index move, from the matched providers' price relatives",
                             epilog=EXIT_EPILOG)
    index.add_argument("gpu", help="a GPU (canonical id or alias)")
    index.add_argument("--market", default="on_demand", help="the market (default on_demand)")
    index.add_argument("--days", type=positive(int, "a number of days"), default=7, help="the move from the first index day within this many "
                                                           "days before (default 7, the overview's week)")
    common(index)

    training = kinds.add_parser("training", help="the on-demand cost of training a reference model",
                                epilog=EXIT_EPILOG)
    training.add_argument("model", help="a reference model id (reference.reference_models)")
    training.add_argument("--gpu", help="a GPU (default: the day's cheapest for the model)")
    training.add_argument("--precision", choices=["bf16", "fp8"], help="default: the cheaper setup")
    training.add_argument("--all", action="store_true", help=f"list every offer (default: the first {TEXT_OFFERS})")
    training.add_argument("--no-verify", action="store_true",
                          help="do not hash and re-parse the cheapest offer's landed document")
    common(training)
    parser.set_defaults(func=cmd_explain)
