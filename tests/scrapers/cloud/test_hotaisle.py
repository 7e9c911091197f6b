"""Hot Aisle's available-VMs API parser on gpuhunt's documented example, and its two credentials."""

from __future__ import annotations

import asyncio
import copy
from decimal import Decimal

import pytest
from conftest import document, fixture_json, json_document, raw_document

from scrapers.cloud.hotaisle.api import TEAM_ENV, HotAisle
from scrapers.errors import MissingCredentials, ParseError
from warehouse.ingest.normalize import price_per_unit

HOTAISLE = "hotaisle/documented_example_gpuhunt_available_vms.json"


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
    assert len(HotAisle().parse([json_document(payload + [cpu_only])])) == 1


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
        HotAisle().parse([json_document(payload)])


def test_hotaisle_needs_key_and_team(monkeypatch):
    monkeypatch.setenv("HOTAISLE_API_KEY", "k")
    monkeypatch.delenv(TEAM_ENV, raising=False)
    with pytest.raises(MissingCredentials, match=TEAM_ENV):
        asyncio.run(HotAisle().fetch(None))
