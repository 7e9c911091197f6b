"""Scoring the price outlook out of sample (`gpuprices backtest --outlook`, dev/tune_outlook.py, the pages' per-series
figures in marts.gpu_price_outlook_scores): walk-forward, each day's outlook from its segment's past only, against
the baselines (analytics/outlook.py's module docstring: the climatology and the naive quantiles). Brier scores and
skills, 80% interval coverage, quantile (pinball) loss."""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import polars as pl

from analytics import outlook_features
from analytics.outlook import (
    MIN_HISTORY_DAYS,
    has_outlook,
    model_for,
    predict_frame,
    provider_of,
    segment_bounds,
    segment_frame,
    segments,
)
from analytics.outlook_features import DEFAULT_HORIZON_DAYS, DROPS, QUANTILES, quantile_of

CLIMATOLOGY_MIN_WINDOWS = 30  # own climatology / naive changes from this many completed windows on, else pooled
from warehouse.store import schema


def brier(probabilities: Sequence[float], outcomes: Sequence[bool]) -> float:
    return math.fsum((p - float(o)) ** 2 for p, o in zip(probabilities, outcomes, strict=True)) / len(outcomes)


def skill(score: float, reference: float) -> float | None:
    """1 - score / reference: 1 perfect, 0 no better than the reference, negative worse (None: reference 0)."""
    return 1 - score / reference if reference > 0 else None


def coverage(lows: Sequence[float], highs: Sequence[float], actual: Sequence[float]) -> float:
    """The share of days whose actual value fell inside [low, high] (ends included, to a relative 1e-9)."""
    inside = [low * (1 - 1e-9) <= value <= high * (1 + 1e-9) for low, high, value in zip(lows, highs, actual,
                                                                                         strict=True)]
    return sum(inside) / len(inside)


def pinball(q: float, predicted: float, actual: float) -> float:
    """The quantile (pinball) loss of one prediction of the q-quantile."""
    return (q - (actual < predicted)) * (actual - predicted)


@dataclass
class ScoredSeries:
    """One series' feature frame and outlook, with what the backtest needs to know about it."""
    key: dict  # source, gpu_id, market
    days: list[date]
    frame: pl.DataFrame
    predictions: list[dict]  # predict_frame rows


def _pooled_by_date(scored: Sequence[ScoredSeries], horizon: int):
    """Every completed window of every series as (end date, drop_5pct, drop_10pct, log change), by end date."""
    windows = []
    for one in scored:
        for row in one.frame.select("t", "low_ratio", "end_ratio").iter_rows():
            t, low, end = row
            if end is not None:
                windows.append((one.days[t + horizon], *(low <= 1 - level for level in DROPS.values()),
                                math.log(end)))
    windows.sort(key=lambda window: window[0])
    return windows


def score_rows(scored: Sequence[ScoredSeries], horizon: int) -> list[dict]:
    """Per scored day (an outlook, a known outcome and a baseline): the predictions, the baselines and the outcome,
    as ratios to the day's price. The baselines use windows that ended by the day only."""
    windows = _pooled_by_date(scored, horizon)
    days = []
    for index, one in enumerate(scored):
        by_t = {row["t"]: row for row in one.frame.iter_rows(named=True)}
        for prediction in one.predictions:
            row = by_t[prediction["t"]]
            if row["end_ratio"] is not None:
                days.append((one.days[row["t"]], index, row, prediction))
    days.sort(key=lambda day: day[0])
    pooled_counts, pooled_changes, next_window, found = [0] * len(DROPS), [], 0, []
    for day, index, row, prediction in days:
        while next_window < len(windows) and windows[next_window][0] <= day:
            window = windows[next_window]
            pooled_counts = [count + window[1 + i] for i, count in enumerate(pooled_counts)]
            bisect.insort(pooled_changes, window[-1])
            next_window += 1
        own = row["past_windows"]
        if own >= CLIMATOLOGY_MIN_WINDOWS or (own and len(pooled_changes) < CLIMATOLOGY_MIN_WINDOWS):
            climatology = [row[f"past_{name}"] / own for name in DROPS]
            naive = [math.exp(row[f"naive_{name}"]) for name in QUANTILES]
        elif pooled_changes:
            climatology = [count / len(pooled_changes) for count in pooled_counts]
            naive = [math.exp(quantile_of(pooled_changes, q)) for q in QUANTILES.values()]
        else:
            continue
        found.append({"series": index, "date": day, "t": row["t"],
                      **{name: (prediction[name], climatology[i], row["low_ratio"] <= 1 - level)
                         for i, (name, level) in enumerate(DROPS.items())},
                      "quantiles": [prediction[name] for name in QUANTILES], "naive": naive,
                      "end_ratio": row["end_ratio"], "expected_low": prediction["expected_low"],
                      "low_ratio": row["low_ratio"]})
    return found


def summarize(rows: Sequence[dict]) -> dict:
    """The figures of `gpuprices backtest --outlook` over the given scored days (score_rows)."""
    if not rows:
        return {**{name: {"brier": None, "brier_climatology": None, "skill": None, "n": 0} for name in DROPS},
                "interval_80": {"coverage": None, "n": 0},
                "quantile_loss": {"model": None, "naive": None, "skill": None}}
    found = {}
    for name in DROPS:
        outcomes = [row[name][2] for row in rows]
        model, reference = brier([row[name][0] for row in rows], outcomes), brier([row[name][1] for row in rows],
                                                                                   outcomes)
        found[name] = {"brier": model, "brier_climatology": reference, "skill": skill(model, reference),
                       "n": len(rows)}
    found["interval_80"] = {"coverage": coverage([row["quantiles"][0] for row in rows],
                                                 [row["quantiles"][2] for row in rows],
                                                 [row["end_ratio"] for row in rows]), "n": len(rows)}
    levels = list(QUANTILES.values())
    model = math.fsum(pinball(q, row["quantiles"][i], row["end_ratio"]) for row in rows
                      for i, q in enumerate(levels)) / (len(rows) * len(levels))
    naive = math.fsum(pinball(q, row["naive"][i], row["end_ratio"]) for row in rows
                      for i, q in enumerate(levels)) / (len(rows) * len(levels))
    found["quantile_loss"] = {"model": model, "naive": naive, "skill": skill(model, naive)}
    return found


def score(scored: Sequence[ScoredSeries], horizon: int) -> dict:
    """{"overall": summarize(every scored day), "series": [{key..., "days": n, ...summarize(its days)}]}."""
    rows = score_rows(scored, horizon)
    by_series = [[row for row in rows if row["series"] == index] for index in range(len(scored))]
    return {"overall": summarize(rows),
            "series": [{**one.key, "days": len(mine), **summarize(mine)} for one, mine in zip(scored, by_series,
                                                                                              strict=True)]}


# ---- the warehouse: gpuprices outlook, backtest --outlook, the mart, the pages ------------------------------------

def _scored_series(found_series: list, horizon: int, fit: Mapping, source: str | None = None):
    """The segments long enough to score (MIN_HISTORY_DAYS + horizon days), each with its feature frame and every
    day's outlook and the index of its series in found_series, and the series with none as skipped rows (their
    longest segment's days): ([(series index, ScoredSeries)], [{"gpu_id", "market", "days"}])."""
    scored, skipped = [], []
    for index, found in enumerate(found_series):
        parts = segments(found)
        long_enough = [part for part in parts if len(part.prices) >= MIN_HISTORY_DAYS + horizon]
        if not long_enough:
            skipped.append({"gpu_id": found.gpu_id, "market": found.market,
                            "days": max((len(part.prices) for part in parts), default=0)})
            continue
        for part in long_enough:
            frame = segment_frame(part, 0, len(part.prices), horizon)
            scored.append((index, ScoredSeries({"source": source or ",".join(found.sources), "gpu_id": found.gpu_id,
                                                "market": found.market, "provider": provider_of(found)},
                                               part.days, frame, predict_frame(frame, fit, None, horizon))))
    return scored, skipped


def _rows_by_series(scored: list, horizon: int) -> dict[int, list[dict]]:
    """Every scored day of the segments (score_rows: scored together, the pooled baselines from every segment's
    windows), by the index of the segment's series."""
    found: dict[int, list[dict]] = {index: [] for index, _ in scored}
    for row in score_rows([one for _, one in scored], horizon):
        found[scored[row["series"]][0]].append(row)
    return found


def backtest_report(found_series: list, horizon: int = DEFAULT_HORIZON_DAYS, source: str | None = None,
                    model: Mapping | None = None) -> dict:
    """`gpuprices backtest --outlook --json`: every series with an outlook and a known outcome on at least one day
    (a segment of MIN_HISTORY_DAYS + horizon days), scored walk-forward, each segment on its own: {"overall": {...},
    "series": [{"source", "gpu_id", "market", "days", "segments" (its segments scored), ...}], "horizon": h,
    "skipped": [...]}. The model's coefficients are the stored fit (on the bundled histories: in sample there).
    found_series: the warehouse's series (analytics.price_history.series), which reads the warehouse."""
    scored, skipped = _scored_series(found_series, horizon, model_for(horizon, model), source)
    by_series = _rows_by_series(scored, horizon)
    rows = [row for mine in by_series.values() for row in mine]
    keys = {index: one.key for index, one in scored}
    kinds = {kind: summarize(mine) for kind in outlook_features.KINDS
             if (mine := [row for index, found in by_series.items() for row in found
                          if outlook_features.kind_of(keys[index]["market"]) == kind])}
    return {"overall": summarize(rows), "kinds": kinds,
            "series": [{**keys[index], "days": len(mine), "segments": sum(1 for i, _ in scored if i == index),
                        **summarize(mine)} for index, mine in by_series.items()],
            "horizon": horizon, "skipped": skipped}


def series_scores(found_series: list, horizon: int = DEFAULT_HORIZON_DAYS, model: Mapping | None = None) -> list[dict]:
    """For the pages (issue 26, part 5; stored by write_scores): per GPU x market series with an outlook on its last
    day (has_outlook: its last segment has MIN_HISTORY_DAYS days), its own backtested figures over every segment, the
    same as its row of `gpuprices backtest --outlook` (every series scored together: a segment's early days, with
    under CLIMATOLOGY_MIN_WINDOWS windows of its own, are compared with the pooled baselines): {"gpu_id", "market",
    "horizon_days", "as_of" (its last day), "days_of_history" (its last segment's days), "scored_days" (days with an
    outlook, a known outcome and a baseline; 0: none yet), "first_scored_date", "last_scored_date", "is_synthetic",
    ...summarize(its days)}."""
    scored, _skipped = _scored_series(found_series, horizon, model_for(horizon, model))
    by_series = _rows_by_series(scored, horizon)
    found_scores = []
    for index, found in enumerate(found_series):
        if not has_outlook(found):
            continue
        mine = by_series.get(index, [])
        start, stop = segment_bounds(found)[-1]
        found_scores.append({"gpu_id": found.gpu_id, "market": found.market, "provider": provider_of(found),
                             "horizon_days": horizon,
                             "as_of": found.days[stop - 1], "days_of_history": stop - start,
                             "scored_days": len(mine),
                             "first_scored_date": min((row["date"] for row in mine), default=None),
                             "last_scored_date": max((row["date"] for row in mine), default=None),
                             "is_synthetic": found.is_synthetic, **summarize(mine)})
    return found_scores


# Each series' own backtested figures, written beside the outlook by the same stage (flows/series_marts.py);
# dbt shows it as the view marts.gpu_price_outlook_scores (models/models/marts/gpu_price_outlook_scores.yml): the pages
# read the figures there, they do not score the model themselves.
SCORES_TABLE = "meta.gpu_price_outlook_scores"
SCORES_MART = "marts.gpu_price_outlook_scores"
SCORE_COLUMNS = {
    "gpu_id": pl.String, "market": pl.String, "provider": pl.String, "horizon_days": pl.Int32, "as_of": pl.Date,
    "days_of_history": pl.Int32, "scored_days": pl.Int32, "first_scored_date": pl.Date, "last_scored_date": pl.Date,
    "drop_5pct_brier": pl.Float64, "drop_5pct_brier_climatology": pl.Float64, "drop_5pct_skill": pl.Float64,
    "drop_10pct_brier": pl.Float64, "drop_10pct_brier_climatology": pl.Float64, "drop_10pct_skill": pl.Float64,
    "interval_80_coverage": pl.Float64, "quantile_loss": pl.Float64, "quantile_loss_naive": pl.Float64,
    "quantile_skill": pl.Float64, "is_synthetic": pl.Boolean,
}



def write_scores(connection, found_series: list, horizon: int = DEFAULT_HORIZON_DAYS) -> int:
    """marts.gpu_price_outlook_scores: every series with an outlook and its own backtested figures (series_scores)
    on the warehouse as it is now; the horizon's rows are replaced whole (a series gone is gone). Returns the rows
    written."""
    schema.create_series_tables(connection)
    rows = []
    for one in series_scores(found_series, horizon):
        rows.append({**{name: one[name] for name in ("gpu_id", "market", "provider", "horizon_days", "as_of",
                                                     "days_of_history",
                                                     "scored_days", "first_scored_date", "last_scored_date")},
                     **{f"{name}_{figure}": one[name][figure] for name in DROPS
                        for figure in ("brier", "brier_climatology", "skill")},
                     "interval_80_coverage": one["interval_80"]["coverage"],
                     "quantile_loss": one["quantile_loss"]["model"],
                     "quantile_loss_naive": one["quantile_loss"]["naive"],
                     "quantile_skill": one["quantile_loss"]["skill"], "is_synthetic": one["is_synthetic"]})
    new_rows = pl.DataFrame(rows, schema=SCORE_COLUMNS).to_arrow()  # noqa: F841 (read by the SQL below)
    connection.execute(f"DELETE FROM {SCORES_TABLE} WHERE horizon_days = ?", [horizon])
    connection.execute(f"INSERT INTO {SCORES_TABLE} SELECT {', '.join(SCORE_COLUMNS)} FROM new_rows")
    return len(rows)
