"""Market prices that one odd offer cannot move (marts.gpu_market_prices_daily, int_provider_prices__daily).

Two days of twelve real catalog and page sources (the offline replay's last two days, through the real fetch, parse
and load code; one of them is SkyPilot's mithril catalog, which gives 1.00 USD to every GPU it lists), plus planted
providers loaded through the same pipeline: a provider that lowers every GPU by 20% from one day to the next (a
real cut) and the only provider of a Gaudi 3. The headlines (the overview's cheapest rentals, the training page's
cheapest way to train, `estimate`'s ranking, the market marts) are read; then a placeholder catalog (1.00 USD for
an L4, an H100, an H200 and a B200) and a 10x-low H100 offer are planted on the last day and the build is run
again: no headline may move."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest

from analytics.alerts.engine import evaluate
from analytics.alerts.rules import Rule
from analytics.estimate import EstimateRequest, estimate, format_rows, model_for
from dashboards.data import load_from
from scrapers.base import Expectations, Offer, Source
from scrapers.http import HttpClient, HttpSettings, RawDocument
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)
from tests.conftest import gpuprices
from warehouse.store import db
from warehouse.store.landing import land
from warehouse.store.markets import MARKETS
from warehouse.ingest.pipeline import fetch_and_land, ingest
from warehouse.store.progress import utc_now
from warehouse.store.status import status

pytestmark = pytest.mark.slow  # dbt builds

REAL_SOURCES = ("skypilot-lambda", "skypilot-gcp", "skypilot-azure", "skypilot-nebius", "skypilot-verda",
                "skypilot-hyperbolic", "skypilot-mithril", "coreweave", "crusoe", "nebius", "civo", "runpod")
CUT = Decimal("0.8")  # the planted provider lowers every GPU by 20% on the second day
CUTTER_PRICES = {"H100 SXM 80GB": Decimal("2.80"), "A100 SXM4 80GB": Decimal("1.60"), "L40S": Decimal("1.10")}


class PlantedSource(Source):
    """A source whose one document lists its offers as JSON: [{"provider", "gpu", "price"}] (on-demand, USD per
    GPU-hour, host VM included). Loaded by the real ingest (normalize, integrity check, load)."""

    kind = "cloud"
    pricing_types = ("on_demand",)
    expectations = Expectations(expected_gpu_ids=frozenset(), min_offers=1)

    def __init__(self, source_id: str):
        self.id = source_id

    def parse(self, documents):
        from scrapers.gpu_names import resolve_gpu_id
        return [
            Offer(source=self.id, channel="cloud", provider=row["provider"], offer_id=f"{row['provider']}|{row['gpu']}",
                  raw_gpu_name=row["gpu"], gpu_id=resolve_gpu_id(row["gpu"]), gpu_count=Fraction(1),
                  pricing_type="on_demand", price=Decimal(row["price"]), currency="USD", price_unit="gpu_hour",
                  region="planted-1", title=row["gpu"])
            for row in json.loads(documents[0].body)
        ]


def plant(source_id: str, observed_at, rows: list[dict]) -> None:
    body = json.dumps([{**row, "price": str(row["price"])} for row in rows]).encode()
    document = RawDocument(url=f"https://planted.test/{source_id}", status=200, body=body, fetched_at=utc_now(),
                           content_type="application/json")
    # a recorded-looking page, not a documented-format file of made-up figures (data_origin synthetic), which would
    # head no answer whatever its price (macros/market_offers.sql headline_gap): the price rules are what is tested
    run = land(source_id, observed_at, [document], "stale_capture")
    assert ingest(PlantedSource(source_id), run, "test", utc_now()).status == "loaded"


def load_real_days(days: list) -> None:
    template = replay_plan(load_recordings())[-1]

    async def one_day(observed_at, server: RecordedServer) -> None:
        async with HttpClient(HttpSettings(**OFFLINE_HTTP.__dict__), rewrite=rewrite_to(server.base_url)) as client:
            for source_id in REAL_SOURCES:
                source = all_sources({source_id: template.overrides.get(source_id) or {}})[source_id]
                run = await fetch_and_land(source, client, observed_at, "stale_capture")
                assert ingest(source, run, "test", utc_now()).status == "loaded", source_id

    with RecordedServer() as server, placeholder_credentials(list(all_sources().values())):
        server.routes = template.routes
        for observed_at in days:
            with db.writer_session():
                asyncio.run(one_day(observed_at, server))


def headlines() -> dict:
    """What a user reads first: the overview's cheapest rentals, the training page's cheapest setups, estimate's
    ranking and the credible market minimums."""
    with db.connect() as connection:
        page = load_from(connection)
        markets = connection.execute("""
            SELECT gpu_id, market, credible_min_price_usd, credible_min_provider
            FROM marts.gpu_market_prices_daily WHERE price_date = (SELECT max(price_date) FROM marts.gpu_market_prices_daily)
            ORDER BY ALL""").fetchall()
    ranked = estimate(EstimateRequest(model=model_for("llama-3.1-70b")))
    return {
        "rent_best": [(r["gpu_id"], r["channel"], r["min_price_usd"]) for r in page.rent_best],
        "training": [(m["model_id"], m["bf16"] and m["bf16"]["gpu_id"], m["bf16"] and m["bf16"]["cost_usd_on_demand_cheapest"])
                     for m in page.training_cheapest],
        "estimate": [(r["gpu_id"], r["cost_usd_cheapest"]) for r in ranked[:8]],
        "markets": markets,
    }


@pytest.fixture(scope="module")
def market(tmp_path_factory):
    last = replay_plan(load_recordings())[-1].observed_at
    first = last - timedelta(days=1)
    home = tmp_path_factory.mktemp("market") / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUPRICES_HOME", str(home))
        load_real_days([first, last])
        with db.writer_session():
            for observed_at, factor in ((first, Decimal(1)), (last, CUT)):
                plant("planted-cutter", observed_at, [{"provider": "cutter", "gpu": gpu, "price": price * factor}
                                                       for gpu, price in CUTTER_PRICES.items()])
                plant("planted-solo", observed_at, [{"provider": "solo", "gpu": "Gaudi 3", "price": "3.10"}])
        gpuprices(home, "build")  # the CLI in its own process: dbt keeps a read-write connection open in its process
        before = headlines()
        with db.writer_session():
            plant("planted-placeholder", last, [{"provider": "placeholdercloud", "gpu": gpu, "price": "1.00"}
                                                for gpu in ("L4", "H100 SXM 80GB", "H200 SXM 141GB", "B200")])
            plant("planted-lowball", last, [{"provider": "lowball", "gpu": "H100 SXM 80GB", "price": "0.35"}])
        gpuprices(home, "build")
        after = headlines()
        with db.connect() as connection:
            providers = db.fetch_dicts(connection, """
                SELECT * FROM intermediate.int_provider_prices__daily WHERE price_date = ? ORDER BY ALL""", [last.date()])
            by_source = db.fetch_dicts(connection, """
                SELECT * FROM marts.gpu_prices_by_source_daily WHERE price_date = ?""", [last.date()])
            gaudi = db.fetch_dicts(connection, """
                SELECT * FROM marts.gpu_market_prices_daily WHERE gpu_id = 'gaudi3-128gb' ORDER BY price_date""")
            market_words = connection.execute(
                "SELECT DISTINCT channel, pricing_type, condition, market FROM intermediate.int_offers__market_daily"
            ).fetchall()
        yield {"before": before, "after": after, "providers": providers, "by_source": by_source, "gaudi": gaudi,
               "status": status(), "market_words": market_words}


def test_a_placeholder_catalog_and_a_ten_times_low_offer_change_no_headline(market):
    before, after = market["before"], market["after"]
    assert before["rent_best"] and before["training"] and before["estimate"]
    for headline in ("rent_best", "training", "estimate", "markets"):
        assert after[headline] == before[headline], headline


def test_the_planted_and_the_real_placeholders_are_suspect_with_their_reasons(market):
    suspect = {(r["provider"], r["gpu_id"]): r["suspect_reason"] for r in market["providers"] if r["is_suspect"]}
    for gpu_id in ("l4-24gb", "h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb"):
        assert "placeholder: planted-placeholder gives 1.00 USD" in suspect[("placeholdercloud", gpu_id)]
    assert "below_market" in suspect[("lowball", "h100-sxm5-80gb")]
    assert suspect[("mithril", "h200-sxm-141gb")]  # the real catalog's 1.00 USD for every GPU
    # each keeps its row by source, with the reason
    kept = {(r["source"], r["gpu_id"]): r["suspect_reason"] for r in market["by_source"]}
    assert kept[("planted-lowball", "h100-sxm5-80gb")].startswith("below_market")
    assert "placeholder" in kept[("skypilot-mithril", "h100-sxm5-80gb")]
    listed = {(r["source"], r["gpu_id"]) for r in market["status"]["suspect_prices"]}
    assert {("planted-lowball", "h100-sxm5-80gb"), ("planted-placeholder", "h200-sxm-141gb")} <= listed


def test_a_provider_wide_twenty_percent_cut_is_not_suspect(market):
    cutter = [r for r in market["providers"] if r["provider"] == "cutter"]
    assert len(cutter) == len(CUTTER_PRICES)
    for row in cutter:
        assert row["own_recent_median_usd"] is not None  # it had a price the day before: the jump rule looked
        assert row["price_usd"] == (row["own_recent_median_usd"] * CUT).quantize(Decimal("0.000001"))
        assert not row["is_suspect"], row["suspect_reason"]


def test_a_gpu_only_one_provider_offers_is_priced_and_marked(market):
    assert [r["credible_min_price_usd"] for r in market["gaudi"]] == [Decimal("3.10")] * 2
    assert all(r["is_single_provider"] and r["credible_min_provider"] == "solo" for r in market["gaudi"])
    # training: the planted provider sells single Gaudi 3 cards with no cluster network, so no run is ranked on them
    training = estimate(EstimateRequest(model=model_for("llama-3.1-70b"), gpu="gaudi3-128gb"))
    assert not training[0]["is_feasible"] and training[0]["cost_usd_cheapest"] is None
    assert "cluster network" in training[0]["infeasible_reason"]
    # serving an 8B model on one 128 GB card is feasible, and priced at the one provider's price, marked as such
    rows = estimate(EstimateRequest(model=model_for("llama-3.1-8b"), gpu="gaudi3-128gb", inference=True))
    assert rows[0]["is_feasible"], rows[0]["infeasible_reason"]
    assert rows[0]["on_demand_provider_count"] == 1 and rows[0]["usd_per_million_output_tokens_cheapest"] is not None
    assert "(1 provider)" in format_rows(rows, inference=True)


def test_an_alert_watches_credible_prices_unless_it_opts_in_to_suspect_ones(market):
    day = max(r["price_date"] for r in market["providers"])
    credible = Rule(name="h200-under-1-10", gpu="h200-sxm-141gb", market="on_demand", condition="below", price="1.10")
    with_suspect = Rule(name="h200-under-1-10-any", gpu="h200-sxm-141gb", market="on_demand", condition="below",
                        price="1.10", include_suspect=True)
    fired = {event["rule_name"]: event for event in evaluate([day], [credible, with_suspect])}
    assert "h200-under-1-10" not in fired  # the cheapest credible H200 is far above 1.10
    assert fired["h200-under-1-10-any"]["price_usd"] == Decimal("1.000000")  # a placeholder's 1.00, on request
    # a rule written before the option keeps its fingerprint (its evaluated days are not evaluated again)
    before_the_option = {"name": "h200-under-1-10", "gpu": "h200-sxm-141gb", "market": "on_demand",
                         "condition": "below", "price": "1.10", "currency": "USD", "percent": None}
    assert credible.fingerprint == hashlib.sha256(json.dumps(before_the_option, sort_keys=True).encode()).hexdigest()[:16]
    assert with_suspect.fingerprint != credible.fingerprint


def test_the_marts_name_markets_with_the_words_of_warehouse_markets(market):
    """models/macros/market.sql and warehouse/store/markets.py (imports, alerts, price histories) say the same word."""
    assert market["market_words"]  # cloud on-demand and spot, marketplaces and more in the 12 real sources
    for channel, pricing_type, condition, market_word in market["market_words"]:
        named = MARKETS[market_word]
        assert (named.channel, named.pricing_type) == (channel, pricing_type), market_word
        assert condition in named.condition if named.condition else condition is None, (market_word, condition)
