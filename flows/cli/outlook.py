"""`gpuprices outlook`: will this GPU be cheaper within the horizon, how likely, and by how much (analytics/outlook.py);
and `gpuprices backtest --outlook`'s report (flows/cli/signals.py calls it)."""

from __future__ import annotations

import sys

import duckdb

from analytics import outlook, outlook_scoring
from analytics.alerts.engine import RuleError, resolve_rule_gpu
from analytics.price_history import outlook_series
from analytics.price_history import series as price_series
from flows.cli.common import UsageError, json_text, one_line, read_backtest
from warehouse.store import db
from warehouse.store.freshness import age_of
from warehouse.store.markets import MARKETS


def _probability(value) -> str:
    return "   n/a" if value is None else f"{value:6.1%}"


def _figure(value, digits: int = 3) -> str:
    return "   n/a" if value is None else f"{value:.{digits}f}"


def format_outlook(row: outlook.Outlook) -> str:
    unit = "" if row.market.startswith("retail_") else "/GPU-h"
    age = age_of(row.as_of)  # by the clock: an outlook made on a months-old price is for the days after that one
    stale = f" [{age.words()}: stale, for the {row.horizon_days} days after {row.as_of}]" if age.is_stale else ""
    who = "" if row.provider == outlook.ANY_PROVIDER else f" ({row.provider})"
    basis = f"\n  {row.note}" if row.basis != "model" else ""
    return (f"{row.gpu_id} {row.market}{who} on {row.as_of}{stale}: ${row.price_usd:,.2f}{unit} ({row.days_of_history} days of "
            f"history)\n  within {row.horizon_days} days: P(drop >= 5%) {_probability(row.drop_5pct)}, "
            f"P(drop >= 10%) {_probability(row.drop_10pct)}, expected lowest ${row.expected_low_usd:,.2f}\n"
            f"  price in {row.horizon_days} days: 10% ${row.p10_usd:,.2f}  50% ${row.p50_usd:,.2f}  "
            f"90% ${row.p90_usd:,.2f}{basis}")


def _check_horizon(horizon: int) -> None:
    try:
        outlook.model_for(horizon)
    except outlook.OutlookError as error:
        raise UsageError(f"--horizon: {error}") from None


def cmd_outlook(args) -> int:
    if args.market and args.market not in MARKETS:
        raise UsageError(f"unknown market {args.market!r}; markets: {', '.join(MARKETS)}")
    _check_horizon(args.horizon)
    if args.rebuild:
        with db.connect() as connection:
            found = outlook_series(connection)
            written = outlook.write_mart(connection, found, every_day=True, horizon=args.horizon)
            scored = outlook_scoring.write_scores(connection, found, horizon=args.horizon)
        print(f"{outlook.MART}: {written} rows ({args.horizon}-day horizon, every day of every series); "
              f"{outlook_scoring.SCORES_MART}: {scored} series scored")
        return 0
    try:
        with db.connect(read_only=True) as connection:
            gpu_id = None
            if args.gpu:
                try:
                    gpu_id = resolve_rule_gpu(connection, args.gpu)
                except RuleError as error:
                    raise UsageError(one_line(error)) from None
            found = outlook_series(connection, gpu_id=gpu_id, market=args.market)
    except duckdb.CatalogException as error:
        print(f"gpuprices outlook: the warehouse has no built marts yet ({one_line(error)}); run "
              "`gpuprices run --offline` or `gpuprices build` first", file=sys.stderr)
        return 2
    if not found:
        what = " ".join(part for part in (gpu_id, args.market) if part) or "any GPU"
        print(f"gpuprices outlook: no price series for {what}", file=sys.stderr)
        return 1
    long_enough = [one for one in found if outlook.has_outlook(one)]  # its last segment: outlook.segments
    if not long_enough:
        longest = max(found, key=lambda one: (len(outlook.segments(one)[-1].prices), len(one.prices)) if one.days
                      else (0, 0))
        print(f"gpuprices outlook: {outlook.too_short(longest)}", file=sys.stderr)
        return 1
    rows = [row for one in long_enough for row in outlook.outlooks(one, args.horizon)]
    if args.json:
        print(json_text([{**row.as_dict(), "is_synthetic": one.is_synthetic, "age": age_of(row.as_of).as_dict()}
                         for row, one in zip(rows, long_enough, strict=True)], indent=2))
    else:
        print("\n".join(format_outlook(row) for row in rows))
        if len(long_enough) < len(found):
            print(f"({len(found) - len(long_enough)} series with under {outlook.MIN_HISTORY_DAYS} days of history "
                  f"(since their last splice: a gap of over {outlook.MAX_GAP_DAYS} days between other sources, if any) "
                  f"have no outlook, but for list prices unchanged {outlook.FLAT_LIST_DAYS} days, which get the pooled "
                  "cut rate)")
    return 0


def _summary_line(label: str, summary: dict) -> str:
    drops = "  ".join(f"{name} brier {_figure(summary[name]['brier'])} vs {_figure(summary[name]['brier_climatology'])}"
                      f" skill {_figure(summary[name]['skill'], 2)}" for name in outlook.DROPS)
    quantile = summary["quantile_loss"]
    return (f"{label}\n  {drops}\n  80% interval coverage {_probability(summary['interval_80']['coverage'])}"
            f" (n {summary['interval_80']['n']})  quantile loss {_figure(quantile['model'], 4)} vs naive "
            f"{_figure(quantile['naive'], 4)} skill {_figure(quantile['skill'], 2)}")


def format_backtest(report: dict) -> str:
    lines = [f"The {report['horizon']}-day outlook scored walk-forward: Brier against the climatology, 80% coverage, "
             "quantile loss against the naive quantiles (per unit of today's price)."]
    lines += [_summary_line(f"{row['gpu_id']} {row['market']} ({row['source']}, {row['days']} scored days)", row)
              for row in report["series"]]
    lines += [_summary_line(f"{kind}, every series of the kind", summary)
              for kind, summary in report.get("kinds", {}).items()]
    lines.append(_summary_line(f"overall, {len(report['series'])} series", report["overall"]))
    fit = outlook.model_for(report["horizon"])
    lines.append("Out of sample on the bundled real histories (dev/tune_outlook.py; the figures above are in sample "
                 "where they score those histories, which the stored fit saw):")
    for kind, figures in fit.get("kinds", {}).items():
        shown = "the model" if figures.get("uses_model") else "the base rate"
        skill = figures.get("skill_drop_5pct")
        scored = outlook.scored_out_of_sample(fit, kind)
        said = (f"{skill:.3f}" if skill is not None else
                f"not defined (no 5% drop on {scored:,} scored days)" if scored else "untested (no real history)")
        lines.append(f"  {kind}: skill of P(drop >= 5%) {said}: shows {shown}")
    if report["skipped"]:
        lines.append(f"{len(report['skipped'])} series too short to score (need {outlook.MIN_HISTORY_DAYS} days "
                     f"plus the horizon without a splice: a gap of over {outlook.MAX_GAP_DAYS} days between other sources)")
    return "\n".join(lines)


def cmd_backtest_outlook(args) -> int:
    _check_horizon(args.horizon)
    report, status = read_backtest(
        lambda connection: outlook_scoring.backtest_report(
            price_series(connection, args.source) if args.source else outlook_series(connection), args.horizon,
            args.source),
        args.source, "score the outlook")
    if report is None:
        return status
    print(json_text(report, indent=2) if args.json else format_backtest(report))
    return 0


def register(commands) -> None:
    parser = commands.add_parser("outlook", help="the chance of a price drop within the horizon and the price range")
    parser.add_argument("gpu", nargs="?", help="a GPU (canonical id or alias); every series when left out")
    parser.add_argument("--market", help=f"one market ({', '.join(MARKETS)})")
    parser.add_argument("--horizon", type=int, default=outlook.DEFAULT_HORIZON_DAYS, help="days ahead (default 30)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rebuild", action="store_true",
                        help=f"write every day's outlook of every series into {outlook.MART}")
    parser.set_defaults(func=cmd_outlook)
