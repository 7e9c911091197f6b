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

The baselines the backtest scores it against (analytics/outlook_scoring.py `score`): the climatology (the frequency of such drops in windows that
ended by t: the series' own when it has outlook_scoring.CLIMATOLOGY_MIN_WINDOWS of them, else pooled over the scored series) and the
naive quantiles (the past h-day log changes' quantiles, own or pooled the same way, applied to today's price).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

import polars as pl

from analytics import outlook_features, outlook_fit
from analytics.outlook_features import DEFAULT_HORIZON_DAYS, DROPS, OutlookError, feature_frame
from warehouse.store import schema

MIN_HISTORY_DAYS = 60  # a series has an outlook from its 60th day on (index 59): the features need two months
# A longer stretch between two observed days of other sources splits a series (`segments`). Over 7: GCP's list prices are weekly (a
# revision every 7 days, 14 when one week is missing) and stay one series; not much more: a gap of d days holds one
# price over d - 1 days, at 14 under half of a 30-day median and of a 30-day outcome window, at 31 all of them. The
# same 14 days break the pages' price lines (dashboards/gpu_charts.GAP_DAYS).
MAX_GAP_DAYS = 14
MIN_SKILL = 0.02  # a kind of market whose out-of-sample Brier skill is under this shows its base rate (uses_model)
FLAT_LIST_DAYS = 30  # a list price unchanged this long gets the pooled cut rate of such list prices
ANY_PROVIDER = "any"  # the provider column of the market's cheapest series (every provider's lowest price)
MODEL_PATH = Path(__file__).with_name("outlook_model.json")
FEATURES = outlook_fit.FEATURES


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
