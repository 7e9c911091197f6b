"""Vultr's cloud GPU and bare-metal plan parser on gpuhunt's fixture (tests/fixtures/vultr)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from conftest import by_id, fixture_json, json_document

from scrapers.cloud.vultr import Vultr
from warehouse.ingest.normalize import price_per_unit


def test_vultr_fractional_cloud_gpus_and_bare_metal_spot():
    fixture = fixture_json("vultr/gpuhunt_vultr_plans_fixture.json")
    offers = by_id(Vultr().parse([json_document(fixture["vm_instances"]), json_document(fixture["bare_metal"])]))
    slice_ = offers[("vcg-a100-1c-6g-4vram|ewr", "on_demand")]
    assert slice_.gpu_count == Fraction(1, 20)  # 4 GB of an 80 GB A100
    assert price_per_unit(slice_) == Decimal("2.46")
    h100 = offers[("vbm-112c-2048gb-8-h100-gpu|sea", "spot")]
    assert (h100.price, h100.gpu_count, h100.gpu_id) == (Decimal("18.4"), 8, "h100-sxm5-80gb")
    assert price_per_unit(h100) == Decimal("2.3")
