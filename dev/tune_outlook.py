"""Fits and measures the price outlook (analytics/outlook.py) on the bundled real histories only, and chooses the
buy rule (issue 26): `GPUPRICES_HOME=... uv run python dev/tune_outlook.py [--write] [--horizons 30]`.

It reads the series of the three bundled real sources (keepa-amazon, idealo-de, gcp-list-history) from the warehouse
of GPUPRICES_HOME, built by `gpuprices run --offline` (which imports them), per source x GPU x market, as
`gpuprices backtest --source S` reads them, each split at its gaps of over outlook.MAX_GAP_DAYS days into segments
(outlook.segments; those with outlook.MIN_HISTORY_DAYS days are fitted and scored, each as a series of its own; the
buy rules run on the whole series, as `gpuprices backtest` does). Then, per horizon:
  * in sample: fit on every series, score every series (--write stores this fit in analytics/outlook_model.json);
  * leave one GPU out: for each source x GPU, fit on every other, score its series (all its markets: GCP's on-demand,
    spot and commitment prices of one GPU move together, so they leave together);
  * earlier half / later half: fit on the days whose outcome was known before each segment's midpoint, score the
    later half of every segment;
and prints Brier skill against the climatology, 80% coverage and quantile skill against the naive quantiles for each,
the reliability table of the 5% drop probability (leave one GPU out) and, at the 30-day horizon, the oracle shares of
every buy rule: the signal, the two baselines and the outlook rule (buy when P(drop >= 5%) < a threshold chosen on
the training part of each split).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

from analytics import buy_signal, outlook
from analytics.price_history import series as price_series
from warehouse import db

SOURCES = ("keepa-amazon", "idealo-de", "gcp-list-history")
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
RELIABILITY_BINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0001)


def load_series() -> list:
    """The bundled sources' whole series with a segment long enough for an outlook (outlook.segments)."""
    found = []
    with db.connect(read_only=True) as connection:
        for source in SOURCES:
            found += price_series(connection, source)
    return [one for one in found if any(stop - start >= outlook.MIN_HISTORY_DAYS
                                        for start, stop in outlook.segment_bounds(one))]


def segments_of(whole: list) -> tuple[list, list[tuple[int, int]]]:
    """The segments the model is fitted and scored on (never across a gap of over outlook.MAX_GAP_DAYS days), those
    with MIN_HISTORY_DAYS days, and where each begins: (its whole series' index, its first day's index there)."""
    parts, origins = [], []
    for index, one in enumerate(whole):
        for (start, stop), part in zip(outlook.segment_bounds(one), outlook.segments(one), strict=True):
            if stop - start >= outlook.MIN_HISTORY_DAYS:
                parts.append(part)
                origins.append((index, start))
    return parts, origins


def group_of(one) -> tuple[str, str]:
    return one.source, one.gpu_id


def scored(one, frame, fit, horizon) -> outlook.ScoredSeries:
    return outlook.ScoredSeries({"source": one.source, "gpu_id": one.gpu_id, "market": one.market}, one.days, frame,
                                outlook.predict_frame(frame, fit))


def percent(value) -> str:
    return "   n/a" if value is None else f"{value:6.3f}"


def line(label: str, summary: dict) -> str:
    return (f"{label:28} n {summary['drop_5pct']['n']:6}  skill5 {percent(summary['drop_5pct']['skill'])}"
            f"  skill10 {percent(summary['drop_10pct']['skill'])}  brier5 {percent(summary['drop_5pct']['brier'])}"
            f" (clim {percent(summary['drop_5pct']['brier_climatology'])})"
            f"  cover80 {percent(summary['interval_80']['coverage'])}"
            f"  qskill {percent(summary['quantile_loss']['skill'])}")


def reliability(rows: Sequence[dict]) -> list[str]:
    lines = [f"{'P(drop >= 5%)':>15} {'days':>6} {'mean forecast':>14} {'observed':>9} {'climatology':>12}"]
    for low, high in zip(RELIABILITY_BINS, RELIABILITY_BINS[1:]):
        inside = [row for row in rows if low <= row["drop_5pct"][0] < high]
        if inside:
            mean = sum(row["drop_5pct"][0] for row in inside) / len(inside)
            observed = sum(row["drop_5pct"][2] for row in inside) / len(inside)
            clim = sum(row["drop_5pct"][1] for row in inside) / len(inside)
            lines.append(f"{low:6.2f} - {min(high, 1):4.2f} {len(inside):6} {mean:14.3f} {observed:9.3f} {clim:12.3f}")
    return lines


def outlook_fires(whole: list, origins: list[tuple[int, int]], scored_parts: list, threshold: float) -> list:
    """Per whole series, the outlook rule's days to buy (P(drop >= 5%) < threshold) from its segments' outlooks."""
    fires = [[False] * len(one.prices) for one in whole]
    for (index, start), part in zip(origins, scored_parts, strict=True):
        for row in part.predictions:
            fires[index][start + row["t"]] = row["drop_5pct"] < threshold
    return fires


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizons", default="30", help="comma-separated horizons to fit (days)")
    parser.add_argument("--write", action="store_true", help="store the in-sample fits in analytics/outlook_model.json")
    arguments = parser.parse_args()
    started = time.monotonic()
    whole = load_series()
    every, origins = segments_of(whole)
    groups = sorted({group_of(one) for one in every})
    print(f"{len(whole)} series, {len(every)} segments (split at gaps of over {outlook.MAX_GAP_DAYS} days) with "
          f"{outlook.MIN_HISTORY_DAYS}+ days in {len(groups)} source x GPU groups: "
          + ", ".join(f"{s} {sum(1 for o in every if o.source == s)}" for s in SOURCES))
    model = {"horizons": {}}
    for horizon in [int(h) for h in arguments.horizons.split(",")]:
        frames = [outlook.feature_frame(one.prices, horizon, outlook.is_rental(one.market)) for one in every]
        full = outlook.fit_model(frames)
        model["horizons"][str(horizon)] = full
        in_sample = outlook.score([scored(o, f, full, horizon) for o, f in zip(every, frames)], horizon)
        print(f"\nhorizon {horizon} days ({full['days']} training days)")
        print(line("in sample", in_sample["overall"]))
        # leave one source x GPU out
        held = {}
        for group in groups:
            fit = outlook.fit_model([f for o, f in zip(every, frames) if group_of(o) != group])
            for index, (one, frame) in enumerate(zip(every, frames)):
                if group_of(one) == group:
                    held[index] = scored(one, frame, fit, horizon)
        held_list = [held[i] for i in range(len(every))]
        loo_rows = outlook.score_rows(held_list, horizon)
        print(line("leave one GPU out", outlook.summarize(loo_rows)))
        for source in SOURCES:
            print(line(f"  {source}", outlook.summarize(
                [r for r in loo_rows if every[r["series"]].source == source])))
        # earlier half / later half
        middles = [outlook.MIN_HISTORY_DAYS - 1 + (len(o.prices) - horizon - outlook.MIN_HISTORY_DAYS + 1) // 2
                   for o in every]
        early = outlook.fit_model([f.filter(f["t"] + horizon < middle) for f, middle in zip(frames, middles)])
        early_all = [scored(o, f, early, horizon) for o, f in zip(every, frames)]
        late_scored = [scored(o, f, early, horizon) for o, f in zip(every, frames)]
        for one, middle in zip(late_scored, middles):
            one.predictions = [row for row in one.predictions if row["t"] >= middle]
        late_rows = outlook.score_rows(late_scored, horizon)
        print(line("later half (fit on earlier)", outlook.summarize(late_rows)))
        for source in SOURCES:
            print(line(f"  {source}", outlook.summarize(
                [r for r in late_rows if every[r["series"]].source == source])))
        print("\nReliability of P(drop >= 5%), leave one GPU out:")
        print("\n".join(reliability(loo_rows)))
        if horizon == buy_signal.DEFAULT_WINDOW_DAYS:
            buy_rules(whole, origins, held_list, early_all,
                      [scored(o, f, full, horizon) for o, f in zip(every, frames)], horizon)
    if arguments.write:
        outlook.MODEL_PATH.write_text(json.dumps(model, indent=1) + "\n")
        print(f"\nwrote {outlook.MODEL_PATH}")
    print(f"\n({time.monotonic() - started:.0f} s)")


def buy_rules(every, origins, held, early, full, window) -> None:
    """Oracle shares of every buy rule: in sample, leave one GPU out, later halves (keepa-amazon and all), on the
    whole series as `gpuprices backtest` runs them; the outlook rule's fires from the segments' outlooks."""
    def backtests(fires_of, part=None):
        found = []
        for index, one in enumerate(every):
            days = None
            if part is not None:
                first, second = halves(len(one.prices), window)
                days = second
            found.append(buy_signal.backtest(one.prices, fires_of(index, one), window, days))
        return found

    def halves(length, window):
        days = buy_signal.buyer_days(length, window)
        middle = days.start + len(days) // 2
        return range(days.start, middle), range(middle, days.stop)

    def share(results, indexes):
        return buy_signal.overall(results[i] for i in indexes)["share_of_oracle"]

    subsets = {"keepa-amazon": [i for i, o in enumerate(every) if o.source == "keepa-amazon"],
               "all bundled": list(range(len(every)))}
    rules = {name: [rule(one.prices) for one in every] for name, rule in buy_signal.RULES.items()}
    print(f"\nBuy rules, window {window}: share of the oracle's savings (mean savings / mean oracle savings)")
    print(f"{'rule':26} " + "  ".join(f"{label + ' ' + name:>26}" for name in subsets
                                      for label in ("in sample", "leave-1-out", "later half")))
    for name, fires in rules.items():
        whole = backtests(lambda i, o: fires[i])
        late_results = backtests(lambda i, o: fires[i], part="late")
        cells = []
        for indexes in subsets.values():
            cells += [share(whole, indexes), share(whole, indexes), share(late_results, indexes)]
        print(f"{name:26} " + "  ".join(f"{percent(c):>26}" for c in cells))
    full_fires = {th: outlook_fires(every, origins, full, th) for th in THRESHOLDS}
    held_fires = {th: outlook_fires(every, origins, held, th) for th in THRESHOLDS}
    early_fires = {th: outlook_fires(every, origins, early, th) for th in THRESHOLDS}
    for subset, indexes in subsets.items():
        in_sample = {th: share(backtests(lambda i, o: full_fires[th][i]), indexes) for th in THRESHOLDS}
        chosen = max(THRESHOLDS, key=lambda th: in_sample[th] or -1)
        # leave one out: threshold chosen on the other groups' LOO predictions, applied to the held-out group
        loo_results = [None] * len(every)
        for group in sorted({group_of(every[i]) for i in indexes}):
            others = [i for i in indexes if group_of(every[i]) != group]
            scores = {th: share(backtests(lambda i, o: held_fires[th][i]), others) for th in THRESHOLDS}
            th = max(THRESHOLDS, key=lambda t: scores[t] or -1)
            for i in indexes:
                if group_of(every[i]) == group:
                    loo_results[i] = buy_signal.backtest(every[i].prices, held_fires[th][i], window)
        early_scores = {}
        for th in THRESHOLDS:
            results = []
            for i in indexes:
                first, _ = halves(len(every[i].prices), window)
                results.append(buy_signal.backtest(every[i].prices, early_fires[th][i], window, first))
            early_scores[th] = buy_signal.overall(results)["share_of_oracle"]
        late_th = max(THRESHOLDS, key=lambda t: early_scores[t] or -1)
        late_results = backtests(lambda i, o: early_fires[late_th][i], part="late")
        print(f"outlook ({subset}): threshold in sample {chosen} -> {percent(in_sample[chosen])};"
              f" leave-1-out {percent(buy_signal.overall(loo_results[i] for i in indexes)['share_of_oracle'])};"
              f" later half (threshold {late_th}) {percent(share(late_results, indexes))};"
              f" in-sample by threshold {', '.join(f'{t}: {percent(v)}' for t, v in in_sample.items())}")


if __name__ == "__main__":
    main()
