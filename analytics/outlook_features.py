"""What the outlook knows about a series beyond its own past (issue 40, part 3): the kind of market, the GPU's age and
its successor's, a provider's price against the other providers' median that day, how long a price has held.

Every figure of day t uses what was known on day t: the GPU's launch date (marts.gpus.release_date), the launch of
a successor released by t (the first later GPU of the same vendor with at least its memory and 20% more compute,
BF16 dense where both have the figure, else FP32: a rule, not a curated table), the other providers' median of that day (marts.gpu_provider_prices_daily).
Street price against MSRP and price per unit of compute against its class were considered: no bundled real history
has a GPU with a launch price (int_gpu_specs holds 20, datacenter cards and three GeForce), and a class's price per
TFLOP needs a panel of series of the same day, which the bundled histories (one source each) do not have, so they
are not features (docs/limitations.md).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from datetime import date

import polars as pl

# The kinds of market the outlook is scored and, where it does no better than its base rate, replaced per
# (kind_of): each has its own out-of-sample figures in analytics/outlook_model.json.
DEFAULT_HORIZON_DAYS = 30
DROPS = {"drop_5pct": 0.05, "drop_10pct": 0.10}  # the drops the outlook gives a chance of, by how much
QUANTILES = {"p10": 0.1, "p50": 0.5, "p90": 0.9}
VOLATILITY_FLOOR = 0.002  # log of (floor + daily volatility): a price that never moves is not -inf
KINDS = ("retail_new", "retail_used", "rental_list", "spot", "marketplace")
KIND_WORDS = {"retail_new": "new cards at retail", "retail_used": "used cards", "rental_list":
              "on-demand and commitment list prices", "spot": "spot prices", "marketplace": "marketplace asks"}
SUCCESSOR_COMPUTE = 1.2  # a successor: same vendor, launched later, at least the memory, 20% more compute

CONTEXT_FEATURES = ("log_gpu_age", "successor_age", "from_panel_median", "log_days_unchanged")

GPU_CONTEXT_SQL = """
    WITH specs AS (SELECT gpu_id, vendor, release_date, memory_gib, fp32_tflops, bf16_dense_tflops FROM marts.gpus)
    SELECT specs.gpu_id, specs.release_date,
           (SELECT min(later.release_date) FROM specs AS later
             WHERE later.vendor = specs.vendor AND later.release_date > specs.release_date
               AND later.memory_gib >= specs.memory_gib
               -- tensor compute where both have it (a B200's FP32 is barely an H100's), else FP32
               AND CASE WHEN later.bf16_dense_tflops IS NOT NULL AND specs.bf16_dense_tflops IS NOT NULL
                        THEN later.bf16_dense_tflops >= specs.bf16_dense_tflops * $ratio
                        ELSE later.fp32_tflops >= specs.fp32_tflops * $ratio END)
               AS successor_release_date
    FROM specs"""


def kind_of(market: str) -> str:
    """The kind of market of a market name (warehouse/store/markets.py)."""
    if market.startswith("marketplace_"):
        return "marketplace"
    if market in ("retail_new", "retail_used", "spot"):
        return market
    return "rental_list"  # on_demand, reserved_1y, reserved_3y: a provider's list prices


def gpu_context(connection) -> dict[str, dict]:
    """{gpu_id: {"release_date", "successor_release_date"}} from marts.gpus (None where unknown)."""
    rows = connection.execute(GPU_CONTEXT_SQL, {"ratio": SUCCESSOR_COMPUTE}).fetchall()
    return {gpu: {"release_date": released, "successor_release_date": successor} for gpu, released, successor in rows}


def _years(later: date, earlier: date | None) -> float:
    return max((later - earlier).days, 0) / 365.25 if earlier is not None else 0.0


def context_columns(days: Sequence[date], prices: Sequence[float], context: Mapping | None,
                    panel_medians: Sequence[float | None] | None) -> dict[str, list[float]]:
    """Per day: log(1 + the GPU's years since launch) (0: unknown), log(1 + years since its successor launched) (0:
    none by then), log(price / the other providers' median that day) (0: none, or not a provider's series), and
    log(1 + days since the price last changed)."""
    context = context or {}
    released, successor = context.get("release_date"), context.get("successor_release_date")
    unchanged, run = [], 0
    for index, price in enumerate(prices):
        run = run + 1 if index and price == prices[index - 1] else 0
        unchanged.append(math.log1p(run))
    panel = [math.log(price / median) if median else 0.0
             for price, median in zip(prices, panel_medians or [None] * len(prices), strict=True)]
    return {
        "log_gpu_age": [math.log1p(_years(day, released)) for day in days],
        "successor_age": [math.log1p(_years(day, successor)) if successor is not None and day >= successor else 0.0
                          for day in days],
        "from_panel_median": panel,
        "log_days_unchanged": unchanged,
    }


def days_unchanged(prices: Sequence) -> int:
    """How many days before the last the price has been the same (0: it changed on the last day)."""
    run = 0
    for index in range(len(prices) - 1, 0, -1):
        if prices[index] != prices[index - 1]:
            break
        run += 1
    return run


def with_context(frame: pl.DataFrame, days: Sequence[date], context: Mapping | None,
                 panel_medians: Sequence[float | None] | None, market: str) -> pl.DataFrame:
    """The feature frame with CONTEXT_FEATURES and the kind of market's indicator columns."""
    columns = context_columns(days, frame["price"].to_list(), context, panel_medians)
    kind = kind_of(market)
    return frame.with_columns([pl.Series(name, values, dtype=pl.Float64) for name, values in columns.items()]
                              + [pl.lit(1.0 if kind == one else 0.0).alias(f"kind_{one}") for one in KINDS])


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
    return with_context(frame, dated, context if days is not None else None, panel_medians, market)


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
