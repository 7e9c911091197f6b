"""Cudo Compute's machine-types parser on gpuhunt's fixture (tests/fixtures/cudo)."""

from __future__ import annotations

from decimal import Decimal

from conftest import by_id, fixture_json, json_document

from scrapers.cloud.cudo import CudoCompute


def test_cudo_sums_components_into_a_machine_price_and_keeps_the_gpu_part():
    machine_types = fixture_json("cudo/gpuhunt_cudo_machine_types_fixture.json")["fixture:machine_types"]
    offers = by_id(CudoCompute().parse([json_document({"machineTypes": machine_types})]))
    gpu_only = offers[("no-luster-1/epyc-rome-rtx-a5000|gpu", "on_demand")]
    assert (gpu_only.price, gpu_only.includes_host_vm, gpu_only.price_unit) == (Decimal("0.520000"), False, "gpu_hour")
    machine = offers[("no-luster-1/epyc-rome-rtx-a5000|1gpu-1vcpu-1gib", "on_demand")]
    # 0.52 GPU + 1 vCPU x 0.0021 + 1 GiB x 0.0034, all decimal strings, summed exactly
    assert machine.price == Decimal("0.525500") and machine.includes_host_vm is True
    assert machine.gpu_id == "rtx-a5000-24gb"
    rtx3080 = offers[("br-saopaulo-1/cascade-lake|gpu", "on_demand")]
    assert (rtx3080.gpu_id, rtx3080.raw_gpu_name) == ("rtx-3080-10gb", "RTX 3080")  # one alias for clouds and shops
