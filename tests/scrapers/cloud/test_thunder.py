"""Parser of Thunder Compute's public price list on thunder-cli's documented examples: the current `/v2/pricing`
body of its JSON contract test, and the mode-keyed v1 rates of its pricing test. Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.thunder import API_URL, ThunderCompute, gpu_raw_name
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

V2 = "thunder/documented_example_thunder_cli_v2_pricing.json"
V1 = "thunder/documented_example_thunder_cli_v1_pricing_rates.json"


def fixture_json(path: str):
    return json.loads((FIXTURES / path).read_text())


def as_document(payload):
    return raw_document(json.dumps(payload).encode())


def test_v2_example_one_a6000_configuration_per_instance_hour():
    offers = ThunderCompute().parse([document(V2)])
    assert len(offers) == 1  # additional_vcpus and disk_gb are add-on rates, not GPU offers
    offer = offers[0]
    assert (offer.offer_id, offer.instance_type, offer.title) == ("a6000_x1", "a6000_x1", "1x RTX A6000 48GB")
    assert (offer.price, offer.currency, offer.price_unit) == (Decimal("0.5"), "USD", "instance_hour")
    assert (offer.gpu_id, offer.gpu_count, offer.pricing_type) == ("rtx-a6000-48gb", 1, "on_demand")
    assert (offer.provider, offer.channel, offer.region, offer.in_stock) == ("thunder", "cloud", None, None)
    assert price_per_unit(offer) == Decimal("0.5")


def test_v1_example_modes_stay_separate_products_all_on_demand():
    offers = {o.offer_id: o for o in ThunderCompute().parse([document(V1)])}
    assert sorted(offers) == [
        "a100xl_x1_production", "a100xl_x1_prototyping", "a100xl_x2_prototyping", "a6000_x1_prototyping",
        "h100_x1_production", "h100_x1_prototyping", "h100_x2_prototyping",
    ]
    assert {o.pricing_type for o in offers.values()} == {"on_demand"}
    assert offers["h100_x1_prototyping"].price == Decimal("2.49")
    assert offers["h100_x1_production"].price == Decimal("3.49")
    assert offers["h100_x1_production"].title == "1x H100 80GB (production)"
    assert {o.gpu_id for o in offers.values()} == {"rtx-a6000-48gb", "a100-80gb-unstated", "h100-80gb-unstated"}


def test_v1_example_instance_price_divides_by_gpu_count():
    offers = {o.offer_id: o for o in ThunderCompute().parse([document(V1)])}
    two = offers["h100_x2_prototyping"]
    assert (two.price, two.price_unit, two.gpu_count) == (Decimal("4.98"), "instance_hour", 2)
    assert price_per_unit(two) == Decimal("2.49")
    assert price_per_unit(offers["a100xl_x2_prototyping"]) == Decimal("1.1")


def test_money_stays_exact():
    payload = {"pricing": {"h100_x8": 19.92, "disk_gb": 0.0001}}
    offer = ThunderCompute().parse([as_document(payload)])[0]
    assert offer.price == Decimal("19.92") and price_per_unit(offer) == Decimal("2.49")


def test_unknown_slugs_go_through_upper_cased_never_guessed():
    assert gpu_raw_name("l40s") == "L40S" and gpu_raw_name("h100") == "H100 80GB"
    offers = {o.offer_id: o for o in ThunderCompute().parse([as_document(
        {"pricing": {"l40s_x1": 1.49, "newgpu_x1": 3}})])}
    assert offers["l40s_x1"].gpu_id == "l40s-48gb"
    assert offers["newgpu_x1"].gpu_id is None and offers["newgpu_x1"].raw_gpu_name == "NEWGPU"


@pytest.mark.parametrize("change", ["bare_map", "pricing_list", "price_text", "only_add_ons", "empty"])
def test_changed_payload_raises_parse_error(change):
    payload = fixture_json(V2)
    if change == "bare_map":
        payload = payload["pricing"]  # no {"pricing": ...} envelope
    elif change == "pricing_list":
        payload = {"pricing": [{"a6000_x1": 0.5}]}
    elif change == "price_text":
        payload["pricing"]["a6000_x1"] = "fifty cents"
    elif change == "only_add_ons":
        del payload["pricing"]["a6000_x1"]
    elif change == "empty":
        payload = {"pricing": {}}
    with pytest.raises(ParseError):
        ThunderCompute().parse([as_document(payload)])


def test_not_json_raises_parse_error():
    with pytest.raises(ParseError):
        ThunderCompute().parse([raw_document(b"<html>502</html>")])


class _RecordingClient:
    def __init__(self):
        self.calls = []

    async def get(self, url, *, allowed_hosts, headers=None, max_bytes=None):
        self.calls.append((url, allowed_hosts, headers))
        return document(V2, url=url)


def test_fetch_needs_no_key_and_asks_the_v2_price_list():
    client = _RecordingClient()
    documents = asyncio.run(ThunderCompute().fetch(client))
    assert API_URL == "https://api.thundercompute.com:8443/v2/pricing"
    [(url, hosts, headers)] = client.calls
    assert url == API_URL and hosts == ("api.thundercompute.com",)
    assert "Authorization" not in (headers or {})
    assert len(ThunderCompute().parse(documents)) == 1
