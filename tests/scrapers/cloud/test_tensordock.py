"""TensorDock's host-node parser on gpuhunt's specs fixture in the documented envelope."""

from __future__ import annotations

from decimal import Decimal

from conftest import by_id, fixture_json, json_document

from scrapers.cloud.tensordock import TensorDock


def test_tensordock_gpu_part_and_reference_vm():
    specs = fixture_json("tensordock/gpuhunt_tensordock_hostnode_specs_fixture.json")["fixture:specs"]
    payload = {"hostnodes": {"node-a": {"location": {"city": "Dallas", "country": "United States"}, "specs": specs}}}
    offers = by_id(TensorDock().parse([json_document(payload)]))
    gpu = offers[("node-a|l40-pcie-48gb|gpu", "on_demand")]
    assert gpu.price == Decimal("1.05") and gpu.gpu_id == "l40-48gb" and gpu.includes_host_vm is False
    vm = offers[("node-a|l40-pcie-48gb|vm-1gpu", "on_demand")]
    # 1.05 + 8 vCPU x 0.003 + 32 GB x 0.002 + 100 GB x 0.00005
    assert vm.price == Decimal("1.143") and vm.region == "Dallas, United States"
