"""Akash's GPU-prices parser on a real saved response (tests/fixtures/akash; origin in tests/fixtures/PROVENANCE.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import document, fixture_json, json_document

from scrapers.cloud.akash import AkashGpuPrices
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

AKASH = "akash/akash_gpu_prices_capture_2026-09-28_h100.json"


def test_akash_real_capture_one_offer_per_provider_best_bid_priced_per_gpu_hour():
    offers = AkashGpuPrices().parse([document(AKASH)])
    assert len(offers) == 4  # 4 providers with a best bid for the one model
    assert {o.gpu_id for o in offers} == {"h100-sxm5-80gb"}  # the model's interface says SXM5
    assert {o.raw_gpu_name for o in offers} == {"NVIDIA H100 80GB SXM5"}
    by_host = {o.region: o for o in offers}
    cheapest = by_host["provider.h100.siamaidol.com"]
    assert (cheapest.price, cheapest.price_unit, cheapest.gpu_count) == (Decimal("2.04"), "instance_hour", 1)
    assert price_per_unit(cheapest) == Decimal("2.04")
    assert sorted(o.price for o in offers) == [Decimal("2.04"), Decimal("2.56"), Decimal("2.56"), Decimal("3.16")]
    # allocated == allocatable: that provider's GPUs are all leased
    assert by_host["provider.h100.ams2.val.akash.pub"].in_stock is False
    assert by_host["provider.h100.ams.val.akash.pub"].in_stock is True
    assert len({o.offer_id for o in offers}) == 4
    assert {o.channel for o in offers} == {"marketplace"}  # a marketplace says so itself (scrapers/base.py rental_channel)


def test_akash_gpu_count_is_units_times_count_and_divides_the_bid():
    payload = fixture_json(AKASH)
    bid = payload["models"][0]["providersWithBestBid"][0]["bestBid"]
    bid["data"]["resources_offer"][0]["resources"]["gpu"]["units"]["val"] = "2"
    bid["data"]["resources_offer"][0]["count"] = 4
    bid["hourlyPrice"] = 16
    offer = next(o for o in AkashGpuPrices().parse([json_document(payload)]) if o.price == 16)
    assert offer.gpu_count == 8 and price_per_unit(offer) == Decimal(2)


def test_akash_model_without_interface_stays_unresolved_never_guessed():
    payload = fixture_json(AKASH)
    del payload["models"][0]["interface"]
    offers = AkashGpuPrices().parse([json_document(payload)])
    assert {o.raw_gpu_name for o in offers} == {"NVIDIA H100 80GB"}
    assert {o.gpu_id for o in offers} != {"h100-sxm5-80gb"} and {o.gpu_id for o in offers} != {"h100-pcie-80gb"}


@pytest.mark.parametrize("change", ["no_debug_form", "no_models", "price_text", "no_gpu"])
def test_akash_changed_payload_raises_parse_error(change):
    payload = fixture_json(AKASH)
    model = payload["models"][0]
    if change == "no_debug_form":
        del model["providersWithBestBid"]  # the non-debug answer: no per-provider asks
    elif change == "no_models":
        payload = {"gpus": payload["models"]}
    elif change == "price_text":
        model["providersWithBestBid"][0]["bestBid"]["hourlyPrice"] = "two dollars"
    else:
        model["providersWithBestBid"][0]["bestBid"]["data"]["resources_offer"][0]["resources"]["gpu"]["units"][
            "val"] = "0"
    with pytest.raises(ParseError):
        AkashGpuPrices().parse([json_document(payload)])
