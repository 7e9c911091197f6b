"""The price outlook (issue 26): will this GPU be cheaper within the horizon, how likely, and by how much?

For one GPU x market series on day t, from its prices up to t only (a dense daily series, analytics/price_history.py):
  * drop_5pct, drop_10pct: the probability that the lowest price in (t, t + h] is at least 5% (10%) under today's;
  * p10, p50, p90: the 10th, 50th and 90th percentile of the price on day t + h;
  * expected_low: the expected lowest price in (t, t + h].

The model is pooled: one set of coefficients for every series, fitted by dev/tune_outlook.py on the bundled real
histories (8 Amazon/Keepa series, idealo.de, GCP list prices) and stored in analytics/outlook_model.json, one fit per
horizon. Each day is described by a few numbers computed from the series' own past (FEATURES): how far today's price
is from its trailing 7-, 30- and 90-day medians and from the 90-day low and high, how much and how often the price
moved in the last 90 days, the trend of the monthly median, the series' age, whether it is a rental, and how often
the series itself dropped that much within h days before (its own climatology, shrunk to the pooled rate while it
has few such windows). A logistic regression turns them into each drop probability; linear quantile regressions of
the log change to t + h give the percentiles; a least-squares fit of the window's low against today's price gives
the expected low. A series needs MIN_HISTORY_DAYS days of history for an outlook.

A series is split into segments at every gap of more than MAX_GAP_DAYS days between two observed days of other
sources (`segments`: the warehouse's dense series carries the last price across a gap, and what follows a long gap
from other sources is other sellers or providers altogether, a splice; within one source a gap is an unchanged
price, as in Keepa's change-only histories): each segment is a series of its own. Its features, its outcomes
(the window (t, t + h] ends within the segment) and its scores never reach across a gap, and it needs
MIN_HISTORY_DAYS days of its own for an outlook.

The baselines the backtest scores it against (`score`): the climatology (the frequency of such drops in windows that
ended by t: the series' own when it has CLIMATOLOGY_MIN_WINDOWS of them, else pooled over the scored series) and the
naive quantiles (the past h-day log changes' quantiles, own or pooled the same way, applied to today's price).
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

import polars as pl

from analytics import outlook_features, outlook_fit
from warehouse.store import schema

DEFAULT_HORIZON_DAYS = 30
MIN_HISTORY_DAYS = 60  # a series has an outlook from its 60th day on (index 59): the features need two months
CLIMATOLOGY_MIN_WINDOWS = 30  # own climatology / naive changes from this many completed windows on, else pooled
# A longer stretch between two observed days of other sources splits a series (`segments`). Over 7: GCP's list prices are weekly (a
# revision every 7 days, 14 when one week is missing) and stay one series; not much more: a gap of d days holds one
# price over d - 1 days, at 14 under half of a 30-day median and of a 30-day outcome window, at 31 all of them. The
# same 14 days break the pages' price lines (dashboards/gpu_charts.GAP_DAYS).
MAX_GAP_DAYS = 14
DROPS = outlook_fit.DROPS
MIN_SKILL = 0.02  # a kind of market whose out-of-sample Brier skill is under this shows its base rate (uses_model)
FLAT_LIST_DAYS = 30  # a list price unchanged this long gets the pooled cut rate of such list prices
ANY_PROVIDER = "any"  # the provider column of the market's cheapest series (every provider's lowest price)
QUANTILES = {"p10": 0.1, "p50": 0.5, "p90": 0.9}
MODEL_PATH = Path(__file__).with_name("outlook_model.json")
FEATURES = outlook_fit.FEATURES
VOLATILITY_FLOOR = 0.002  # log of (floor + daily volatility): a price that never moves is not -inf


class OutlookError(ValueError):
    """No outlook for this series (too little history, an unknown horizon): the message says which, in one line."""


def feature_frame(prices: Sequence, horizon: int = DEFAULT_HORIZON_DAYS, market: str = "retail_new",
                  days: Sequence[date] | None = None, context: Mapping | None = None,
                  panel_medians: Sequence[float | None] | None = None) -> pl.DataFrame:
    """One row per day t of a dense daily series: the features (from prices[:t + 1] and what was known on day t
    only: outlook_features.with_context), the own past windows' drop counts and h-day changes known by t (for the
    model and the baselines), and the outcomes (null when t + h is past the series' end): low_ratio = min(prices in
    (t, t + h]) / price, end_ratio = price(t + h) / price. Without `days`, the GPU's age and its successor's are
    unknown (0)."""
    values = [float(price) for price in prices]
    if any(value <= 0 for value in values):
        raise OutlookError("prices must be positive")
    n = len(values)
    frame = pl.DataFrame({"t": pl.Series(range(n), dtype=pl.Int64), "price": values})
    log_price = pl.col("price").log()
    change = log_price.diff()
    median = {days_: pl.col("price").rolling_median(days_, min_samples=1) for days_ in (7, 30, 90)}
    frame = frame.with_columns(
        from_median_7d=log_price - median[7].log(),
        from_median_30d=log_price - median[30].log(),
        from_median_90d=log_price - median[90].log(),
        above_low_90d=log_price - pl.col("price").rolling_min(90, min_samples=1).log(),
        under_high_90d=pl.col("price").rolling_max(90, min_samples=1).log() - log_price,
        log_volatility_90d=(change.rolling_std(90, min_samples=2).fill_null(0) + VOLATILITY_FLOOR).log(),
        change_share_90d=(change.abs() > 1e-9).cast(pl.Float64).rolling_mean(90, min_samples=1).fill_null(0),
        trend_30d=(median[30].log() - median[30].log().shift(30)).fill_null(0),
        log_age=(pl.col("t") + 1).cast(pl.Float64).log(),
        low_ratio=pl.col("price").reverse().rolling_min(horizon).reverse().shift(-1) / pl.col("price"),
        end_ratio=pl.col("price").shift(-horizon) / pl.col("price"),
        past_windows=pl.max_horizontal(pl.col("t") - horizon + 1, pl.lit(0)),
    )
    frame = frame.with_columns(
        [(pl.col("low_ratio") <= 1 - level).cast(pl.Int64).fill_null(0).cum_sum().shift(horizon).fill_null(0)
         .alias(f"past_{name}") for name, level in DROPS.items()])
    frame = frame.with_columns([pl.Series(f"naive_{name}", column, dtype=pl.Float64) for name, column
                                in zip(QUANTILES, _expanding_quantiles(values, horizon), strict=True)])
    dated = list(days) if days is not None else [date(1970, 1, 1)] * n
    return outlook_features.with_context(frame, dated, context if days is not None else None, panel_medians, market)


def _expanding_quantiles(values: list[float], horizon: int) -> list[list[float | None]]:
    """Per day t, the QUANTILES of the log changes log(p[s + h] / p[s]) of the windows that ended by t (s + h <= t),
    None before the first: one list per quantile."""
    known, found = [], [[] for _ in QUANTILES]
    for t in range(len(values)):
        if t >= horizon:
            bisect.insort(known, math.log(values[t] / values[t - horizon]))
        for column, q in zip(found, QUANTILES.values(), strict=True):
            column.append(quantile_of(known, q) if known else None)
    return found


def quantile_of(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


@cache
def load_model(path: Path = MODEL_PATH) -> dict:
    return json.loads(path.read_text())


def model_for(horizon: int, model: Mapping | None = None) -> Mapping:
    fitted = (model or load_model())["horizons"]
    if str(horizon) not in fitted:
        raise OutlookError(f"no outlook model for a {horizon}-day horizon (fitted: {', '.join(sorted(fitted, key=int))}"
                           " days)")
    return fitted[str(horizon)]


def uses_model(fit: Mapping, kind: str) -> bool:
    """Whether the model's drop chances are shown for this kind of market: its out-of-sample Brier skill against
    the base rate (the worse of leave-one-series-out and the later period) is at least MIN_SKILL. A kind never
    scored out of sample (no real history of it) gets the base rate."""
    return bool(fit.get("kinds", {}).get(kind, {}).get("uses_model", False))


def scored_out_of_sample(fit: Mapping, kind: str) -> int:
    """How many days of this kind of market were scored out of sample (leave one series out) for the stored fit."""
    return ((fit.get("kinds", {}).get(kind, {}).get("leave_one_out") or {}).get("drop_5pct") or {}).get("n", 0)


def base_rate_note(fit: Mapping, kind: str) -> str:
    figure = fit.get("kinds", {}).get(kind, {}).get("skill_drop_5pct")
    words = outlook_features.KIND_WORDS[kind]
    if figure is not None:
        return (f"base rate: out of sample the model does no better on {words} (Brier skill {figure:.3f} < "
                f"{MIN_SKILL}), so the chance shown is this series' own rate of such drops")
    scored = scored_out_of_sample(fit, kind)
    if scored:
        return (f"base rate: out of sample the base rate was never wrong on {words} (no 5% drop within the horizon "
                f"on {scored:,} scored days), so no model can beat it; the chance shown is this series' own rate")
    return (f"base rate: the model is untested out of sample on {words} (no real history of them), so the chance "
            "shown is this series' own rate of such drops")


def model_note(fit: Mapping, kind: str) -> str:
    figure = fit.get("kinds", {}).get(kind, {}).get("skill_drop_5pct")
    return ("" if figure is None else f"model: out-of-sample Brier skill {figure:.3f} against the base rate on "
            f"{outlook_features.KIND_WORDS[kind]}")


def flat_list_note(fit: Mapping, unchanged: int, horizon: int) -> str:
    flat = fit["flat_list"]
    return (f"no change seen in {unchanged} days; P(cut within {horizon} days) {flat['any_cut']:.1%} from how often "
            f"list prices unchanged for {FLAT_LIST_DAYS}+ days were cut (pooled over {flat['series']} provider x GPU "
            f"list-price series, {flat['windows']:,} windows)")


def predict_frame(frame: pl.DataFrame, fit: Mapping, days: Iterable[int] | None = None,
                  horizon: int = DEFAULT_HORIZON_DAYS) -> list[dict]:
    """The outlook (as ratios to the day's price) of every day with MIN_HISTORY_DAYS of history, or of `days`: the
    model's where it beats its base rate out of sample (uses_model), else the base rate (basis "base_rate"); a
    list price unchanged for FLAT_LIST_DAYS days or more gets the pooled rate at which such list prices were cut
    (basis "list_cut_rate"). Each row has "basis", "note" and "days_unchanged"."""
    wanted = frame.filter(pl.col("t") >= MIN_HISTORY_DAYS - 1)
    if days is not None:
        wanted = wanted.filter(pl.col("t").is_in(list(days)))
    if wanted.is_empty():
        return []
    predicted = outlook_fit.predict(fit, wanted, horizon)
    kinds = outlook_fit.kind_of_rows(wanted)
    unchanged = [round(math.expm1(value)) for value in wanted["log_days_unchanged"]]
    rows = []
    for index, t in enumerate(wanted["t"]):
        kind = str(kinds[index])
        row = {"t": t, "kind": kind, "days_unchanged": unchanged[index], "basis": "model", "note": model_note(fit, kind),
               **{name: float(values[index]) for name, values in predicted.items()}}
        if kind == "rental_list" and unchanged[index] >= FLAT_LIST_DAYS and "flat_list" in fit:
            row |= {name: fit["flat_list"][name] for name in DROPS}
            row |= {"basis": "list_cut_rate", "note": flat_list_note(fit, unchanged[index], horizon)}
        elif not uses_model(fit, kind):
            pooled = fit.get("pooled_rate_by_kind", {}).get(kind, fit["pooled_rate"])
            one = wanted[index]
            row |= {name: float(outlook_fit.own_rate(one, name, pooled[name])[0]) for name in DROPS}
            row |= {"basis": "base_rate", "note": base_rate_note(fit, kind)}
        row["drop_10pct"] = min(row["drop_10pct"], row["drop_5pct"])
        rows.append(row)
    return rows


@dataclass
class Outlook:
    gpu_id: str
    market: str
    as_of: date
    horizon_days: int
    price_usd: float
    drop_5pct: float
    drop_10pct: float
    p10_usd: float
    p50_usd: float
    p90_usd: float
    expected_low_usd: float
    days_of_history: int
    provider: str = ANY_PROVIDER  # a provider's own series, or ANY_PROVIDER: the market's cheapest
    kind: str = "retail_new"  # outlook_features.KINDS
    basis: str = "model"  # model | base_rate | list_cut_rate (predict_frame)
    note: str = ""  # what a basis other than the model means, in words
    days_unchanged: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def provider_of(found) -> str:
    return getattr(found, "provider", None) or ANY_PROVIDER


def segment_frame(found, start: int, stop: int, horizon: int) -> pl.DataFrame:
    """The feature frame of the days [start, stop) of a price_history.PriceSeries, with its GPU's context and its
    provider's panel medians where the series carries them."""
    medians = getattr(found, "panel_medians", None)
    return feature_frame(found.prices[start:stop], horizon, found.market, found.days[start:stop],
                         getattr(found, "context", None), None if medians is None else medians[start:stop])


def is_rental(market: str) -> bool:
    return not market.startswith("retail_")


def segment_bounds(found) -> list[tuple[int, int]]:
    """The segments of a price_history.PriceSeries as index ranges [start, stop) of its days: a new segment starts at
    an observed day more than MAX_GAP_DAYS days after the observed day before it whose sources differ (a splice: a
    history that ended, and other sellers or providers after it). A long gap within one source's observations is an
    unchanged price: Keepa records a price when it changes, so months without a row are months at that price. Each
    segment runs from an observed day to an observed day; the days a splice's gap carried a price over belong to
    none. A series without its days' sources (made by hand) splits at every long gap."""
    observed = found.observed_flags() if hasattr(found, "observed_flags") else [True] * len(found.days)
    day_sources = getattr(found, "observed_sources", None)  # None: unknown, every long gap splits
    indexes = [index for index, flag in enumerate(observed) if flag]
    if not indexes:
        return []
    bounds, start, previous = [], indexes[0], indexes[0]
    for index in indexes[1:]:
        if (found.days[index] - found.days[previous]).days > MAX_GAP_DAYS and (
                day_sources is None or day_sources[index] != day_sources[previous]):
            bounds.append((start, previous + 1))
            start = index
        previous = index
    bounds.append((start, previous + 1))
    return bounds


def segments(found) -> list:
    """The series' segments (segment_bounds), each a copy of it holding that stretch's days, prices and flags."""
    observed = found.observed_flags() if hasattr(found, "observed_flags") else [True] * len(found.days)
    day_sources = getattr(found, "observed_sources", None)
    medians = getattr(found, "panel_medians", None)
    return [dataclasses.replace(found, days=found.days[start:stop], prices=found.prices[start:stop],
                                observed=observed[start:stop],
                                **({} if day_sources is None else {"observed_sources": day_sources[start:stop]}),
                                **({} if medians is None else {"panel_medians": medians[start:stop]}))
            for start, stop in segment_bounds(found)]


def has_outlook(found, model: Mapping | None = None, horizon: int = DEFAULT_HORIZON_DAYS) -> bool:
    """Whether the series has an outlook on its last day: its last segment has MIN_HISTORY_DAYS days, or it is a
    list price that has held FLAT_LIST_DAYS days (flat_list_day)."""
    bounds = segment_bounds(found)
    if not bounds:
        return False
    start, stop = bounds[-1]
    return stop - start >= MIN_HISTORY_DAYS or flat_list_day(found, start, stop, stop - start - 1,
                                                             model_for(horizon, model))


def flat_list_day(found, start: int, stop: int, t: int, fit: Mapping) -> int:
    """The days the price of day t of the segment [start, stop) has held, when it is a list price (kind
    rental_list) too young for the model (under MIN_HISTORY_DAYS days) that has held FLAT_LIST_DAYS days or more,
    and the pooled list-cut rate is low enough to leave its 10% quantile at the price itself; else 0. Such a day's
    outlook is that pooled rate, stated as such (issue 40: "no change seen in N days"), not silence."""
    flat = fit.get("flat_list")
    if (not flat or flat["any_cut"] >= 0.1 or outlook_features.kind_of(found.market) != "rental_list"
            or t >= MIN_HISTORY_DAYS - 1 or t < FLAT_LIST_DAYS - 1):
        return 0
    price, held = found.prices[start + t], 0
    while held <= t and found.prices[start + t - held] == price:
        held += 1
    return held if held >= FLAT_LIST_DAYS else 0


def too_short(found) -> str:
    """Why the series has no outlook on its last day, in one line (without a trailing period)."""
    bounds = segment_bounds(found) or [(0, 0)]
    start, stop = bounds[-1]
    since = ""
    if len(bounds) > 1:
        before, after = found.days[bounds[-2][1] - 1], found.days[start]
        since = f" since a {(after - before).days}-day gap without an observation ({before} to {after})"
    who = "" if provider_of(found) == ANY_PROVIDER else f" ({provider_of(found)})"
    return f"{found.gpu_id} {found.market}{who}: {stop - start} days of history{since}, the outlook needs {MIN_HISTORY_DAYS}"


def outlooks(found, horizon: int = DEFAULT_HORIZON_DAYS, every_day: bool = False, since: date | None = None,
             model: Mapping | None = None) -> list[Outlook]:
    """The outlook of a price_history.PriceSeries on its last day (every day with enough history: every_day; every
    day from `since` on: since), each from the prices of its segment up to its day only (`segments`: a day within
    MIN_HISTORY_DAYS - 1 days after a gap of over MAX_GAP_DAYS days has none). Raises OutlookError when the last
    segment is too short (on its last day), or every segment (every_day, since)."""
    fit = model_for(horizon, model)
    bounds = segment_bounds(found)
    if not every_day and since is None:
        bounds = bounds[-1:]
    found_outlooks, modelled = [], False
    for start, stop in bounds:
        days = None if every_day else [stop - start - 1] if since is None else [
            t for t, day in enumerate(found.days[start:stop]) if day >= since]
        found_outlooks += _flat_list_outlooks(found, start, stop, days, horizon, fit)
        if stop - start < MIN_HISTORY_DAYS:
            continue
        modelled = True
        frame = segment_frame(found, start, stop, horizon)
        for row in predict_frame(frame, fit, days, horizon):
            price = float(found.prices[start + row["t"]])
            found_outlooks.append(Outlook(found.gpu_id, found.market, found.days[start + row["t"]], horizon, price,
                                          row["drop_5pct"], row["drop_10pct"],
                                          *(price * row[name] for name in ("p10", "p50", "p90", "expected_low")),
                                          row["t"] + 1, provider_of(found), row["kind"], row["basis"], row["note"],
                                          row["days_unchanged"]))
    if not modelled and not found_outlooks:
        raise OutlookError(too_short(found))
    return sorted(found_outlooks, key=lambda one: one.as_of)


def _flat_list_outlooks(found, start: int, stop: int, days, horizon: int, fit: Mapping) -> list[Outlook]:
    """The outlooks of the segment's young days whose list price has held (flat_list_day): the pooled chance of a
    cut, the price itself as every quantile (a list price holds until it is cut)."""
    found_outlooks = []
    for t in range(min(stop - start, MIN_HISTORY_DAYS - 1)) if days is None else days:
        held = flat_list_day(found, start, stop, t, fit)
        if not held:
            continue
        price, flat = float(found.prices[start + t]), fit["flat_list"]
        found_outlooks.append(Outlook(found.gpu_id, found.market, found.days[start + t], horizon, price,
                                      flat["drop_5pct"], min(flat["drop_10pct"], flat["drop_5pct"]),
                                      price, price, price, price, t + 1, provider_of(found), "rental_list",
                                      "list_cut_rate", flat_list_note(fit, held, horizon), held))
    return found_outlooks


def training_rows(frames: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """The days of the given feature frames with an outlook and a known outcome."""
    found = [frame.filter((pl.col("t") >= MIN_HISTORY_DAYS - 1) & pl.col("end_ratio").is_not_null())
             for frame in frames]
    return pl.concat([frame.drop([c for c in frame.columns if c.startswith("naive_")]) for frame in found])


# ---- scoring (gpuprices backtest --outlook, dev/tune_outlook.py) -------------------------------------------------

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


# Written here, by Python, after each dbt build; dbt shows it as the view marts.gpu_price_outlook_daily
# (models/models/marts/gpu_price_outlook_daily.yml describes the columns).
TABLE = "meta.gpu_price_outlooks"
MART = "marts.gpu_price_outlook_daily"




def write_mart(connection, found_series: list, every_day: bool = False, horizon: int = DEFAULT_HORIZON_DAYS,
               since: date | None = None) -> int:
    """marts.gpu_price_outlook_daily: the outlook of every series with enough history on its latest day (a daily
    build), on every day from `since` on (an incremental build's rebuilt days), or on every day (every_day: `gpuprices
    outlook --rebuild`). Each day's row comes from the prices of its segment up to that day only (`outlooks`); the
    days it computes again lose a row they no longer have (a day within MIN_HISTORY_DAYS after a long gap).
    found_series: every series of the warehouse (analytics.price_history.series). Returns the rows written."""
    schema.create_series_tables(connection)  # the tables' DDL lives with the others'
    rows, stale = [], []
    for found in found_series:
        bounds = segment_bounds(found)
        if not bounds:
            continue
        try:
            found_outlooks = outlooks(found, horizon, every_day=every_day, since=since)
        except OutlookError:  # too young: no model, and not a list price that has held (flat_list_day)
            stale.append((horizon, found.gpu_id, found.market, provider_of(found), found.days[-1]))
            continue
        for one in found_outlooks:
            rows.append((one.as_of, one.gpu_id, one.market, one.provider, horizon, one.price_usd, one.drop_5pct,
                         one.drop_10pct, one.p10_usd, one.p50_usd, one.p90_usd, one.expected_low_usd,
                         one.days_of_history, one.kind, one.basis, one.note, one.days_unchanged, found.is_synthetic))
    if every_day:
        connection.execute(f"DELETE FROM {TABLE} WHERE horizon_days = ?", [horizon])
    elif since is not None:  # every day from since on is computed again
        connection.execute(f"DELETE FROM {TABLE} WHERE horizon_days = ? AND price_date >= ?", [horizon, since])
    elif stale:  # a last day without an outlook: no row left from an earlier build
        connection.executemany(f"DELETE FROM {TABLE} WHERE horizon_days = ? AND gpu_id = ? AND market = ? "
                               "AND provider = ? AND price_date = ?", stale)
    if rows:  # a day computed again replaces its row
        names = ["price_date", "gpu_id", "market", "provider", "horizon_days", "price_usd", "prob_drop_5pct",
                 "prob_drop_10pct", "p10_price_usd", "p50_price_usd", "p90_price_usd", "expected_low_usd",
                 "days_of_history", "kind", "basis", "basis_note", "days_unchanged", "is_synthetic"]
        new_rows = pl.DataFrame(rows, schema=names, orient="row").to_arrow()  # noqa: F841 (read by the SQL below)
        connection.execute(f"INSERT OR REPLACE INTO {TABLE} SELECT * FROM new_rows")
    return len(rows)


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
