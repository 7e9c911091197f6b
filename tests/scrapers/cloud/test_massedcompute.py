"""Massed Compute GPU inventory parser, on a documented example (Brev's Massed Compute test payload).
Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.massedcompute.api import MassedCompute, read_description
from scrapers.errors import MissingCredentials, ParseError
from warehouse.ingest.normalize import price_per_unit

EXAMPLE = "massedcompute/documented_example_brevdev_cloud_gpu_inventory.json"


def payload():
    return json.loads((FIXTURES / EXAMPLE).read_text())


def parse(data):
    return MassedCompute().parse([raw_document(json.dumps(data).encode())])


def test_example_priced_gpu_types_in_cents_per_instance_hour():
    offers = {o.instance_type: o for o in MassedCompute().parse([document(EXAMPLE)])}
    # the CPU-only type and the six entries without price_cents_per_hour give no offer
    assert set(offers) == {"gpu_1x_l40", "gpu_4x_h200_nvl_nvlink_discount", "gpu_1x_a6000_high_ram",
                           "gpu_1x_a6000_low_ram"}
    l40 = offers["gpu_1x_l40"]
    assert (l40.price, l40.price_unit, l40.gpu_count, l40.gpu_id) == (Decimal("0.86"), "instance_hour", 1, "l40-48gb")
    assert (l40.region, l40.in_stock, l40.pricing_type) == ("us-central-1", True, "on_demand")
    h200 = offers["gpu_4x_h200_nvl_nvlink_discount"]
    assert (h200.pricing_type, h200.gpu_count, h200.raw_gpu_name, h200.gpu_id) == (
        "spot", 4, "H200 NVL 141GB", "h200-nvl-141gb")
    assert h200.interconnect == "pcie_nvlink"
    assert price_per_unit(h200) == Decimal("0.195")  # 78 cents for the 4-GPU instance
    assert {offers["gpu_1x_a6000_high_ram"].gpu_id, offers["gpu_1x_a6000_low_ram"].gpu_id} == {"rtx-a6000-48gb"}


def test_no_capacity_is_one_out_of_stock_offer_and_descriptions_are_read_not_guessed():
    data = payload()
    data["gpu_inventory"]["gpu_1x_a5000"]["instance_type"]["price_cents_per_hour"] = 45
    offer = next(o for o in parse(data) if o.instance_type == "gpu_1x_a5000")
    assert (offer.region, offer.in_stock, offer.gpu_id) == (None, False, "rtx-a5000-24gb")
    assert read_description("8x DGX A100 (80GB)") == (8, "DGX A100 80GB", False, None)
    assert read_description("2x RTX A6000 (48GB) NVLink") == (2, "RTX A6000 48GB", True, None)
    assert read_description("4x H100 NVL") == (4, "H100 NVL", False, None)
    assert read_description("CPU-only instance") is None


@pytest.mark.parametrize("change", ["no_inventory", "inventory_list", "price_text", "no_instance_type"])
def test_changed_payload_raises_parse_error(change):
    data = payload()
    entry = data["gpu_inventory"]["gpu_1x_l40"]
    if change == "no_inventory":
        data = {"inventory": data["gpu_inventory"]}
    elif change == "inventory_list":
        data = {"gpu_inventory": list(data["gpu_inventory"].values())}
    elif change == "price_text":
        entry["instance_type"]["price_cents_per_hour"] = "86 cents"
    else:
        del entry["instance_type"]
    with pytest.raises(ParseError):
        parse(data)


def test_fetch_needs_its_token(monkeypatch):
    monkeypatch.delenv("MASSEDCOMPUTE_API_TOKEN", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(MassedCompute().fetch(None))
