"""Latitude.sh GPU plans: a /plans response reconstructed from the real pricing page of 2026-08-22 (its embedded plan
objects, in the real 2024 capture's shape), and every price it gives traced back to the saved page. Origin:
PROVENANCE.md."""

from __future__ import annotations

import json
from decimal import Decimal

from conftest import FIXTURES, document
from selectolax.lexbor import LexborHTMLParser

from scrapers.cloud.latitudesh import LatitudeSh
from warehouse.normalize import price_per_unit

PAGE = "latitudesh/latitude_pricing_capture_2026-08-22_gpu_index_excerpt.html"
RECONSTRUCTED = "latitudesh/reconstructed_plans_from_pricing_page_2026-08-22.json"
CAPTURE = "latitudesh/plans_capture_2024-08-19_terraform_c2_small_x86.json"
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
