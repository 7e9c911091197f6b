"""Prime Intellect availability parser, on a real recorded answer (Prime's CLI test data, 8 of 608 offers).
Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import asyncio
import copy
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.aggregators import renting_provider
from scrapers.cloud.primeintellect import PrimeIntellect, gpu_raw_name, page_url
from scrapers.errors import MissingCredentials, ParseError
from warehouse.ingest.normalize import price_per_unit

CAPTURE = "primeintellect/availability_gpus_capture_undated_prime_cli_8_of_608.json"


def payload():
    return json.loads((FIXTURES / CAPTURE).read_text())


def parse(data):
    return PrimeIntellect().parse([raw_document(json.dumps(data).encode())])


def test_real_capture_resold_runpod_offers_priced_per_offer_hour():
    offers = PrimeIntellect().parse([document(CAPTURE)])
    assert len(offers) == 8
    assert {(o.provider, o.via) for o in offers} == {("runpod", "primeintellect")}  # resold: runpod rents them
    assert len({o.offer_id for o in offers}) == 8
    first = offers[0]
    assert (first.raw_gpu_name, first.gpu_id, first.interconnect) == ("A100 80GB PCIe", "a100-pcie-80gb", "pcie")
    assert (first.price, first.currency, first.price_unit, first.gpu_count) == (
        Decimal("1.6567999999999998"), "USD", "instance_hour", 1)  # the float noise kept exactly, never rounded
    assert (first.region, first.in_stock, first.seller_type) == ("US-KS-2", True, "secure_cloud")
    by_name = {}
    for offer in offers:
        by_name.setdefault(offer.gpu_id, []).append(offer)
    assert {gpu: len(rows) for gpu, rows in by_name.items()} == {
        "a100-pcie-80gb": 1, "a100-sxm4-80gb": 4, "h100-sxm5-80gb": 2, "h100-pcie-80gb": 1}
    assert {o.price for o in by_name["h100-sxm5-80gb"]} == {Decimal("2.7068")}
    assert {o.interconnect for o in by_name["h100-sxm5-80gb"]} == {"sxm"}


def test_multi_gpu_offer_price_is_for_the_whole_offer():
    data = payload()
    data["items"][5].update(gpuCount=8, gpuMemory=640)
    data["items"][5]["prices"]["onDemand"] = 21.6544
    offer = next(o for o in parse(data) if o.gpu_count == 8)
    assert price_per_unit(offer) == Decimal("2.7068")


def test_own_capacity_is_primeintellect_without_via_and_aggregated_clouds_take_our_ids():
    def renter(named):
        return renting_provider(named, "primeintellect")
    assert renter("primecompute") == ("primeintellect", None)
    assert renter("dc_roan") == ("primeintellect", None)
    assert renter("lambdalabs") == ("lambda", "primeintellect")
    assert renter("datacrunch") == ("verda", "primeintellect")
    assert renter("latitude") == ("latitudesh", "primeintellect")  # the id of the direct Latitude.sh source
    assert renting_provider("dc_roan", "shadeform") == ("dc_roan", "shadeform")  # dc_ is Prime's own naming
    data = payload()
    data["items"][0]["provider"] = "primecompute"
    offer = parse(data)[0]
    assert (offer.provider, offer.via) == ("primeintellect", None)


def test_spot_community_unpriced_and_unknown_stock():
    data = payload()
    spot, community, unpriced = (copy.deepcopy(data["items"][0]) for _ in range(3))
    spot.update(isSpot=True, stockStatus="Unavailable")
    community.update(security="community_cloud")
    community["prices"].update(onDemand=None, communityPrice=0.99)
    unpriced["prices"].update(onDemand=None, communityPrice=None)
    offers = parse({"items": [spot, community, unpriced], "totalCount": 3})
    assert len(offers) == 2  # the offer with no price at all is skipped
    assert (offers[0].pricing_type, offers[0].in_stock) == ("spot", None)
    assert (offers[1].price, offers[1].seller_type) == (Decimal("0.99"), "community_cloud")
    assert gpu_raw_name("RTX6000Ada_48GB", None) == "RTX6000Ada 48GB"


@pytest.mark.parametrize("change", ["no_items", "list_body", "no_prices", "price_text", "no_gpu_type"])
def test_changed_payload_raises_parse_error(change):
    data = payload()
    item = data["items"][0]
    if change == "no_items":
        data = {"data": data["items"]}
    elif change == "list_body":
        data = data["items"]
    elif change == "no_prices":
        del item["prices"]
    elif change == "price_text":
        item["prices"]["onDemand"] = "about two dollars"
    else:
        del item["gpuType"]
    with pytest.raises(ParseError):
        parse(data)


def test_fetch_needs_its_key(monkeypatch):
    monkeypatch.delenv("PRIME_API_KEY", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(PrimeIntellect().fetch(None))
    assert page_url(2) == "https://api.primeintellect.ai/api/v1/availability/gpus?page=2&page_size=100"
