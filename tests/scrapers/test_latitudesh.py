"""Latitude.sh plans: a real recording (one CPU plan) and GPU plans in the SDK's documented `specs.gpu` model.
Origin: PROVENANCE.md."""

from __future__ import annotations

import asyncio
import copy
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.latitudesh import LatitudeSh, gpu_interconnect, gpu_raw_name
from scrapers.errors import MissingCredentials, ParseError
from warehouse.normalize import price_per_unit

CAPTURE = "latitudesh/plans_capture_2024-08-19_terraform_c2_small_x86.json"


def payload():
    return json.loads((FIXTURES / CAPTURE).read_text())


def as_document(data):
    return raw_document(json.dumps(data).encode())


def with_gpu_plan(gpu, slug="g3-test-large"):
    """The capture plus a copy of its plan given `specs.gpu` (the SDK's model: count, type, vram_per_gpu,
    interconnect); its regions and prices are the capture's own."""
    data = payload()
    plan = copy.deepcopy(data["data"][0])
    plan["attributes"].update(slug=slug, name=slug.replace("-", "."))
    plan["attributes"]["specs"]["gpu"] = gpu
    data["data"].append(plan)
    return data


def test_real_capture_cpu_plan_gives_no_offer():
    assert LatitudeSh().parse([document(CAPTURE)]) == []  # `gpu: {}`


def test_gpu_plan_one_offer_per_priced_region_usd_per_server_hour():
    data = with_gpu_plan({"count": 8, "type": "NVIDIA H100 80GB", "vram_per_gpu": 80, "interconnect": "NVLink"})
    offers = LatitudeSh().parse([as_document(data)])
    assert len(offers) == 10  # the capture's 10 regions, all priced in USD
    by_region = {o.region: o for o in offers}
    us = by_region["United States"]
    assert (us.price, us.currency, us.price_unit, us.gpu_count) == (Decimal("0.21"), "USD", "instance_hour", 8)
    assert price_per_unit(us) == Decimal("0.02625")
    assert (us.raw_gpu_name, us.gpu_id, us.interconnect) == ("H100 80GB", "h100-80gb-unstated", "nvlink")
    assert us.offer_id == "g3-test-large|United States" and us.instance_type == "g3-test-large"
    assert us.in_stock is True
    assert by_region["Germany"].in_stock is False  # priced but no site in stock ("unavailable")
    assert by_region["Australia"].price == Decimal("0.29")


def test_unpriced_region_is_skipped_and_brl_is_not_loaded():
    data = with_gpu_plan({"count": 1, "type": "NVIDIA RTX PRO 6000", "vram_per_gpu": 96, "interconnect": None})
    regions = data["data"][1]["attributes"]["regions"]
    regions[0]["pricing"]["USD"]["hour"] = None  # how an unsold region is published
    offers = LatitudeSh().parse([as_document(data)])
    assert len(offers) == 9 and {o.currency for o in offers} == {"USD"}
    assert {o.gpu_id for o in offers} == {"rtx-pro-6000-96gb"}
    assert {o.interconnect for o in offers} == {None}


def test_names_and_interconnects():
    assert gpu_raw_name("NVIDIA RTX PRO 6000", 96) == "RTX PRO 6000 96GB"
    assert gpu_raw_name("NVIDIA H100 80GB", 80) == "H100 80GB"
    assert gpu_raw_name("L40S", None) == "L40S"
    assert gpu_interconnect("800Gbps Dual Plane RoCE") is None  # a network, not the GPU link
    assert gpu_interconnect("PCIe") == "pcie"


@pytest.mark.parametrize("change", ["no_data", "no_specs", "count_text", "price_text", "gpu_list", "pricing_list"])
def test_changed_payload_raises_parse_error(change):
    data = with_gpu_plan({"count": 2, "type": "NVIDIA L40S", "vram_per_gpu": 48})
    attributes = data["data"][1]["attributes"]
    if change == "no_data":
        data = {"plans": data["data"]}
    elif change == "no_specs":
        del attributes["specs"]
    elif change == "count_text":
        attributes["specs"]["gpu"]["count"] = "two"
    elif change == "price_text":
        attributes["regions"][0]["pricing"]["USD"]["hour"] = "US$ 1"
    elif change == "gpu_list":
        attributes["specs"]["gpu"] = [{"count": 2}]
    else:
        attributes["regions"][0]["pricing"] = [{"USD": 1}]
    with pytest.raises(ParseError):
        LatitudeSh().parse([as_document(data)])


def test_needs_its_key(monkeypatch):
    monkeypatch.delenv("LATITUDESH_API_KEY", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(LatitudeSh().fetch(None))
