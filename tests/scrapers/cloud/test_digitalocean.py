"""DigitalOcean's sizes API parser on documented examples (godo's and gpuhunt's test payloads)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from conftest import document, fixture_json, json_document

from scrapers.cloud.digitalocean.api import DigitalOcean, gpu_raw_name
from scrapers.errors import MissingCredentials, ParseError
from scrapers.registry import source_by_id
from warehouse.ingest.normalize import price_per_unit

DO_GODO = "digitalocean/documented_example_godo_sizes_list.json"


DO_GPUHUNT = "digitalocean/documented_example_gpuhunt_sizes_response.json"


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
    (offer,) = DigitalOcean().parse([json_document(payload)])
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
        DigitalOcean().parse([json_document(payload)])


def test_digitalocean_needs_its_token(monkeypatch):
    monkeypatch.delenv("DIGITALOCEAN_TOKEN", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(source_by_id("digitalocean").fetch(None))
