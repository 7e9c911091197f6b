"""Voltage Park: real responses saved by getcomputable/gpu-index (bare-metal locations, instant VM presets).
Origin: PROVENANCE.md."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.voltagepark import (
    LOCATIONS_URL,
    PRESETS_URL,
    VoltagePark,
)
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

LOCATIONS = "voltagepark/bare_metal_locations_capture_2026-08-22_gpu_index.json"
PRESETS = "voltagepark/instant_deploy_presets_capture_2026-08-25_gpu_index.json"


def fixture_json(path: str):
    return json.loads((FIXTURES / path).read_text())


def as_document(payload):
    return raw_document(json.dumps(payload).encode())


def test_bare_metal_one_offer_per_network_priced_per_gpu_hour():
    offers = VoltagePark().parse([document(LOCATIONS)])
    assert len(offers) == 2
    by_network = {o.offer_id.rsplit("|", 1)[1]: o for o in offers}
    ethernet, infiniband = by_network["ethernet"], by_network["infiniband"]
    assert (ethernet.price, ethernet.currency, ethernet.price_unit) == (Decimal("1.99"), "USD", "gpu_hour")
    assert infiniband.price == Decimal("2.49")
    # per GPU already: an 8-GPU node's price is never divided by 8
    assert ethernet.gpu_count == 8 and price_per_unit(ethernet) == Decimal("1.99")
    assert {o.gpu_id for o in offers} == {"h100-sxm5-80gb"} and {o.interconnect for o in offers} == {"sxm"}
    assert "infiniband" in infiniband.instance_type and "ethernet" in ethernet.instance_type
    assert (infiniband.cluster_network, ethernet.cluster_network) == ("infiniband", "ethernet")
    assert infiniband.offer_id == "bare-metal|a3111bd4-550a-47d0-838a-0a52bff2ae3f|infiniband"
    assert {o.region for o in offers} == {None}  # the location is an opaque UUID, not a place
    assert {o.in_stock for o in offers} == {False}  # both available-GPU counts were 0 in the capture


def test_available_gpus_set_in_stock_per_network():
    payload = fixture_json(LOCATIONS)
    payload["results"][0]["gpu_count_infiniband"] = 16
    offers = {o.offer_id.rsplit("|", 1)[1]: o for o in VoltagePark().parse([as_document(payload)])}
    assert offers["infiniband"].in_stock is True and offers["ethernet"].in_stock is False


def test_presets_are_instance_hour_prices_of_each_vm_size():
    offers = VoltagePark().parse([document(PRESETS)])
    assert len(offers) == 4
    by_count = {int(o.gpu_count): o for o in offers}
    assert sorted(by_count) == [1, 2, 4, 8]
    eight = by_count[8]
    assert (eight.price, eight.price_unit, eight.currency) == (Decimal("15.120000"), "instance_hour", "USD")
    assert price_per_unit(eight) == Decimal("1.89") == price_per_unit(by_count[1])
    assert {o.gpu_id for o in offers} == {"h100-sxm5-80gb"}
    assert {o.in_stock for o in offers} == {False}  # no location had a preset available
    assert eight.offer_id == "instant-vm|404645e3-4677-4f48-b023-15baaa6621e1"


def test_both_documents_together_and_their_indexes():
    offers = VoltagePark().parse([document(LOCATIONS), document(PRESETS)])
    assert len(offers) == 6 and len({o.offer_id for o in offers}) == 6
    assert {o.document_index for o in offers if o.price_unit == "gpu_hour"} == {0}
    assert {o.document_index for o in offers if o.price_unit == "instance_hour"} == {1}


def test_preset_available_somewhere_is_in_stock():
    payload = fixture_json(PRESETS)
    payload[1]["location_ids_with_availability"] = ["a3111bd4-550a-47d0-838a-0a52bff2ae3f"]
    offers = VoltagePark().parse([as_document(payload)])
    assert [o.in_stock for o in offers] == [False, True, False, False]


@pytest.mark.parametrize("change", ["has_next", "total", "new_price_field", "price_text", "no_price", "no_model",
                                    "envelope", "preset_two_models", "preset_no_rate"])
def test_changed_payload_raises_parse_error(change):
    locations, presets = fixture_json(LOCATIONS), fixture_json(PRESETS)
    row = locations["results"][0]
    if change == "has_next":
        locations["has_next"] = True
    elif change == "total":
        locations["total_result_count"] = 2
    elif change == "new_price_field":
        row["gpu_price_spot"] = "0.99"
    elif change == "price_text":
        row["gpu_price_ethernet"] = "contact us"
    elif change == "no_price":
        del row["gpu_price_infiniband"]  # gpu_count_infiniband (a number) must not stand in for it
    elif change == "no_model":
        row["specs_per_node"]["gpu_model"] = ""
    elif change == "envelope":
        locations = {"locations": locations["results"]}
    elif change == "preset_two_models":
        presets[0]["resources"]["gpus"]["a100-sxm4-80gb"] = {"count": 8}
    elif change == "preset_no_rate":
        del presets[0]["compute_rate_hourly"]
    with pytest.raises(ParseError):
        VoltagePark().parse([as_document(locations), as_document(presets)])


def test_price_as_a_json_number_reads_exactly():
    payload = fixture_json(LOCATIONS)
    payload["results"][0]["gpu_price_ethernet"] = 1.99
    offers = VoltagePark().parse([as_document(payload)])
    assert Decimal("1.99") in {o.price for o in offers}


class _RecordingClient:
    def __init__(self):
        self.calls = []

    async def get(self, url, *, allowed_hosts, headers=None, max_bytes=None):
        self.calls.append((url, allowed_hosts, headers))
        return document(LOCATIONS if url == LOCATIONS_URL else PRESETS, url=url)


def test_fetch_needs_no_key_and_asks_locations_then_presets():
    client = _RecordingClient()
    documents = asyncio.run(VoltagePark().fetch(client))
    assert [url for url, _, _ in client.calls] == [
        "https://cloud-api.voltagepark.com/api/v1/bare-metal/locations",
        "https://cloud-api.voltagepark.com/api/v1/instant-deploy-presets/",
    ] == [LOCATIONS_URL, PRESETS_URL]
    assert all("Authorization" not in (headers or {}) for _, _, headers in client.calls)
    assert {hosts for _, hosts, _ in client.calls} == {("cloud-api.voltagepark.com",)}
    assert len(VoltagePark().parse(documents)) == 6
