"""The integrity check every fresh result passes before it is loaded.

Row rules (a failing row is quarantined with its reason; the rest of the result may still load):
- a listing the parser set aside with a reason (a retail listing that is not a GPU card);
- a price of zero or less;
- a USD per GPU-hour figure outside the GPU's sane band (the $0.01 B200, the commitment total read as hourly);
- a figure more than OUTLIER_FACTOR times away from the median of the same GPU and pricing type in the result;
- a card's selling price outside the sane band of its currency, or of its GPU in USD (a $25 "RTX 4090" is a box,
  a scam or a misread, not a market price).

Result rules (a failing result is quarantined whole, nothing is loaded, the previous good data stays current):
- empty, or fewer offers than the source expects;
- a GPU the source must return is missing;
- too large a share of rows failed the row rules (the page changed under us).

Exchange rates (check_rates) have result rules only: too few rates, no USD rate on a day, a rate outside its band.

Per-token API prices (check_token_prices): a negative price (a router's "depends on the model it picks") or one
above TOKEN_PRICE_CEILING_USD_PER_MILLION (a unit error) is quarantined row by row; zero stays (a published free
tier); the result rules are those of offers (empty, too few, too many rows failed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import polars as pl

from scrapers.base import Expectations

D = Decimal
# USD per GPU-hour bands, wide on purpose: they catch unit and decimal-point errors, not market moves.
DEFAULT_BANDS: dict[str, tuple[Decimal, Decimal]] = {
    "b200-180gb": (D("0.50"), D("40")),
    "gb200-186gb": (D("0.50"), D("40")),
    "h200-sxm-141gb": (D("0.40"), D("30")),
    "h100-sxm5-80gb": (D("0.30"), D("25")),
    "h100-pcie-80gb": (D("0.30"), D("25")),
    "h100-nvl-94gb": (D("0.30"), D("25")),
    "mi300x-192gb": (D("0.30"), D("25")),
    "a100-sxm4-80gb": (D("0.15"), D("15")),
    "a100-sxm4-40gb": (D("0.15"), D("15")),
    "a100-pcie-80gb": (D("0.15"), D("15")),
}
FALLBACK_BAND = (D("0.02"), D("40"))  # a $0.01/GPU-hour figure is a unit error, not a market price
# Per card, in the listing's own currency: wide on purpose (a cheap used card to an 8-GPU-board's worth).
CARD_BANDS_BY_CURRENCY: dict[str, tuple[Decimal, Decimal]] = {
    "USD": (D("25"), D("80000")), "EUR": (D("20"), D("75000")), "GBP": (D("20"), D("65000")),
    "CAD": (D("30"), D("110000")), "AUD": (D("35"), D("120000")), "CNY": (D("150"), D("600000")),
    "JPY": (D("3000"), D("12000000")),
}
# USD per card for GPUs whose street price is well known, any condition (used included).
CARD_BANDS_USD: dict[str, tuple[Decimal, Decimal]] = {
    "rtx-5090-32gb": (D("1200"), D("12000")), "rtx-4090-24gb": (D("600"), D("8000")),
    "rtx-3090-24gb": (D("300"), D("4000")), "rtx-3080-10gb": (D("200"), D("3000")),
    "h100-pcie-80gb": (D("8000"), D("60000")), "h100-sxm5-80gb": (D("8000"), D("60000")),
    "a100-pcie-80gb": (D("2500"), D("35000")), "a100-sxm4-80gb": (D("2500"), D("35000")),
    "l40s-48gb": (D("3000"), D("25000")), "rtx-6000-ada-48gb": (D("2500"), D("15000")),
}
# A rate outside its band is a misread file (a shifted column, a unit error), not a market move: units per EUR,
# bands wide enough for decades of history.
RATE_BANDS: dict[str, tuple[Decimal, Decimal]] = {
    "USD": (D("0.5"), D("2.5")), "CNY": (D("4"), D("15")), "JPY": (D("80"), D("250")), "GBP": (D("0.4"), D("1.2")),
}
# USD per million tokens above which a per-token price is a unit error (per-million figures read as per-token give
# 10^6 times the price), not a market price: the dearest models listed cost a few hundred dollars per million.
TOKEN_PRICE_CEILING_USD_PER_MILLION = D("10000")
OUTLIER_FACTOR = 4
OUTLIER_MIN_GROUP = 5


@dataclass
class IntegrityResult:
    accepted: pl.DataFrame
    rejected: pl.DataFrame  # the rejected rows with a `reason` column
    result_reasons: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.result_reasons


def _band_frame(expectations: Expectations) -> pl.DataFrame:
    bands = {**DEFAULT_BANDS, **expectations.price_bands}
    return pl.DataFrame(
        {
            "gpu_id": list(bands),
            "band_low": [float(low) for low, _ in bands.values()],
            "band_high": [float(high) for _, high in bands.values()],
        }
    )


def _card_band_frame() -> pl.DataFrame:
    rows = [(currency, None, low, high) for currency, (low, high) in CARD_BANDS_BY_CURRENCY.items()]
    rows += [("USD", gpu_id, low, high) for gpu_id, (low, high) in CARD_BANDS_USD.items()]
    return pl.DataFrame(
        {"currency": [r[0] for r in rows], "card_band_gpu": [r[1] for r in rows],
         "card_low": [float(r[2]) for r in rows], "card_high": [float(r[3]) for r in rows]},
        schema={"currency": pl.String, "card_band_gpu": pl.String, "card_low": pl.Float64, "card_high": pl.Float64},
    )


def _card_price_out_of_band(frame: pl.DataFrame) -> pl.Series:
    """True for a card's selling price outside its currency's band or its GPU's USD band."""
    if "price_unit" not in frame.columns:
        return pl.Series([False] * frame.height)
    bands = _card_band_frame()
    checked = frame.select(
        pl.int_range(pl.len()).alias("row"), "currency", "gpu_id",
        pl.col("price_per_unit").cast(pl.Float64).alias("per_card"),
        ((pl.col("price_unit") == "card") & (pl.col("price_role") == "selling")).alias("is_card_price"),
    )
    by_currency = checked.join(bands.filter(pl.col("card_band_gpu").is_null()).drop("card_band_gpu"),
                               on="currency", how="left")
    by_gpu = by_currency.join(
        bands.filter(pl.col("card_band_gpu").is_not_null())
        .rename({"card_band_gpu": "gpu_id", "card_low": "gpu_low", "card_high": "gpu_high"}),
        on=["currency", "gpu_id"], how="left",
    ).sort("row")
    outside = (
        pl.col("is_card_price") & pl.col("per_card").is_not_null()
        & (((pl.col("per_card") < pl.col("card_low")) | (pl.col("per_card") > pl.col("card_high"))).fill_null(False)
           | ((pl.col("per_card") < pl.col("gpu_low")) | (pl.col("per_card") > pl.col("gpu_high"))).fill_null(False))
    )
    return by_gpu.select(outside.alias("outside")).get_column("outside")


def check(frame: pl.DataFrame, expectations: Expectations) -> IntegrityResult:
    frame_with_card_check = frame.with_columns(_card_price_out_of_band(frame).alias("card_out_of_band"))
    # The USD bands apply to rentals priced in USD (other currencies are converted in the models, after load).
    per_gpu_hour = (pl.when(pl.col("channel").is_in(["cloud", "marketplace"]) & (pl.col("currency") == "USD"))
                    .then(pl.col("price_per_unit")).cast(pl.Float64))
    # per run: one scraped run checks the same; an imported file's day-runs are checked in one go (warehouse/ingest/imports.py)
    group = [c for c in ("run_id", "gpu_id", "pricing_type", "includes_host_vm") if c in frame.columns]
    group_median = per_gpu_hour.median().over(group)
    group_size = per_gpu_hour.count().over(group)
    annotated = (
        frame_with_card_check.join(_band_frame(expectations), on="gpu_id", how="left")
        .with_columns(
            pl.col("band_low").fill_null(float(FALLBACK_BAND[0])),
            pl.col("band_high").fill_null(float(FALLBACK_BAND[1])),
        )
        .with_columns(
            pl.when(pl.col("reject_reason").is_not_null())
            .then(pl.col("reject_reason"))
            .when(pl.col("price") <= 0)
            .then(pl.lit("non_positive_price"))
            .when(per_gpu_hour.is_not_null() & ((per_gpu_hour < pl.col("band_low")) | (per_gpu_hour > pl.col("band_high"))))
            .then(pl.lit("price_out_of_band"))
            .when(pl.col("card_out_of_band"))
            .then(pl.lit("card_price_out_of_band"))
            .when(
                (group_size >= OUTLIER_MIN_GROUP)
                & ((per_gpu_hour > group_median * OUTLIER_FACTOR) | (per_gpu_hour < group_median / OUTLIER_FACTOR))
            )
            .then(pl.lit("relative_outlier"))
            .otherwise(None)
            .alias("reason")
        )
    )
    stored_columns = [c for c in frame.columns if c != "reject_reason"]
    # lazily: the filter copies only the stored columns, not the rules' working ones (a long import: memory)
    accepted = annotated.lazy().filter(pl.col("reason").is_null()).select(stored_columns).collect()
    rejected = annotated.filter(pl.col("reason").is_not_null())
    # Listings a parser set aside (not a card) are expected on a search page; only rows that fail the price rules
    # say the page changed under us.
    failed_rules = rejected.filter(pl.col("reject_reason").is_null())

    reasons = []
    if frame.is_empty():
        reasons.append("empty_result: the source returned no offers")
    elif accepted.height < expectations.min_offers:
        reasons.append(f"too_few_offers: {accepted.height} accepted, at least {expectations.min_offers} expected")
    present = set(accepted.get_column("gpu_id").drop_nulls().unique().to_list())
    missing = sorted(expectations.expected_gpu_ids - present)
    if missing:
        reasons.append(f"missing_expected_gpus: {', '.join(missing)}")
    if frame.height and failed_rules.height / frame.height > expectations.max_rejected_share:
        reasons.append(
            f"too_many_rejected_rows: {failed_rules.height} of {frame.height} rows failed the row rules "
            f"(more than {expectations.max_rejected_share:.0%})"
        )
    return IntegrityResult(accepted=accepted, rejected=rejected, result_reasons=reasons)


def check_rates(frame: pl.DataFrame, expectations: Expectations) -> IntegrityResult:
    """A rates result loads whole or not at all: too few rates, a day without a USD rate, or a rate outside its
    band holds it back."""
    reasons = []
    if frame.height < expectations.min_offers:
        reasons.append(f"only {frame.height} rates (expected at least {expectations.min_offers})")
    by_day: dict = {}
    for row in frame.select("rate_date", "quote_currency", "rate").iter_rows():
        by_day.setdefault(row[0], {})[row[1]] = row[2]
    for day, day_rates in sorted(by_day.items()):
        if "USD" not in day_rates:
            reasons.append(f"{day}: no USD rate")
        for currency, (low, high) in RATE_BANDS.items():
            if currency in day_rates and not low <= day_rates[currency] <= high:
                reasons.append(f"{day}: {currency} {day_rates[currency].normalize():f} per EUR is outside {low}..{high}")
    return IntegrityResult(accepted=frame, rejected=frame.clear().with_columns(pl.lit(None, pl.String).alias("reason")),
                           result_reasons=reasons[:20])


def check_token_prices(frame: pl.DataFrame, expectations: Expectations) -> IntegrityResult:
    """Row rules: a negative price (variable_price) or one above the ceiling (price_out_of_band) is set aside.
    Result rules: empty, fewer accepted prices than expected, or too large a share of rows set aside."""
    ceiling = float(TOKEN_PRICE_CEILING_USD_PER_MILLION)
    prices = [pl.col("usd_per_million_input_tokens").cast(pl.Float64),
              pl.col("usd_per_million_output_tokens").cast(pl.Float64)]
    annotated = frame.with_columns(
        pl.when((prices[0] < 0) | (prices[1] < 0)).then(pl.lit("variable_price"))
        .when((prices[0] > ceiling) | (prices[1] > ceiling)).then(pl.lit("price_out_of_band"))
        .otherwise(None).alias("reason")
    )
    accepted = annotated.filter(pl.col("reason").is_null()).drop("reason")
    rejected = annotated.filter(pl.col("reason").is_not_null())
    reasons = []
    if frame.is_empty():
        reasons.append("empty_result: the source returned no prices")
    elif accepted.height < expectations.min_offers:
        reasons.append(f"too_few_prices: {accepted.height} accepted, at least {expectations.min_offers} expected")
    if frame.height and rejected.height / frame.height > expectations.max_rejected_share:
        reasons.append(f"too_many_rejected_rows: {rejected.height} of {frame.height} rows failed the row rules "
                       f"(more than {expectations.max_rejected_share:.0%})")
    return IntegrityResult(accepted=accepted, rejected=rejected, result_reasons=reasons)


def check_spot_interruptions(frame: pl.DataFrame, expectations: Expectations) -> IntegrityResult:
    """No row rule (the parser refuses a band no published range names). Result rules: empty, or fewer bands than
    expected (a file cut short never replaces a whole one)."""
    reasons = []
    if frame.is_empty():
        reasons.append("empty_result: the source returned no interruption bands")
    elif frame.height < expectations.min_offers:
        reasons.append(f"too_few_bands: {frame.height} read, at least {expectations.min_offers} expected")
    return IntegrityResult(accepted=frame, rejected=frame.clear().with_columns(pl.lit(None, pl.String).alias("reason")),
                           result_reasons=reasons)
