"""The one vocabulary of markets: what a buyer compares (on-demand rentals, spot, reservations, marketplace asks,
new and used cards), by two columns everywhere from staging to the marts: `channel` (who sells: cloud,
marketplace, retail) and `market` (what is sold: the names below). models/macros/market.sql computes an offer's
market once, in staging (stg_raw__offers); imports, alerts and the price histories (backtest, buy signals) name
markets with these words (tests/warehouse/test_markets.py keeps the two equal)."""

from __future__ import annotations

from dataclasses import dataclass

from scrapers.base import CHANNELS  # noqa: F401 (the vocabulary this module's users read here too)


@dataclass(frozen=True)
class Market:
    # cloud | marketplace | retail; raw.offers holds cloud | retail (a scraper's word): staging sets marketplace,
    # by provider (models/seeds/marketplace_providers.csv)
    channel: str
    pricing_type: str         # raw.offers.pricing_type of its offers (purchase: a card)
    price_per: str            # gpu_hour | card
    condition: tuple[str, ...] = ()  # a card's raw.offers.condition values in this market
    term_months: int | None = None
    importable: bool = True   # `gpuprices import prices --market` (a marketplace is a provider, not an import choice)
    alertable: bool = True    # `gpuprices alerts add --market` (reservations have no daily alert)


MARKETS = {
    "on_demand": Market("cloud", "on_demand", "gpu_hour"),
    "spot": Market("cloud", "spot", "gpu_hour"),
    "reserved_1y": Market("cloud", "reserved_1y", "gpu_hour", term_months=12, alertable=False),
    "reserved_3y": Market("cloud", "reserved_3y", "gpu_hour", term_months=36, alertable=False),
    # peer-to-peer asks (vast, tensordock...): models/seeds/marketplace_providers.csv
    "marketplace_on_demand": Market("marketplace", "on_demand", "gpu_hour", importable=False),
    "marketplace_spot": Market("marketplace", "spot", "gpu_hour", importable=False),
    "retail_new": Market("retail", "purchase", "card", condition=("new",)),
    "retail_used": Market("retail", "purchase", "card", condition=("used", "refurbished", "open_box")),
}
# the one channel vocabulary is the scrapers' (scrapers/base.py CHANNELS), imported above; every market names one
# (tests/warehouse/test_markets.py holds it)
IMPORT_MARKETS = tuple(name for name, market in MARKETS.items() if market.importable)
ALERT_MARKETS = tuple(name for name, market in MARKETS.items() if market.alertable)
