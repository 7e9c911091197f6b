"""One vocabulary of markets: models/macros/market.sql (the market of an offer, computed once, in staging) and
warehouse/store/markets.py (imports, alerts, price histories, pages) say the same word for every offer; an older
warehouse loses the relations of the models renamed or moved for it (issue 27)."""

from __future__ import annotations

import itertools
from pathlib import Path

import duckdb
from jinja2 import Environment

from scrapers.base import PRICING_TYPES
from warehouse.store.build import RETIRED_MODELS, drop_retired_models
from warehouse.store.docs import CATEGORICAL_VALUES
from warehouse.store.markets import CHANNELS, MARKETS

ROOT = Path(__file__).resolve().parents[2]
CONDITIONS = (*CATEGORICAL_VALUES["condition"], None)


def market_sql() -> str:
    """The macro rendered as dbt renders it, for columns named channel, pricing_type and condition."""
    macro = (ROOT / "models" / "macros" / "market.sql").read_text()
    return Environment().from_string(macro + "{{ market_name('channel', 'pricing_type', 'condition') }}").render()


def market_of(channel: str, pricing_type: str, condition: str | None) -> str | None:
    """warehouse/store/markets.py's word for an offer: the one market of its channel and pricing type (and a card's
    condition), or None."""
    found = [name for name, market in MARKETS.items()
             if (market.channel, market.pricing_type) == (channel, pricing_type)
             and (not market.condition or condition in market.condition)]
    assert len(found) <= 1, found
    return found[0] if found else None


def test_the_macro_and_warehouse_markets_name_every_offer_alike():
    offers = list(itertools.product(CHANNELS, PRICING_TYPES, CONDITIONS))
    with duckdb.connect() as connection:
        rows = ", ".join(["(?, ?, ?)"] * len(offers))
        named = connection.execute(
            f"SELECT channel, pricing_type, condition, {market_sql()} FROM (VALUES {rows}) "
            "AS offers(channel, pricing_type, condition)", [value for offer in offers for value in offer]).fetchall()
    assert len(named) == len(offers)
    for channel, pricing_type, condition, market in named:
        assert market == market_of(channel, pricing_type, condition), (channel, pricing_type, condition)
    # every market is reached, and a card for parts, a marketplace reservation or a rented card is in none
    assert {market for *_, market in named} - {None} == set(MARKETS)
    assert market_of("retail", "purchase", "for_parts") is None and market_of("retail", "purchase", None) is None
    assert market_of("marketplace", "reserved_1y", None) is None and market_of("retail", "on_demand", None) is None


def test_channel_is_cloud_marketplace_or_retail_and_a_market_names_its_channel():
    assert CHANNELS == ("cloud", "marketplace", "retail") == CATEGORICAL_VALUES["channel"]
    assert tuple(dict.fromkeys(market.channel for market in MARKETS.values())) == CHANNELS  # every one, no other
    assert tuple(MARKETS) == CATEGORICAL_VALUES["market"]
    assert {name: market.channel for name, market in MARKETS.items() if name.startswith(("marketplace_", "retail_"))
            } == {"marketplace_on_demand": "marketplace", "marketplace_spot": "marketplace",
                  "retail_new": "retail", "retail_used": "retail"}


def test_the_next_build_drops_what_renamed_and_moved_models_left_in_an_older_warehouse():
    """marts.buy_signals (a table, now buy_signals_daily) and marts.source_runs (a view, now in schema monitoring)
    as an older build left them are dropped; the current models' relations stay."""
    with duckdb.connect() as connection:
        connection.execute("CREATE SCHEMA marts; CREATE SCHEMA monitoring")
        connection.execute("CREATE TABLE marts.buy_signals AS SELECT 1 AS x")
        connection.execute("CREATE VIEW marts.source_runs AS SELECT 1 AS x")
        connection.execute("CREATE TABLE marts.buy_signals_daily AS SELECT 1 AS x")
        connection.execute("CREATE VIEW monitoring.source_runs AS SELECT 1 AS x")
        drop_retired_models(connection)
        drop_retired_models(connection)  # again: nothing left to drop
        left = connection.execute("SELECT table_schema || '.' || table_name FROM information_schema.tables "
                                  "ORDER BY 1").fetchall()
    assert left == [("marts.buy_signals_daily",), ("monitoring.source_runs",)]
    assert {"marts.buy_signals", "marts.source_runs"} <= set(RETIRED_MODELS)
