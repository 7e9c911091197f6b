"""`gpuprices alerts add|list|remove|check|events`: price alert rules and what they fired."""

from __future__ import annotations

import sys
from datetime import date

import duckdb

from analytics.alerts.delivery import deliver
from analytics.alerts.engine import evaluate, fired_events, gpu_of, latest_price_date
from analytics.alerts.rules import (
    MARKETS,
    Rule,
    RuleError,
    add_rule,
    load_config,
    remove_rule,
    rules_path,
)


def cmd_alerts(args) -> int:
    try:
        return ACTIONS[args.action](args)
    except (RuleError, FileNotFoundError, duckdb.Error) as error:
        print(f"gpuprices alerts: {error}", file=sys.stderr)
        return 2


def list_rules(args) -> int:
    rules, _ = load_config()
    for rule in rules:
        print(f"{rule.name:24} {rule.describe()}")
    print(f"({len(rules)} rules in {rules_path()})")
    return 0


def add(args) -> int:
    if not args.name:
        raise RuleError("add needs the rule's name")
    if not args.gpu:
        raise RuleError("add needs --gpu (a canonical id or an alias)")
    condition = ("below" if args.below else "drop" if args.drop else "good_deal" if args.good_deal
                 else "new_low" if args.new_low else None)
    if condition is None:
        raise RuleError("say when: --below PRICE [--currency C], --drop PERCENT, --good-deal or --new-low")
    rule, gpu_id = add_rule(Rule(name=args.name, gpu=args.gpu, market=args.market, condition=condition,
                                 price=args.below, currency=args.currency.upper(), percent=args.drop,
                                 include_suspect=True if args.include_suspect else None,
                                 available=True if args.available else None), gpu_of)
    print(f"added {rule.name}: {rule.describe()} (GPU {gpu_id}); evaluated at the end of every daily run")
    return 0


def remove(args) -> int:
    if not args.name:
        raise RuleError("remove needs the rule's name")
    remove_rule(args.name)
    print(f"removed {args.name}")
    return 0


def check(args) -> int:
    rules, delivery = load_config(skip_invalid=True)
    day = args.date or latest_price_date()
    events = evaluate([day], rules)
    for event in events:
        print(f"ALERT {event['message']}")
    for result in deliver(events, delivery):
        print(f"  {result['delivery']}: {result['status']} after {result['attempts']} attempt(s)"
              + (f": {result['error']}" if result["error"] else ""))
    print(f"{len(events)} alert(s) fired on {day}")
    return 0


def events(args) -> int:
    for row in fired_events():
        print(f"{row['price_date']}  {row['rule_name']:24} {row['message']}")
    return 0


ACTIONS = {"list": list_rules, "add": add, "remove": remove, "check": check, "events": events}


def register(commands) -> None:
    alerts = commands.add_parser("alerts", help="price alerts: add/list/remove watch rules, check a day, list events")
    alerts.add_argument("action", choices=list(ACTIONS))
    alerts.add_argument("name", nargs="?", help="add/remove: the rule's name")
    alerts.add_argument("--gpu", help="add: a canonical GPU id or any alias (H100-80GB, RTX 4090...)")
    alerts.add_argument("--market", choices=list(MARKETS), default="on_demand")
    alerts.add_argument("--below", help="add: fire at or below this price (per GPU-hour or per card)")
    alerts.add_argument("--currency", default="USD", help="add: the --below price's currency (converted each day)")
    alerts.add_argument("--drop", help="add: fire at this percent under the trailing 7-day median")
    alerts.add_argument("--good-deal", action="store_true", help="add: fire when the backtested buy signal says buy (analytics/buy_signal.py)")
    alerts.add_argument("--new-low", action="store_true", help="add: fire on a new lowest price ever")
    alerts.add_argument("--include-suspect", action="store_true",
                        help="add: watch every provider's lowest price, suspect ones included (default: credible "
                             "prices only, marts.gpu_market_prices_daily)")
    alerts.add_argument("--available", action="store_true",
                        help="add (with --below): fire when the GPU is available at or under the price: the "
                             "cheapest offer its source said could be launched that day "
                             "(marts.gpu_cheapest_available_daily), not the cheapest listed")
    alerts.add_argument("--date", type=date.fromisoformat,
                        help="check: the day to evaluate, YYYY-MM-DD (default: the latest day in the marts)")
    alerts.set_defaults(func=cmd_alerts)
