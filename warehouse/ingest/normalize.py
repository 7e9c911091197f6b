"""Parser records -> the canonical frame (polars) of their raw table: offers (with the exact price per GPU-hour or
per card, in the offer's own currency), exchange rates, per-token API prices (per million tokens) and spot
interruption bands.

Money never goes through floats: per-unit figures are computed with Fractions from the Decimal price and the
(possibly fractional) GPU count, then rounded once, half-even, to 6 decimals. Conversion to USD happens in one place,
the models (models/macros/fx.sql), for every currency, USD included.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction

import polars as pl

from scrapers.base import PRICE_UNITS, PRICING_TYPES, FxRate, Offer, SpotInterruptionBand, TokenPrice
from warehouse.store.landing import LandedRun

HOURS_PER_YEAR = 8760  # cloud reservations are billed on 365-day years of 24 hours
MICRO = Decimal("0.000001")

OFFER_SCHEMA: dict[str, pl.DataType] = {
    "run_id": pl.String,
    "parser_version": pl.Int32,
    "observed_at": pl.Datetime("us", "UTC"),
    "source": pl.String,
    "channel": pl.String,
    "provider": pl.String,
    "offer_id": pl.String,
    "title": pl.String,
    "raw_gpu_name": pl.String,
    "gpu_id": pl.String,
    "gpu_count": pl.Decimal(12, 6),
    "pricing_type": pl.String,
    "term_months": pl.Int16,
    "price": pl.Decimal(24, 10),
    "currency": pl.String,
    "price_unit": pl.String,
    "price_role": pl.String,
    "price_per_unit": pl.Decimal(18, 6),
    "includes_host_vm": pl.Boolean,
    "region": pl.String,
    "instance_type": pl.String,
    "condition": pl.String,
    "seller_type": pl.String,
    "in_stock": pl.Boolean,
    "url": pl.String,
    "landing_ref": pl.String,
    "is_synthetic": pl.Boolean,
    "via": pl.String,
    "interconnect": pl.String,
    "cluster_network": pl.String,
    "host_reliability": pl.Decimal(7, 6),
    "reject_reason": pl.String,  # not stored in raw.offers: the integrity check turns it into a quarantine reason
}
OFFER_KEY = ["run_id", "parser_version", "offer_id", "pricing_type", "includes_host_vm"]


def _to_decimal(value: Fraction, quantum: Decimal = MICRO) -> Decimal:
    with decimal.localcontext() as context:
        context.prec = 50
        return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(quantum, decimal.ROUND_HALF_EVEN)


def price_per_unit(offer: Offer) -> Decimal | None:
    """The offer's price per GPU-hour (rentals) or per card (retail), in its own currency; None when it cannot be
    known exactly (no GPU count, an unknown unit). Converted to USD in the models at the observation day's rate."""
    if not offer.gpu_count:
        return None
    price = Fraction(offer.price)
    if offer.price_unit == "card":
        return _to_decimal(price / offer.gpu_count)
    if offer.channel not in ("cloud", "marketplace"):  # a rental: per GPU-hour or per instance-hour
        return None
    if offer.price_unit == "gpu_hour":
        return _to_decimal(price)
    if offer.price_unit == "instance_hour":
        return _to_decimal(price / offer.gpu_count)
    if offer.price_unit == "instance_term" and offer.term_months:
        hours = Fraction(HOURS_PER_YEAR * offer.term_months, 12)
        return _to_decimal(price / hours / offer.gpu_count)
    return None


def normalize(offers: list[Offer], run: LandedRun, parser_version: int) -> pl.DataFrame:
    """The canonical offer frame of one source-run (an offer listed twice in one run is kept once)."""
    rows = []
    for offer in offers:
        if offer.pricing_type not in PRICING_TYPES or offer.price_unit not in PRICE_UNITS:
            raise ValueError(f"{offer.source}: unknown pricing_type/price_unit {offer.pricing_type}/{offer.price_unit}")
        rows.append(
            {
                "run_id": run.run_id,
                "parser_version": parser_version,
                "observed_at": run.observed_at,
                "source": offer.source,
                "channel": offer.channel,
                "provider": offer.provider,
                "offer_id": offer.offer_id,
                "title": offer.title,
                "raw_gpu_name": offer.raw_gpu_name,
                "gpu_id": offer.gpu_id,
                "gpu_count": _to_decimal(offer.gpu_count) if offer.gpu_count is not None else None,
                "pricing_type": offer.pricing_type,
                "term_months": offer.term_months,
                "price": offer.price,
                "currency": offer.currency.upper(),
                "price_unit": offer.price_unit,
                "price_role": offer.price_role,
                "price_per_unit": price_per_unit(offer),
                "includes_host_vm": offer.includes_host_vm,
                "region": offer.region,
                "instance_type": offer.instance_type,
                "condition": offer.condition,
                "seller_type": offer.seller_type,
                "in_stock": offer.in_stock,
                "url": offer.url,
                "landing_ref": run.landing_ref(offer.document_index),
                "is_synthetic": run.is_synthetic,
                "via": offer.via,
                "interconnect": offer.interconnect,
                "cluster_network": offer.cluster_network,
                "host_reliability": offer.host_reliability,
                "reject_reason": offer.reject_reason,
            }
        )
    frame = pl.DataFrame(rows, schema=OFFER_SCHEMA, orient="row") if rows else pl.DataFrame(schema=OFFER_SCHEMA)
    return frame.unique(subset=OFFER_KEY, keep="first", maintain_order=True)


RATE_SCHEMA: dict[str, pl.DataType] = {
    "run_id": pl.String, "parser_version": pl.Int32, "observed_at": pl.Datetime("us", "UTC"), "source": pl.String,
    "rate_date": pl.Date, "base_currency": pl.String, "quote_currency": pl.String, "rate": pl.Decimal(18, 8),
    "landing_ref": pl.String, "is_synthetic": pl.Boolean,
}


def normalize_rates(rates: list[FxRate], run: LandedRun, parser_version: int) -> pl.DataFrame:
    """The exchange rates of one source-run as one frame (a history file holds ~200,000: built column-wise)."""
    return pl.DataFrame(
        {
            "run_id": [run.run_id] * len(rates),
            "parser_version": [parser_version] * len(rates),
            "observed_at": [run.observed_at] * len(rates),
            "source": [rate.source for rate in rates],
            "rate_date": [rate.rate_date for rate in rates],
            "base_currency": [rate.base_currency for rate in rates],
            "quote_currency": [rate.quote_currency for rate in rates],
            "rate": [rate.rate for rate in rates],
            "landing_ref": [run.landing_ref(rate.document_index) for rate in rates],
            "is_synthetic": [run.is_synthetic] * len(rates),
        },
        schema=RATE_SCHEMA,
    )


TOKENS_PER_MILLION = 1_000_000
PER_MILLION_QUANTUM = Decimal("0.000000000001")  # raw.api_token_prices keeps 12 decimals of a USD per million tokens
TOKEN_PRICE_SCHEMA: dict[str, pl.DataType] = {
    "run_id": pl.String, "parser_version": pl.Int32, "observed_at": pl.Datetime("us", "UTC"), "source": pl.String,
    "provider": pl.String, "model_slug": pl.String, "usd_per_million_input_tokens": pl.Decimal(24, 12),
    "usd_per_million_output_tokens": pl.Decimal(24, 12), "context_length": pl.Int32, "landing_ref": pl.String,
    "is_synthetic": pl.Boolean,
}


def per_million_tokens(usd_per_token: Decimal) -> Decimal:
    """USD per token -> USD per million tokens, exactly (rounded once, half-even, past the 12th decimal)."""
    with decimal.localcontext() as context:
        context.prec = 50
        return (usd_per_token * TOKENS_PER_MILLION).quantize(PER_MILLION_QUANTUM, decimal.ROUND_HALF_EVEN)


def normalize_token_prices(prices: list[TokenPrice], run: LandedRun, parser_version: int) -> pl.DataFrame:
    """The per-token API prices of one source-run as one frame, per million tokens (a model listed twice is kept once)."""
    frame = pl.DataFrame(
        {
            "run_id": [run.run_id] * len(prices),
            "parser_version": [parser_version] * len(prices),
            "observed_at": [run.observed_at] * len(prices),
            "source": [price.source for price in prices],
            "provider": [price.provider for price in prices],
            "model_slug": [price.model_slug for price in prices],
            "usd_per_million_input_tokens": [per_million_tokens(price.usd_per_input_token) for price in prices],
            "usd_per_million_output_tokens": [per_million_tokens(price.usd_per_output_token) for price in prices],
            "context_length": [price.context_length for price in prices],
            "landing_ref": [run.landing_ref(price.document_index) for price in prices],
            "is_synthetic": [run.is_synthetic] * len(prices),
        },
        schema=TOKEN_PRICE_SCHEMA,
    )
    return frame.unique(subset=["source", "provider", "model_slug"], keep="first", maintain_order=True)


SPOT_INTERRUPTION_SCHEMA: dict[str, pl.DataType] = {
    "run_id": pl.String, "parser_version": pl.Int32, "observed_at": pl.Datetime("us", "UTC"), "source": pl.String,
    "provider": pl.String, "region": pl.String, "operating_system": pl.String, "instance_type": pl.String,
    "interruption_band": pl.String, "interruption_band_index": pl.Int16, "interruption_max_pct": pl.Int16,
    "spot_savings_pct": pl.Int16, "landing_ref": pl.String, "is_synthetic": pl.Boolean,
}


def normalize_spot_interruptions(bands: list[SpotInterruptionBand], run: LandedRun,
                                 parser_version: int) -> pl.DataFrame:
    """The spot interruption bands of one source-run as one frame (a type listed twice in a region is kept once)."""
    frame = pl.DataFrame(
        {
            "run_id": [run.run_id] * len(bands),
            "parser_version": [parser_version] * len(bands),
            "observed_at": [run.observed_at] * len(bands),
            **{name: [getattr(band, name) for band in bands] for name in (
                "source", "provider", "region", "operating_system", "instance_type", "interruption_band",
                "interruption_band_index", "interruption_max_pct", "spot_savings_pct")},
            "landing_ref": [run.landing_ref(band.document_index) for band in bands],
            "is_synthetic": [run.is_synthetic] * len(bands),
        },
        schema=SPOT_INTERRUPTION_SCHEMA,
    )
    return frame.unique(subset=["source", "region", "operating_system", "instance_type"], keep="first",
                        maintain_order=True)
