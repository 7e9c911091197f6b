"""`gpuprices explain`'s recomputation (warehouse/ingest/explain.py) on offers made by hand: each figure recomputed from the
offers and their rules, each unit conversion from the price as given, and a mart that disagrees is a mismatch. The
whole command on a built warehouse, down to the landed bytes: tests/dashboards/test_stale_and_explained.py."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

from warehouse.ingest.explain import conversion_words, price_explanation, recomputed_unit_usd

DAY = date(2026, 5, 1)


def offer(provider: str, usd: str, rule: str = "counted", **changes) -> dict:
    """An offer as marts.offer_decisions_daily gives it: a 1-GPU on-demand rental priced in USD per instance-hour."""
    row = {
        "price_date": DAY, "gpu_id": "h100-sxm5-80gb", "market": "on_demand", "channel": "cloud",
        "pricing_type": "on_demand", "price_per": "gpu_hour", "provider": provider, "source": provider, "via": None,
        "offer_id": f"{provider}-1", "title": None, "region": None, "instance_type": None, "instance_family": "",
        "condition": None, "in_stock": None, "price_role": "selling", "includes_host_vm": True,
        "gpu_count": Decimal(1), "term_months": None, "price": Decimal(usd), "currency": "USD",
        "price_unit": "instance_hour", "price_per_unit": Decimal(usd), "fx_rate_date": None, "fx_usd_per_unit": None,
        "unit_price_usd": Decimal(usd), "rule": rule, "is_counted": rule == "counted", "rule_reason": rule,
        "is_provider_price": rule in ("counted", "suspect", "not_credible"), "provider_price_usd": Decimal(usd),
        "provider_price_source": provider,
        "observed_at": datetime(2026, 5, 1, 23, tzinfo=UTC), "is_carried_forward": False, "is_synthetic": False,
        "run_id": f"{provider}-run", "parser_version": 1, "data_origin": "captured", "landing_ref": "", "url": None,
    }
    row.update(changes)
    return row


OFFERS = [offer("a", "2.00"), offer("b", "3.00"), offer("b", "3.50", offer_id="b-2", is_provider_price=False),
          offer("c", "0.20", rule="suspect"), offer("d", "1.00", rule="needs_a_vm", includes_host_vm=False)]
MART = {"min_price_usd": Decimal("2.000000"), "median_price_usd": Decimal("2.500000"),
        "median_offer_price_usd": Decimal("3.000000"), "offer_count": 3, "provider_count": 2}
MARKET = {"provider_count": 3, "median_all_providers_price_usd": Decimal("2.000000"), "credible_min_price_usd": Decimal("2.000000")}


def figures(found: dict) -> dict:
    return {f["figure"]: f for f in found["figures"]}


def test_every_figure_is_recomputed_from_the_counted_offers_and_the_providers_prices():
    found = price_explanation("h100-sxm5-80gb", "on_demand", DAY, OFFERS, MART, MARKET,
                              now=datetime(2026, 5, 2, tzinfo=UTC))
    assert found["matches"], found["figures"]
    got = figures(found)
    assert got["cheapest"]["recomputed"] == Decimal("2.00") and found["cheapest_offer"]["provider"] == "a"
    assert got["median across offers"]["recomputed"] == Decimal("3.00")  # 2.00, 3.00, 3.50
    # the market median: one price per counted provider (a 2.00, b 3.00 of its two offers)
    assert got["credible providers' median"]["recomputed"] == Decimal("2.50")
    # one price per provider (a 2.00, b 3.00, c 0.20 suspect): the median 2.00; the credible minimum skips c
    assert got["all providers' median"]["recomputed"] == Decimal("2.00")
    assert got["credible minimum"]["recomputed"] == Decimal("2.00")
    assert found["rules"] == {"counted": 3, "suspect": 1, "needs_a_vm": 1}
    assert found["age"]["age_days"] == 1 and not found["age"]["is_stale"]


def test_a_mart_that_disagrees_with_its_offers_is_a_mismatch():
    found = price_explanation("h100-sxm5-80gb", "on_demand", DAY, OFFERS, {**MART, "min_price_usd": Decimal("0.2")},
                              MARKET)
    assert not found["matches"] and not figures(found)["cheapest"]["matches"]
    # within a micro-dollar is the same figure (the marts keep six decimals)
    close = price_explanation("h100-sxm5-80gb", "on_demand", DAY, OFFERS,
                              {**MART, "median_offer_price_usd": Decimal("3.0000005")}, MARKET)
    assert figures(close)["median across offers"]["matches"]


def test_a_unit_conversion_that_does_not_recompute_is_a_mismatch():
    wrong = offer("a", "2.00", price_per_unit=Decimal("1.00"), unit_price_usd=Decimal("1.00"))
    found = price_explanation("h100-sxm5-80gb", "on_demand", DAY, [wrong], {**MART, "min_price_usd": Decimal(1),
                              "median_price_usd": Decimal(1), "median_offer_price_usd": Decimal(1), "offer_count": 1,
                              "provider_count": 1}, None)
    assert not found["conversions_match"] and not found["matches"]


def test_a_card_priced_in_euros_for_two_gpus_converts_at_the_ecb_rate_per_card():
    card = offer("shop", "2000", price_per="card", price_unit="card", currency="EUR", gpu_count=Decimal(2),
                 price_per_unit=Decimal("1000.000000"), fx_rate_date=date(2026, 4, 30),
                 fx_usd_per_unit=Decimal("1.08"), unit_price_usd=Decimal("1080"), market="retail_new",
                 channel="retail", pricing_type="purchase")
    assert recomputed_unit_usd(card) == Decimal("1080")
    assert conversion_words(card) == ("2000 EUR per card / 2 GPUs x 1.08 USD/EUR (ECB 2026-04-30) "
                                      "= 1080 USD per card")
    term = offer("azure", "87600", price_unit="instance_term", term_months=12, gpu_count=Decimal(8),
                 price_per_unit=Decimal("1.25"), unit_price_usd=Decimal("1.25"), market="reserved_1y")
    assert recomputed_unit_usd(term) == Decimal("1.25")
    assert "/ (12 months x 730 h) / 8 GPUs" in conversion_words(term)


def test_a_shared_gpus_count_stored_to_six_decimals_recomputes_exactly():
    """Azure's NV6ads A10 v5 rents a sixth of an A10: raw.offers keeps the count as 0.166667 and the load's price
    per GPU-hour from the exact 1/6 (0.454 x 6 = 2.724, not 0.454 / 0.166667 = 2.723995)."""
    sixth = offer("azure", "0.454", gpu_count=Decimal("0.166667"), price_per_unit=Decimal("2.724000"),
                  unit_price_usd=Decimal("2.724"))
    found = price_explanation("a10-24gb", "on_demand", DAY, [{**sixth, "gpu_id": "a10-24gb"}],
                              {"min_price_usd": Decimal("2.724"), "median_price_usd": Decimal("2.724"),
                               "median_offer_price_usd": Decimal("2.724"), "offer_count": 1, "provider_count": 1},
                              None)
    assert found["offers"][0]["recomputed_price_per_unit"] == Decimal("2.724000") and found["conversions_match"]
    assert "0.454 USD per instance-hour / 1/6 GPUs" in found["offers"][0]["conversion"]
