"""The outlook's fitted model (issue 40, part 3): scikit-learn fits in place of hand-written solvers, ranges
calibrated on out-of-sample errors, and the base rate wherever the model does no better.

Per horizon, on the training days of the given feature frames (analytics/outlook_features.feature_frame with
outlook_features.with_context):
  * each drop probability: a logistic regression (sklearn LogisticRegression, L2, C=FIT_C) of the standardised
    FEATURES plus the series' own drop rate so far (its climatology, shrunk to the pooled rate while it has few
    windows, as a logit);
  * the median log change to t + h: a linear median regression (sklearn QuantileRegressor, HiGHS) on a fixed
    sample of MEDIAN_SAMPLE training days;
  * the 10-90% range: the median plus the 10th and 90th percentiles of its out-of-sample errors (grouped K-fold
    over series: no series' errors come from a fit that saw it), per kind of market and flat (no move in 90 days)
    or moving (Mondrian split-conformal prediction); a moving price's errors are divided by the day's scale (its
    90-day daily volatility x sqrt(h)), a flat price's are the log change itself (and its median is no change);
  * the expected low: the median's change capped at 0 (the lowest price within (t, t + h] is at most today's).
It is stored as plain numbers (JSON) and predicted with numpy: nothing is unpickled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from analytics.outlook_features import CONTEXT_FEATURES, DROPS, KINDS

OWN_FEATURES = ("from_median_7d", "from_median_30d", "from_median_90d", "above_low_90d", "under_high_90d",
                "log_volatility_90d", "change_share_90d", "trend_30d", "log_age")
FEATURES = OWN_FEATURES + CONTEXT_FEATURES + tuple(f"kind_{kind}" for kind in KINDS)
SHRINK_WINDOWS = 10  # the own-climatology feature: (drops + 10 x pooled rate) / (windows + 10)
FIT_C = 1.0
CONFORMAL_FOLDS = 5
MIN_KIND_ERRORS = 200  # a kind's own error quantiles from this many out-of-sample errors, else every kind's
MEDIAN_SAMPLE = 3000  # the median regression's training days (a fixed random sample of them)
SCALE_FLOOR = 0.002  # the floor outlook_features.VOLATILITY_FLOOR puts under the daily volatility


def _logit(share):
    share = np.clip(share, 1e-4, 1 - 1e-4)
    return np.log(share / (1 - share))


def _dot(design: np.ndarray, coefficients: Sequence[float]) -> np.ndarray:
    """Each row's dot product on its own (a matrix product's sums depend on how many rows there are, in the last
    bits: a day's outlook must not depend on how many days are predicted with it)."""
    total = np.zeros(design.shape[0])
    for column, coefficient in enumerate(coefficients):  # column by column: the same order for any row count
        total = total + design[:, column] * coefficient
    return total


def matrix(rows: pl.DataFrame, names: Sequence[str] = FEATURES) -> np.ndarray:
    return rows.select([pl.col(name).cast(pl.Float64) for name in names]).to_numpy()


def own_rate(rows: pl.DataFrame, target: str, pooled: float) -> np.ndarray:
    """The series' own rate of such drops in the windows that ended by t, shrunk to the pooled rate."""
    return ((rows[f"past_{target}"].to_numpy() + SHRINK_WINDOWS * pooled)
            / (rows["past_windows"].to_numpy() + SHRINK_WINDOWS))


def scale_of(rows: pl.DataFrame, horizon: int) -> np.ndarray:
    """The day's scale of an h-day log change: its 90-day daily volatility (floored) x sqrt(h)."""
    return np.exp(rows["log_volatility_90d"].to_numpy()) * math.sqrt(horizon)


def kind_of_rows(rows: pl.DataFrame) -> np.ndarray:
    return np.array(KINDS)[np.argmax(matrix(rows, [f"kind_{kind}" for kind in KINDS]), axis=1)]


def _fit_core(rows: pl.DataFrame) -> dict:
    """The drop and median fits (no ranges) on the given training rows."""
    from threadpoolctl import threadpool_limits

    # one BLAS thread: the solver's small products gain nothing from threads, and on a shared 2-core machine the
    # threads' spinning made a fit of 1,000 days take seconds (lbfgs' Fortran step 7 ms a call)
    with threadpool_limits(limits=1):
        return _fit_core_unthreaded(rows)


def _fit_core_unthreaded(rows: pl.DataFrame) -> dict:
    from sklearn.linear_model import LogisticRegression, QuantileRegressor

    x = matrix(rows)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    fit: dict = {"features": list(FEATURES), "mean": mean.tolist(), "scale": scale.tolist(), "drop": {},
                 "pooled_rate": {name: float((rows["low_ratio"] <= 1 - level).mean()) for name, level in DROPS.items()}}
    for name, level in DROPS.items():
        outcome = (rows["low_ratio"] <= 1 - level).to_numpy()
        design = np.column_stack([z, _logit(own_rate(rows, name, fit["pooled_rate"][name]))])
        if outcome.all() or not outcome.any():  # one class only: the rate itself
            fit["drop"][name] = {"intercept": float(_logit(outcome.mean())), "coef": [0.0] * design.shape[1]}
            continue
        model = LogisticRegression(C=FIT_C, max_iter=500).fit(design, outcome)
        fit["drop"][name] = {"intercept": float(model.intercept_[0]), "coef": model.coef_[0].tolist()}
    change = np.log(rows["end_ratio"].to_numpy())
    # the linear program grows faster than its rows (34 s on 18,678, 0.3 s on 2,000, about as good): a fixed sample
    sample = np.random.default_rng(0).permutation(len(change))[:MEDIAN_SAMPLE]
    median = QuantileRegressor(quantile=0.5, alpha=1e-4, solver="highs").fit(z[sample], change[sample])
    fit["median"] = {"intercept": float(median.intercept_), "coef": median.coef_.tolist()}
    return fit


def is_flat(rows: pl.DataFrame) -> np.ndarray:
    """Days whose price has not moved in the 90 days up to them."""
    return rows["change_share_90d"].to_numpy() == 0


def median_change(fit: Mapping, rows: pl.DataFrame) -> np.ndarray:
    """The median log change to t + h: the regression's, and none on a day whose price has not moved in 90 days
    (a list price's likeliest change is none: the linear fit, pooled with moving prices, gives it a small drift)."""
    z = (matrix(rows, fit["features"]) - np.array(fit["mean"])) / np.array(fit["scale"])
    return np.where(is_flat(rows), 0.0, fit["median"]["intercept"] + _dot(z, fit["median"]["coef"]))


def error_scale(rows: pl.DataFrame, horizon: int) -> np.ndarray:
    """What a range's error is measured in: the day's volatility scale (scale_of) for a moving price, the log
    change itself for a flat one (its volatility is the floor, no measure of the jump a list price makes)."""
    return np.where(is_flat(rows), 1.0, scale_of(rows, horizon))


def range_bins(rows: pl.DataFrame) -> list[str]:
    """The bin of each day's range errors: its kind of market, flat or moving (Mondrian conformal)."""
    return [f"{kind}/{'flat' if flat else 'moving'}" for kind, flat in zip(kind_of_rows(rows), is_flat(rows),
                                                                          strict=True)]


def fit_model(rows: pl.DataFrame, groups: Sequence, horizon: int) -> dict:
    """One horizon's fit on the training rows (outlook.training_rows), with `groups` parallel to them (the series
    each row is of: the range's errors are measured on series the fit did not see)."""
    from sklearn.model_selection import GroupKFold

    fit = _fit_core(rows)
    fit["days"] = rows.height
    groups = np.asarray(groups)
    errors = np.full(rows.height, np.nan)
    folds = min(CONFORMAL_FOLDS, len(set(groups.tolist())))
    if folds >= 2:
        for train, test in GroupKFold(n_splits=folds).split(np.zeros(rows.height), groups=groups):
            inner = _fit_core(rows[train])
            test_rows = rows[test]
            errors[test] = ((np.log(test_rows["end_ratio"].to_numpy()) - median_change(inner, test_rows))
                            / error_scale(test_rows, horizon))
    else:  # one series: its own in-sample errors (said so by "range_errors")
        errors = (np.log(rows["end_ratio"].to_numpy()) - median_change(fit, rows)) / error_scale(rows, horizon)
    fit["range_errors"] = "out of sample" if folds >= 2 else "in sample"
    bins = np.array(range_bins(rows))
    kinds = kind_of_rows(rows)

    def quantiles(mine):
        return {"p10": float(np.quantile(mine, 0.1)), "p90": float(np.quantile(mine, 0.9)), "n": int(len(mine))}

    fit["range"] = {"all": quantiles(errors)}
    for kind in KINDS:
        for flat in ("flat", "moving"):
            mine = errors[bins == f"{kind}/{flat}"]
            if len(mine) >= MIN_KIND_ERRORS:
                fit["range"][f"{kind}/{flat}"] = quantiles(mine)
    fit["pooled_rate_by_kind"] = {kind: {name: float((rows.filter(pl.Series(kinds == kind))["low_ratio"]
                                                      <= 1 - level).mean())
                                         for name, level in DROPS.items()}
                                  for kind in KINDS if (kinds == kind).any()}
    return fit


def predict(fit: Mapping, rows: pl.DataFrame, horizon: int) -> dict[str, np.ndarray]:
    """The model's outlook of each row, as ratios to the day's price: drop_5pct, drop_10pct, p10, p50, p90,
    expected_low. A range bin without MIN_KIND_ERRORS errors takes every bin's quantiles."""
    z = (matrix(rows, fit["features"]) - np.array(fit["mean"])) / np.array(fit["scale"])
    found = {}
    for name in DROPS:
        design = np.column_stack([z, _logit(own_rate(rows, name, fit["pooled_rate"][name]))])
        found[name] = 1 / (1 + np.exp(-(fit["drop"][name]["intercept"] + _dot(design, fit["drop"][name]["coef"]))))
    found["drop_10pct"] = np.minimum(found["drop_10pct"], found["drop_5pct"])  # a 10% drop is a 5% drop
    median = median_change(fit, rows)
    scale = error_scale(rows, horizon)
    ranges = [fit["range"].get(one, fit["range"]["all"]) for one in range_bins(rows)]
    low = np.array([one["p10"] for one in ranges])
    high = np.array([one["p90"] for one in ranges])
    found["p10"] = np.exp(median + np.minimum(low, 0) * scale)
    found["p50"] = np.exp(median)
    found["p90"] = np.exp(median + np.maximum(high, 0) * scale)
    found["expected_low"] = np.exp(np.minimum(median, 0))
    return found
