"""Tunes the project's buy signal (analytics/buy_signal.py) on the eight bundled real retail histories and prints
the table behind its constants: `uv run python dev/tune_buy_signal.py [--window 30]` (about 15 s).

Five parameters are tuned (dip size in standard deviations, short median days, volatility days, launch days, the
smallest dip that counts); the long median stays at LONG_MEDIAN_DAYS (`--long-median-days 14,21,30,45,60`
reruns the whole procedure for each such value, about 10 s each, to show what tuning it too would give). For a set
of series, a grid point's score is the backtest's overall share of the oracle's savings; the chosen point maximises
the mean of its own score and its grid neighbours' mean score, so a plateau wins over a lucky spike.
Walk-forward, two ways:
  * leave one series out: choose on seven series, score the eighth with that choice; overall over the eight;
  * time split: every series' buyer days cut in half; choose on the first halves, score on the second halves.
The baselines have no parameters: their out-of-sample figures are their figures on the same days.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Sequence
from decimal import Decimal

from analytics import buy_signal
from analytics.buy_signal import (
    BASELINES,
    RULES,
    SIGNAL,
    SeriesBacktest,
    backtest,
    buyer_days,
    daily_series,
    dip_fires_from,
    overall,
    recent_level,
    trailing_log_volatility,
)
from warehouse.ingest.histories import KEEPA_HISTORIES, KEEPA_SOURCE
from warehouse.ingest.imports import read_prices

GRID = {"dip_sigmas": (0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5), "short_median_days": (3, 5, 7, 10, 14),
        "volatility_days": (30, 60, 90, 180), "launch_days": (0, 60, 90, 120, 180, 365),
        "min_dip": (0.0, 0.01, 0.02, 0.03, 0.05)}
POINTS = list(itertools.product(*GRID.values()))
Point = tuple[float, int, int, int, float]
Halves = dict[str, tuple[SeriesBacktest, SeriesBacktest]]  # series -> (first half, second half) of the buyer days


def bundled_retail_series() -> dict[str, list[Decimal]]:
    """The bundled real histories (read as `gpuprices import prices --format keepa` reads them), as dense daily
    prices by file name."""
    found = {}
    for path in sorted(KEEPA_HISTORIES.glob("*.json")):
        observed = read_prices(path.read_bytes(), "keepa", KEEPA_SOURCE)
        found[path.stem] = [price for _day, price in daily_series((p.observed_at, p.offer.price) for p in observed)]
    return found


def halves(length: int, window: int) -> tuple[range, range]:
    days = buyer_days(length, window)
    middle = days.start + len(days) // 2
    return range(days.start, middle), range(middle, days.stop)


def backtest_halves(prices: Sequence[Decimal], fires: list[bool], window: int) -> tuple[SeriesBacktest, ...]:
    return tuple(backtest(prices, fires, window, part) for part in halves(len(prices), window))


def grid_results(series: dict[str, list[Decimal]], window: int, long_median_days: int) -> dict[Point, Halves]:
    levels = {(name, days): recent_level(prices, days, long_median_days)
              for name, prices in series.items() for days in GRID["short_median_days"]}
    volatilities = {(name, days): trailing_log_volatility(prices, days)
                    for name, prices in series.items() for days in GRID["volatility_days"]}
    return {point: {name: backtest_halves(prices, dip_fires_from(
                prices, levels[name, point[1]], volatilities[name, point[2]], point[0], point[3], point[4]), window)
                for name, prices in series.items()}
            for point in POINTS}


def share(results: Halves, names: Sequence[str], part: str) -> float:
    pick = {"first": lambda h: h[0], "second": lambda h: h[1], "all": lambda h: h[0] + h[1]}[part]
    return overall(pick(results[name]) for name in names)["share_of_oracle"] or 0.0


def neighbours(point: Point) -> list[Point]:
    found = []
    for axis, values in enumerate(GRID.values()):
        index = values.index(point[axis])
        for step in (-1, 1):
            if 0 <= index + step < len(values):
                found.append(point[:axis] + (values[index + step],) + point[axis + 1:])
    return found


def choose(grid: dict[Point, Halves], names: Sequence[str], part: str) -> Point:
    scores = {point: share(results, names, part) for point, results in grid.items()}
    return max(POINTS, key=lambda p: (scores[p] + statistics.fmean(scores[n] for n in neighbours(p))) / 2)


def percent(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:6.1%}"


def no_days() -> SeriesBacktest:
    return SeriesBacktest(0, Decimal(0), Decimal(0), Decimal(0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=buy_signal.DEFAULT_WINDOW_DAYS)
    parser.add_argument("--long-median-days", default="", help="comma-separated values to rerun the procedure with")
    arguments = parser.parse_args()
    window = arguments.window
    started = time.monotonic()
    series = bundled_retail_series()
    names = list(series)
    grid = grid_results(series, window, buy_signal.LONG_MEDIAN_DAYS)
    baselines = {rule: {name: backtest_halves(prices, RULES[rule](prices), window) for name, prices in series.items()}
                 for rule in BASELINES}

    chosen = choose(grid, names, "all")
    constants = (buy_signal.DIP_SIGMAS, buy_signal.SHORT_MEDIAN_DAYS, buy_signal.VOLATILITY_DAYS,
                 buy_signal.LAUNCH_DAYS, buy_signal.MIN_DIP)
    print(f"window {window} days; {len(POINTS)} grid points over {', '.join(GRID)};"
          f" long median {buy_signal.LONG_MEDIAN_DAYS} days")
    print(f"chosen on all eight series: {dict(zip(GRID, chosen))}")
    print("  = the constants in analytics/buy_signal.py" if chosen == constants
          else f"  DIFFERS from the constants in analytics/buy_signal.py: {dict(zip(GRID, constants))}")
    in_sample = {SIGNAL: grid[constants] if constants in grid else {
        name: backtest_halves(prices, RULES[SIGNAL](prices), window) for name, prices in series.items()}, **baselines}

    print("\nIn sample, per series: savings vs buying at once, and share of the oracle's savings")
    print(f"{'series':32} {'days':>5} {'oracle':>7}  " + "  ".join(f"{rule:>25}" for rule in in_sample))
    for name in names:
        cells = [in_sample[rule][name][0] + in_sample[rule][name][1] for rule in in_sample]
        print(f"{name:32} {cells[0].days:5} {percent(cells[0].oracle_savings):>7}  "
              + "  ".join(f"{percent(c.savings):>11} share {percent(c.share_of_oracle):>6}" for c in cells))

    print("\nLeave one series out (the signal's parameters chosen on the other seven):")
    held_out = {}
    for name in names:
        point = choose(grid, [other for other in names if other != name], "all")
        held_out[name] = sum(grid[point][name], start=no_days())
        print(f"  {name:32} {dict(zip(GRID, point))}  share {percent(held_out[name].share_of_oracle)}")
    early_choice = choose(grid, names, "first")
    print(f"\nTime split: chosen on the first halves: {dict(zip(GRID, early_choice))}")

    print(f"\nOverall (mean savings over series / mean oracle savings), window {window}:")
    print(f"{'rule':18} {'in sample':>10} {'savings':>8} {'oracle':>8} {'leave-1-out':>12} {'2nd halves':>11}"
          f" {'any 1 series left out':>22}")
    rows = {SIGNAL: (in_sample[SIGNAL], overall(held_out.values())["share_of_oracle"],
                     share(grid[early_choice], names, "second"))}
    rows |= {rule: (baselines[rule], share(baselines[rule], names, "all"), share(baselines[rule], names, "second"))
             for rule in BASELINES}
    for rule, (results, left_out, second_halves) in rows.items():
        whole = overall(results[name][0] + results[name][1] for name in names)
        without_one = [share(results, [n for n in names if n != name], "all") for name in names]
        print(f"{rule:18} {percent(whole['share_of_oracle']):>10} {percent(whole['savings']):>8}"
              f" {percent(whole['oracle_savings']):>8} {percent(left_out):>12} {percent(second_halves):>11}"
              f" {percent(min(without_one)):>10} .. {percent(max(without_one))}")

    if arguments.long_median_days:
        print("\nThe same procedure with another long median (signal only):")
        print(f"{'long median days':>16} {'chosen':>24} {'in sample':>10} {'leave-1-out':>12} {'2nd halves':>11}")
        for long_days in [int(days) for days in arguments.long_median_days.split(",")]:
            other = grid if long_days == buy_signal.LONG_MEDIAN_DAYS else grid_results(series, window, long_days)
            point = choose(other, names, "all")
            left_out = overall(sum(other[choose(other, [n for n in names if n != name], "all")][name], start=no_days())
                               for name in names)["share_of_oracle"]
            second_halves = share(other[choose(other, names, "first")], names, "second")
            print(f"{long_days:16} {str(point):>24} {percent(share(other[point], names, 'all')):>10}"
                  f" {percent(left_out):>12} {percent(second_halves):>11}")
    print(f"\n({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
