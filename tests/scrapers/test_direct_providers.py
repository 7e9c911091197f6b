"""Parsers of issue 19's direct providers: Akash (a real saved response), DigitalOcean and Hot Aisle (documented
examples). Payloads and their origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import asyncio
import copy
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.akash import AkashGpuPrices
from scrapers.cloud.digitalocean import DigitalOcean, gpu_raw_name
from scrapers.cloud.hotaisle import TEAM_ENV, HotAisle
from scrapers.errors import MissingCredentials, ParseError
from scrapers.registry import source_by_id
from warehouse.normalize import price_per_unit

AKASH = "akash/akash_gpu_prices_capture_2026-09-28_h100.json"
DO_GODO = "digitalocean/documented_example_godo_sizes_list.json"
DO_GPUHUNT = "digitalocean/documented_example_gpuhunt_sizes_response.json"
HOTAISLE = "hotaisle/documented_example_gpuhunt_available_vms.json"


def fixture_json(path: str):
    return json.loads((FIXTURES / path).read_text())


def as_document(payload):
    return raw_document(json.dumps(payload).encode())


# -- Akash -------------------------------------------------------------------------------------------------------
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
    assert {o.channel for o in offers} == {"cloud"}  # the marts make it 'marketplace' (seeds/marketplace_providers)


def test_akash_gpu_count_is_units_times_count_and_divides_the_bid():
    payload = fixture_json(AKASH)
    bid = payload["models"][0]["providersWithBestBid"][0]["bestBid"]
    bid["data"]["resources_offer"][0]["resources"]["gpu"]["units"]["val"] = "2"
    bid["data"]["resources_offer"][0]["count"] = 4
    bid["hourlyPrice"] = 16
    offer = next(o for o in AkashGpuPrices().parse([as_document(payload)]) if o.price == 16)
    assert offer.gpu_count == 8 and price_per_unit(offer) == Decimal(2)


def test_akash_model_without_interface_stays_unresolved_never_guessed():
    payload = fixture_json(AKASH)
    del payload["models"][0]["interface"]
    offers = AkashGpuPrices().parse([as_document(payload)])
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
        AkashGpuPrices().parse([as_document(payload)])


# -- DigitalOcean ------------------------------------------------------------------------------------------------
def test_digitalocean_godo_example_gpu_sizes_only_instance_hour_per_region():
    offers = DigitalOcean().parse([document(DO_GODO)])
    assert len(offers) == 1  # the two CPU sizes are skipped
    offer = offers[0]
    assert (offer.instance_type, offer.region, offer.gpu_count) == ("gpu-h100x8-640gb-200", "tor1", 8)
    assert (offer.price, offer.price_unit) == (Decimal("52.7"), "instance_hour")
    assert price_per_unit(offer) == Decimal("6.5875")
    # "nvidia_h100" says no form factor: the unstated H100, not SXM5
    assert (offer.raw_gpu_name, offer.gpu_id) == ("H100 80GB", "h100-80gb-unstated")


def test_digitalocean_gpuhunt_example_per_gpu_memory_and_amd():
    offers = {o.instance_type: o for o in DigitalOcean().parse([document(DO_GPUHUNT)])}
    assert set(offers) == {"gpu-h100x8-640gb", "gpu-mi300x8-1536gb"}
    mi300x = offers["gpu-mi300x8-1536gb"]
    assert (mi300x.raw_gpu_name, mi300x.gpu_id) == ("MI300X 192GB", "mi300x-192gb")  # 1536 GiB / 8
    assert price_per_unit(mi300x) == Decimal("1.99")
    assert price_per_unit(offers["gpu-h100x8-640gb"]) == Decimal("2.99")


def test_digitalocean_unavailable_size_is_kept_out_of_stock():
    payload = fixture_json(DO_GODO)
    payload["sizes"][2].update(available=False, regions=[])
    (offer,) = DigitalOcean().parse([as_document(payload)])
    assert offer.region is None and offer.in_stock is False and offer.price == Decimal("52.7")


def test_digitalocean_gpu_raw_names():
    assert gpu_raw_name("nvidia_rtx_6000_ada", 48) == "RTX 6000 ADA 48GB"
    assert gpu_raw_name("nvidia_l40s", None) == "L40S"


@pytest.mark.parametrize("change", ["no_sizes", "no_price", "vram_in_mib", "price_text"])
def test_digitalocean_changed_payload_raises_parse_error(change):
    payload = fixture_json(DO_GODO)
    gpu_size = payload["sizes"][2]
    if change == "no_sizes":
        payload = {"droplet_sizes": payload["sizes"]}
    elif change == "no_price":
        del gpu_size["price_hourly"]
    elif change == "vram_in_mib":
        gpu_size["gpu_info"]["vram"] = {"amount": 655360, "unit": "mib"}
    else:
        gpu_size["price_hourly"] = "52,70"
    with pytest.raises(ParseError):
        DigitalOcean().parse([as_document(payload)])


def test_digitalocean_needs_its_token(monkeypatch):
    monkeypatch.delenv("DIGITALOCEAN_TOKEN", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(source_by_id("digitalocean").fetch(None))


# -- Hot Aisle ---------------------------------------------------------------------------------------------------
def test_hotaisle_example_cents_per_vm_hour():
    (offer,) = HotAisle().parse([document(HOTAISLE)])
    assert (offer.price, offer.price_unit, offer.gpu_count) == (Decimal("1.99"), "instance_hour", 1)
    assert (offer.raw_gpu_name, offer.gpu_id) == ("MI300X", "mi300x-192gb")
    assert offer.region is None  # the API names no location: not made up
    assert price_per_unit(offer) == Decimal("1.99")


def test_hotaisle_none_available_is_no_offers_and_cpu_vms_are_skipped():
    assert HotAisle().parse([raw_document(b"null")]) == []
    payload = fixture_json(HOTAISLE)
    cpu_only = copy.deepcopy(payload[0])
    cpu_only["Specs"]["gpus"] = []
    assert len(HotAisle().parse([as_document(payload + [cpu_only])])) == 1


@pytest.mark.parametrize("change", ["object_not_list", "no_price", "mixed_models", "no_specs"])
def test_hotaisle_changed_payload_raises_parse_error(change):
    payload = fixture_json(HOTAISLE)
    if change == "object_not_list":
        payload = {"virtual_machines": payload}
    elif change == "no_price":
        del payload[0]["OnDemandPrice"]
    elif change == "mixed_models":
        payload[0]["Specs"]["gpus"].append({"count": 1, "model": "MI325X"})
    else:
        del payload[0]["Specs"]
    with pytest.raises(ParseError):
        HotAisle().parse([as_document(payload)])


def test_hotaisle_needs_key_and_team(monkeypatch):
    monkeypatch.setenv("HOTAISLE_API_KEY", "k")
    monkeypatch.delenv(TEAM_ENV, raising=False)
    with pytest.raises(MissingCredentials, match=TEAM_ENV):
        asyncio.run(HotAisle().fetch(None))
