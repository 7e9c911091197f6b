"""Latitude.sh plans: a real recording (one CPU plan), GPU plans in the SDK's documented `specs.gpu` model, and a
/plans response reconstructed from the real pricing page of 2026-08-22 (its embedded plan objects, in the real 2024
capture's shape; the offline recording), every price it gives traced back to the saved page. Origin:
PROVENANCE.md."""

from __future__ import annotations

import asyncio
import copy
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document
from selectolax.lexbor import LexborHTMLParser

from scrapers.cloud.latitudesh import LatitudeSh, gpu_raw_name
from scrapers.errors import MissingCredentials, ParseError
from warehouse.ingest.normalize import price_per_unit

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


def test_raw_names():
    assert gpu_raw_name("NVIDIA RTX PRO 6000", 96) == "RTX PRO 6000 96GB"
    assert gpu_raw_name("NVIDIA H100 80GB", 80) == "H100 80GB"
    assert gpu_raw_name("L40S", None) == "L40S"


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


PAGE = "latitudesh/latitude_pricing_capture_2026-08-22_gpu_index_excerpt.html"


RECONSTRUCTED = "latitudesh/reconstructed_plans_from_pricing_page_2026-08-22.json"


GPU_SLUGS = ["g4-b300-large", "g4-rtx6kpro-large", "g3-h100-small"]


def page_plans() -> list[dict]:
    """The whole plan objects of the page's flight data (`plansData.servers`, a JS string: quotes escaped)."""
    text = LexborHTMLParser((FIXTURES / PAGE).read_text()).text()
    marker = '\\"servers\\":'
    flight = text[text.index(marker) + len(marker):].replace('\\"', '"')
    decoder, plans, position = json.JSONDecoder(), [], 1
    while True:  # the excerpt ends inside its 17th plan: only whole objects count
        try:
            plan, end = decoder.raw_decode(flight, position)
        except json.JSONDecodeError:
            return plans
        plans.append(plan)
        position = end + 1


def page_gpu_plans() -> dict[str, dict]:
    return {plan["attributes"]["slug"]: plan for plan in page_plans() if plan["attributes"]["specs"]["gpu"]}


def reconstructed() -> dict:
    return json.loads((FIXTURES / RECONSTRUCTED).read_text())


def test_the_page_holds_three_gpu_plans_among_its_whole_plans():
    plans = page_plans()
    assert len(plans) == 16  # + a 17th cut by the excerpt (a CPU plan)
    assert list(page_gpu_plans()) == GPU_SLUGS
    assert all(plan["type"] == "plans" and plan["id"].startswith("plan_") for plan in plans)


def test_reconstructed_plans_are_the_page_objects_in_the_capture_shape():
    capture, payload = json.loads((FIXTURES / CAPTURE).read_text()), reconstructed()
    assert list(payload) == list(capture) and payload["meta"] == capture["meta"]
    keys = list(capture["data"][0]["attributes"])
    page = page_gpu_plans()
    assert [plan["attributes"]["slug"] for plan in payload["data"]] == GPU_SLUGS
    for plan in payload["data"]:
        source = page[plan["attributes"]["slug"]]
        assert list(plan["attributes"]) == keys  # the page's extra available_operating_systems is left out
        assert plan == {"id": source["id"], "type": source["type"],
                        "attributes": {key: source["attributes"][key] for key in keys}}


def test_parse_gives_exactly_the_pages_usd_hourly_prices():
    offers = LatitudeSh().parse([document(RECONSTRUCTED)])
    page_prices = {
        (slug, region["name"]): Decimal(str(region["pricing"]["USD"]["hour"]))
        for slug, plan in page_gpu_plans().items()
        for region in plan["attributes"]["regions"]
        if region["pricing"]["USD"]["hour"]  # null (United Kingdom, RTX PRO 6000): not sold there
    }
    assert {(o.instance_type, o.region): o.price for o in offers} == page_prices
    assert len(offers) == 6
    assert {(o.currency, o.price_unit, o.pricing_type) for o in offers} == {("USD", "instance_hour", "on_demand")}
    page = page_gpu_plans()
    for offer in offers:
        gpu = page[offer.instance_type]["attributes"]["specs"]["gpu"]
        assert offer.gpu_count == gpu["count"]
        region = next(r for r in page[offer.instance_type]["attributes"]["regions"] if r["name"] == offer.region)
        assert offer.in_stock is bool(region["locations"]["in_stock"])


def test_page_prices_per_gpu_hour_and_names():
    offers = {(o.instance_type, o.region): o for o in LatitudeSh().parse([document(RECONSTRUCTED)])}
    b300 = offers["g4-b300-large", "United States"]
    assert (b300.price, b300.gpu_count, price_per_unit(b300)) == (Decimal(128), 8, Decimal(16))
    assert b300.raw_gpu_name == "HGX B300 288GB" and b300.interconnect is None  # "800Gbps Dual Plane RoCE": network
    assert b300.in_stock is False  # priced, no site in stock
    h100 = offers["g3-h100-small", "United States"]
    assert (h100.price, h100.gpu_count, h100.gpu_id) == (Decimal("3.37"), 1, "h100-80gb-unstated")
    rtx_au = offers["g4-rtx6kpro-large", "Australia"]
    assert (price_per_unit(rtx_au), rtx_au.gpu_id, rtx_au.in_stock) == (Decimal("8.25"), "rtx-pro-6000-96gb", True)
    assert ("g4-rtx6kpro-large", "United Kingdom") not in offers


def test_the_network_the_plan_names_is_the_cluster_network_not_the_gpu_link():
    offers = LatitudeSh().parse([document(RECONSTRUCTED)])
    b300 = {o.cluster_network for o in offers if o.raw_gpu_name.startswith("HGX B300")}
    assert b300 == {"roce"}  # "800Gbps Dual Plane RoCE"
    assert {o.interconnect for o in offers if o.raw_gpu_name.startswith("HGX B300")} == {None}
    assert {o.cluster_network for o in offers if not o.raw_gpu_name.startswith("HGX B300")} == {None}
