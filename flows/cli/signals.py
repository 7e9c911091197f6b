"""`gpuprices backtest`: would following the buy signal have paid, on the history the warehouse holds?"""

from __future__ import annotations

from analytics.buy_signal import SIGNAL
from analytics.price_history import backtest_report
from flows.cli.common import UsageError, json_text, read_backtest
from flows.cli.outlook import cmd_backtest_outlook


def _share(value) -> str:
    return "   n/a" if value is None else f"{value:6.1%}"


def _figures(result: dict) -> str:
    return (f"saves {_share(result['savings'])}  oracle {_share(result['oracle_savings'])}  "
            f"share {_share(result['share_of_oracle'])}")


def format_report(report: dict) -> str:
    mark = " [synthetic]"
    lines = [f"Buy within {report['window']} days of needing a card: savings vs buying at once, the oracle's "
             f"(the window's lowest price), and the share of the oracle's savings captured. Each series is one "
             f"provider's own prices or the cheapest over one constant panel of providers (never across a change)."]
    rules = [SIGNAL, *report["overall"]["baselines"], *(["outlook"] if "outlook" in report["overall"] else [])]
    for row in report["series"]:
        key = f" {row['series_key']}" if row.get("series_key", "cheapest") != "cheapest" else ""
        lines.append(f"{row['gpu_id']} {row['market']}{key} ({row['source']}, {row['first_day']} to {row['last_day']}, "
                     f"{row[SIGNAL]['days']} decision days){mark if row['is_synthetic'] else ''}")
        lines += [f"  {rule:17} {_figures(row[rule])}" for rule in rules]
    overall = {SIGNAL: report["overall"]["signal"], **report["overall"]["baselines"],
               **({"outlook": report["overall"]["outlook"]} if "outlook" in report["overall"] else {})}
    lines.append(f"overall, {len(report['series'])} series (share = mean savings / mean oracle savings)"
                 f"{mark if report['is_synthetic'] else ''}")
    lines += [f"  {rule:17} {_figures(overall[rule])}" for rule in rules]
    if report["skipped"]:
        lines.append(f"{len(report['skipped'])} series too short to backtest (need 36 days plus the window)")
    return "\n".join(lines)


def cmd_backtest(args) -> int:
    if args.outlook:  # the outlook scored walk-forward (issue 26): flows/cli/outlook.py
        return cmd_backtest_outlook(args)
    if args.window < 1:
        raise UsageError("--window must be at least 1 day")
    report, status = read_backtest(lambda connection: backtest_report(connection, args.window, args.source),
                                   args.source, "backtest")
    if report is None:
        return status
    if args.json:
        print(json_text(report, indent=2))
    else:
        print(format_report(report))
    return 0


def register(commands) -> None:
    backtest = commands.add_parser("backtest", help="the buy signal against buying at once and perfect foresight")
    backtest.add_argument("--window", type=int, default=30, help="days the buyer can wait (default 30)")
    backtest.add_argument("--source", help="only this source's prices (e.g. keepa-amazon)")
    backtest.add_argument("--json", action="store_true")
    backtest.add_argument("--outlook", action="store_true",
                          help="score the price outlook instead: Brier skill, 80%% coverage, quantile loss")
    backtest.add_argument("--horizon", type=int, default=30, help="with --outlook: days ahead (default 30)")
    backtest.set_defaults(func=cmd_backtest)
