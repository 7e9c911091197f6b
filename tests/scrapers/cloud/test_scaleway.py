"""Scaleway's server-types parser on real recorded responses: gpu-index's fr-par-2 capture (2026-08-22, trimmed
to its GPU rows and a few CPU lookalikes) and scaleway-sdk-go's full fr-par-1 cassette (2025-09-05)."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, AnsweringClient, document, raw_document

from scrapers.cloud.scaleway import (
    PER_PAGE,
    Scaleway,
    gpu_raw_name,
    servers_url,
    zone_of,
)
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from warehouse.ingest.normalize import price_per_unit

SCALEWAY_HOST = "api.scaleway.com"
PAR2 = ("scaleway/servers_capture_2026-08-22_fr-par-2_page1_gpu_rows.json",
        "scaleway/servers_capture_2026-08-22_fr-par-2_page2_gpu_rows.json")
PAR1 = ("scaleway/servers_capture_2025-09-05_fr-par-1_page1.json",
        "scaleway/servers_capture_2025-09-05_fr-par-1_page2.json")


def pages(paths, zone):
    return [document(path, url=servers_url(zone, number)) for number, path in enumerate(paths, 1)]


def by_type(offers):
    return {o.instance_type: o for o in offers}


def as_document(payload, zone="fr-par-2"):
    return raw_document(json.dumps(payload).encode(), url=servers_url(zone, 1))


def test_fr_par_2_capture_every_gpu_type_and_no_cpu_type():
    offers = Scaleway().parse(pages(PAR2, "fr-par-2"))
    assert len(offers) == 17  # 16 GPU types on page 1, RENDER-S on page 2; 4 CPU types skipped
    assert {o.region for o in offers} == {"fr-par-2"}
    assert {o.currency for o in offers} == {"EUR"} and {o.price_unit for o in offers} == {"instance_hour"}
    assert not set(by_type(offers)) & {"BASIC2-A2C-4G", "BASIC3-X2C-4G", "POP2-HM-2C-16G", "POP2-HN-3"}


def test_h100_sxm_8_instance_price_divides_per_gpu():
    offer = by_type(Scaleway().parse(pages(PAR2, "fr-par-2")))["H100-SXM-8-80G"]
    assert (offer.price, offer.gpu_count) == (Decimal("25.3308"), 8)
    assert (offer.raw_gpu_name, offer.gpu_id, offer.interconnect) == ("H100-SXM 80GB", "h100-sxm5-80gb", "sxm")
    assert price_per_unit(offer) == Decimal("3.16635")
    assert offer.offer_id == "H100-SXM-8-80G|fr-par-2"


def test_form_factor_and_memory_from_gpu_info():
    offers = by_type(Scaleway().parse(pages(PAR2, "fr-par-2")))
    pcie = offers["H100-1-80G"]
    assert (pcie.raw_gpu_name, pcie.gpu_id, pcie.interconnect) == ("H100-PCIe 80GB", "h100-pcie-80gb", "pcie")
    assert pcie.price == Decimal("2.8665")
    assert (offers["L40S-4-48G"].gpu_id, price_per_unit(offers["L40S-4-48G"])) == ("l40s-48gb", Decimal("1.469916"))
    assert offers["L4-1-24G"].gpu_id == "l4-24gb" and offers["L4-1-24G"].interconnect is None
    b300 = offers["B300-SXM-8-288G"]  # 309237645312 bytes per GPU
    assert (b300.raw_gpu_name, b300.gpu_id) == ("B300-SXM 288GB", "b300-288gb")
    # RENDER-S: a P100 the payload does not say PCIe or SXM2 of; Scaleway's docs say PCIe (a scoped alias)
    render = offers["RENDER-S"]
    assert (render.raw_gpu_name, render.gpu_id, render.price, render.document_index) == (
        "P100 16GB", "p100-pcie-16gb", Decimal("1.221"), 1)
    assert resolve_gpu_id("P100 16GB") is None  # not guessed outside Scaleway


def test_fr_par_1_sdk_cassette_full_pages():
    offers = by_type(Scaleway().parse(pages(PAR1, "fr-par-1")))
    assert set(offers) == {"L4-1-24G", "L4-2-24G", "L4-4-24G", "L4-8-24G", "RENDER-S"}  # of 75 types
    l4x8 = offers["L4-8-24G"]
    assert (l4x8.price, l4x8.gpu_count, l4x8.region, l4x8.gpu_id) == (Decimal("6.0"), 8, "fr-par-1", "l4-24gb")
    assert price_per_unit(l4x8) == Decimal("0.75")
    assert offers["RENDER-S"].price == Decimal("1.2426")


def test_region_comes_from_the_url_only():
    assert zone_of(servers_url("pl-waw-2", 1)) == "pl-waw-2"
    (offer, *_rest) = Scaleway().parse([document(PAR2[1], url="https://example.test/doc")])
    assert offer.region is None and offer.offer_id == "RENDER-S|no-zone"


def test_gpu_raw_name():
    assert gpu_raw_name("L40S", 51539607552) == "L40S 48GB"
    assert gpu_raw_name("L4", None) == "L4"
    assert gpu_raw_name("H100-SXM", 85899345920 - 1) == "H100-SXM 80GB"  # not a whole GiB: nearest class


def test_mig_slice_is_skipped():
    payload = json.loads((FIXTURES / PAR2[0]).read_text())
    payload["servers"]["H100-1-80G"]["mig_profile"] = "nvidia-mig-1g-10gb"
    assert "H100-1-80G" not in by_type(Scaleway().parse([as_document(payload)]))


@pytest.mark.parametrize("change", ["servers_list", "no_servers", "price_text", "count_text", "no_gpu_info",
                                    "no_price"])
def test_changed_payload_raises_parse_error(change):
    payload = json.loads((FIXTURES / PAR2[0]).read_text())
    h100 = payload["servers"]["H100-SXM-8-80G"]
    if change == "servers_list":
        payload = {"servers": list(payload["servers"].values())}
    elif change == "no_servers":
        payload = {"server_types": payload["servers"]}
    elif change == "price_text":
        h100["hourly_price"] = "25,33 EUR"
    elif change == "count_text":
        h100["gpu"] = "8"
    elif change == "no_gpu_info":
        h100["gpu_info"] = None
    else:
        del h100["hourly_price"]
    with pytest.raises(ParseError):
        Scaleway().parse([as_document(payload)])


def test_a_type_on_two_pages_raises():
    page = document(PAR2[1], url=servers_url("fr-par-2", 1))
    with pytest.raises(ParseError, match="twice"):
        Scaleway().parse([page, page])


def test_fetch_stops_on_a_short_page_and_sends_no_token_without_one(monkeypatch):
    monkeypatch.delenv("SCW_SECRET_KEY", raising=False)
    full = json.dumps({"servers": {f"T{n}": {"gpu": 0} for n in range(PER_PAGE)}}).encode()
    short = (FIXTURES / PAR2[1]).read_bytes()
    client = AnsweringClient({servers_url("fr-par-2", 1): full, servers_url("fr-par-2", 2): short}, SCALEWAY_HOST)
    documents = asyncio.run(Scaleway(zones=["fr-par-2"]).fetch(client))
    assert [url for url, _ in client.asked] == [
        "https://api.scaleway.com/instance/v1/zones/fr-par-2/products/servers?per_page=100&page=1",
        "https://api.scaleway.com/instance/v1/zones/fr-par-2/products/servers?per_page=100&page=2",
    ]
    assert {headers for _, headers in client.asked} == {None}
    assert all(isinstance(d, RawDocument) for d in documents)
    assert [o.instance_type for o in Scaleway().parse(documents)] == ["RENDER-S"]


def test_fetch_sends_the_token_when_set_and_asks_every_zone(monkeypatch):
    monkeypatch.setenv("SCW_SECRET_KEY", "secret")
    short = (FIXTURES / PAR2[1]).read_bytes()
    client = AnsweringClient({servers_url("fr-par-1", 1): short, servers_url("pl-waw-2", 1): short}, SCALEWAY_HOST)
    asyncio.run(Scaleway(zones=["fr-par-1", "pl-waw-2"]).fetch(client))
    assert [zone_of(url) for url, _ in client.asked] == ["fr-par-1", "pl-waw-2"]
    assert {headers["X-Auth-Token"] for _, headers in client.asked} == {"secret"}


def test_full_pages_stop_at_the_page_cap_then_go_to_the_next_zone():
    full = json.dumps({"servers": {f"T{n}": {"gpu": 0} for n in range(PER_PAGE)}}).encode()
    answers = {servers_url(zone, page): full for zone in ("fr-par-2", "pl-waw-2") for page in range(1, 8)}
    client = AnsweringClient(answers, SCALEWAY_HOST)
    asyncio.run(Scaleway(zones=["fr-par-2", "pl-waw-2"]).fetch(client))
    # 5 pages a zone at the most (the module's cap: ~140 types a zone today)
    assert [url for url, _ in client.asked] == [
        servers_url(zone, page) for zone in ("fr-par-2", "pl-waw-2") for page in range(1, 6)]
