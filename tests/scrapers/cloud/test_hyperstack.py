"""Hyperstack's parser on the API docs' documented pricebook example (tests/fixtures/PROVENANCE.md). The flavors
responses below are built in the documented List Flavors shape (values made up here, for the join only)."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.hyperstack.api import (
    FLAVORS_URL,
    PRICEBOOK_URL,
    Hyperstack,
)
from scrapers.errors import MissingCredentials, ParseError
from warehouse.ingest.normalize import price_per_unit

PRICEBOOK = "hyperstack/documented_example_hyperstack_docs_pricebook.json"


def pricebook() -> list:
    return json.loads((FIXTURES / PRICEBOOK).read_text())


def as_document(payload, url: str = PRICEBOOK_URL):
    return raw_document(json.dumps(payload).encode(), url)


def flavors_document(*flavors: dict):
    groups: dict[tuple, list] = {}
    for flavor in flavors:
        groups.setdefault((flavor["gpu"], flavor["region_name"]), []).append(flavor)
    data = [{"gpu": gpu, "region_name": region, "flavors": members} for (gpu, region), members in groups.items()]
    return as_document({"status": True, "message": "Success", "data": data}, FLAVORS_URL)


def flavor(name: str, gpu: str, count: int, region: str = "CANADA-1", stock: bool = True) -> dict:
    return {"id": 1, "name": name, "region_name": region, "cpu": 4, "ram": 4, "disk": 100, "ephemeral": 0,
            "gpu": gpu, "gpu_count": count, "stock_available": stock}


def test_documented_pricebook_alone_one_gpu_priced_per_gpu_hour():
    (offer,) = Hyperstack().parse([document(PRICEBOOK, PRICEBOOK_URL)])
    assert (offer.raw_gpu_name, offer.gpu_id) == ("RTX-A4000", "rtx-a4000-16gb")
    assert (offer.price, offer.price_unit, offer.currency, offer.pricing_type) == (
        Decimal("0.58"), "gpu_hour", "USD", "on_demand")
    assert offer.gpu_count == 1 and offer.region is None  # no flavor lists it: no region made up
    assert price_per_unit(offer) == Decimal("0.58")


def test_flavors_join_gives_one_offer_per_flavor_at_the_per_gpu_price():
    documents = [document(PRICEBOOK, PRICEBOOK_URL), flavors_document(
        flavor("n3-RTX-A4000x1", "RTX-A4000", 1), flavor("n3-RTX-A4000x4", "RTX-A4000", 4, "NORWAY-1", stock=False),
        flavor("n1-cpu-small", "", 0, "NORWAY-1"))]
    offers = {o.instance_type: o for o in Hyperstack().parse(documents)}
    assert set(offers) == {"n3-RTX-A4000x1", "n3-RTX-A4000x4"}  # the CPU flavor is skipped
    four = offers["n3-RTX-A4000x4"]
    assert (four.gpu_count, four.region, four.in_stock, four.price_unit) == (4, "NORWAY-1", False, "gpu_hour")
    assert price_per_unit(four) == Decimal("0.58")  # the pricebook price is already per GPU: never divided
    assert offers["n3-RTX-A4000x1"].in_stock is True


def test_non_gpu_entries_skipped_unknown_gpu_kept_via_flavors_and_spot_read():
    payload = pricebook() + [
        {"id": 11, "name": "vCPU", "value": "0.01"},
        {"id": 12, "name": "Cloud-SSD", "value": "0.0001"},
        {"id": 13, "name": "H200-141G-SXM5", "value": "3.50"},
        {"id": 14, "name": "RTX-A4000-spot", "value": "0.30"},
    ]
    documents = [as_document(payload), flavors_document(flavor("n3-H200x8", "H200-141G-SXM5", 8))]
    offers = {(o.raw_gpu_name, o.pricing_type): o for o in Hyperstack().parse(documents)}
    assert set(offers) == {("RTX-A4000", "on_demand"), ("RTX-A4000", "spot"), ("H200-141G-SXM5", "on_demand")}
    assert offers[("RTX-A4000", "spot")].price == Decimal("0.30")
    h200 = offers[("H200-141G-SXM5", "on_demand")]
    assert (h200.gpu_count, h200.interconnect, h200.price) == (8, "sxm", Decimal("3.50"))


def test_discounted_entry_reads_the_list_price():
    payload = pricebook()
    payload[0].update(value=0.50, discount_applied=True)
    (offer,) = Hyperstack().parse([as_document(payload)])
    assert offer.price == Decimal("0.58")


@pytest.mark.parametrize("change", ["enveloped", "no_name", "price_text", "no_price", "flavors_only"])
def test_changed_payload_raises_parse_error(change):
    payload = pricebook()
    documents = [as_document(payload)]
    if change == "enveloped":
        documents = [as_document({"pricebook": payload})]
    elif change == "no_name":
        del payload[0]["name"]
        documents = [as_document(payload)]
    elif change == "price_text":
        payload[0]["original_value"] = "fifty-eight cents"
        documents = [as_document(payload)]
    elif change == "no_price":
        payload[0].update(value=None, original_value=None)
        documents = [as_document(payload)]
    else:
        documents = [flavors_document(flavor("n3-RTX-A4000x1", "RTX-A4000", 1))]
    with pytest.raises(ParseError):
        Hyperstack().parse(documents)


def test_needs_its_key(monkeypatch):
    monkeypatch.delenv("HYPERSTACK_API_KEY", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(Hyperstack().fetch(None))
