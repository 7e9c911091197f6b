"""The one vocabulary of markets: what a buyer compares (on-demand rentals, spot, reservations, marketplace asks,
new and used cards) and how each maps onto the marts' columns and the raw offers. Imports, alerts and the price
histories (backtest, buy signals) name markets with these words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Market:
    channel: str              # marts.gpu_prices_daily.channel (retail split by condition, marketplace apart)
    pricing_type: str
    price_per: str            # gpu_hour | card
    raw_channel: str          # raw.offers.channel of an imported row (marketplace is set in staging, by provider)
    term_months: int | None = None
    importable: bool = True   # `gpuprices import prices --market` (a marketplace is a provider, not an import choice)
    alertable: bool = True    # `gpuprices alerts add --market` (reservations have no daily alert)


MARKETS = {
    "on_demand": Market("cloud", "on_demand", "gpu_hour", "cloud"),
    "spot": Market("cloud", "spot", "gpu_hour", "cloud"),
    "reserved_1y": Market("cloud", "reserved_1y", "gpu_hour", "cloud", term_months=12, alertable=False),
    "reserved_3y": Market("cloud", "reserved_3y", "gpu_hour", "cloud", term_months=36, alertable=False),
    # peer-to-peer asks (vast, tensordock...): models/seeds/marketplace_providers.csv
    "marketplace_on_demand": Market("marketplace", "on_demand", "gpu_hour", "cloud", importable=False),
    "marketplace_spot": Market("marketplace", "spot", "gpu_hour", "cloud", importable=False),
    "retail_new": Market("retail_new", "purchase", "card", "retail"),
    "retail_used": Market("retail_used", "purchase", "card", "retail"),
}
IMPORT_MARKETS = tuple(name for name, market in MARKETS.items() if market.importable)
ALERT_MARKETS = tuple(name for name, market in MARKETS.items() if market.alertable)

# The market of a row of marts.gpu_prices_daily (channel cloud | marketplace | retail_new | retail_used)
MARKET_SQL = "CASE " + " ".join(
    f"WHEN channel = '{market.channel}' AND pricing_type = '{market.pricing_type}' THEN '{name}'"
    for name, market in MARKETS.items()) + " END"
# The market of a row of marts.gpu_prices_by_source_daily (channel retail | cloud | marketplace, with condition)
SOURCE_MARKET_SQL = ("CASE WHEN price_per = 'card' THEN CASE WHEN condition = 'new' THEN 'retail_new' "
                     "ELSE 'retail_used' END ELSE " + MARKET_SQL + " END")
