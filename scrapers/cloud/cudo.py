"""Cudo Compute machine types (no key): component prices, summed into a 1-GPU machine price.

Facts (gpuhunt's fixture of `GET /v1/vms/machine-types`, tests/fixtures/cudo/): `{machineTypes: [...]}`,
one entry per data centre and machine type, prices are DECIMAL STRINGS per unit-hour: `gpuPriceHr` per GPU,
`vcpuPriceHr` per vCPU, `memoryGibPriceHr` per GiB. We publish two prices per entry:
- the GPU part alone (includes_host_vm = false), per GPU-hour;
- a 1-GPU machine with the smallest host Cudo allows (`minVcpuPerGpu` vCPUs, memory at `maxVcpuPerMemoryGib`
  -> vCPUs / ratio GiB, at least 1): GPU + vCPU + memory, per instance-hour (includes_host_vm = true). Storage and IPv4 are
  extra and not included (a user picks the disk size).
`maxGpuFree` = 0 means none free now: kept with in_stock = false.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://rest.compute.cudo.org/v1/vms/machine-types"


def _unit_price(entry: dict, key: str, source_id: str, where: str) -> Decimal:
    price = money(field(field(entry, key, source_id, where), "value", source_id, where), f"{where} {key}", source_id)
    if price is None:
        raise ParseError(f"{source_id}: {where} has no {key}")
    return price


class CudoCompute(JsonApiSource):
    id = "cudo"
    provider = "cudo"
    description = "Cudo Compute machine types: GPU + vCPU + memory unit prices per data centre"
    pricing_types = ("on_demand",)
    hosts = ("rest.compute.cudo.org",)
    status = "parser tested on gpuhunt's fixture (exact shape, values may be invented); offline replay serves it (flagged synthetic)"
    expectations = Expectations(frozenset(), min_offers=1)  # stock-driven catalog: no GPU is always listed
    offline = Recording(
        "synthetic", "gpuhunt fixture in the machine-types envelope (shape exact, values may be invented)",
        (Served(API_URL, "gpuhunt_fixture_machine_types.json", fixture="cudo/gpuhunt_cudo_machine_types_fixture.json",
                pick=lambda fixture: {"machineTypes": fixture["fixture:machine_types"]}),))
    api_url = API_URL
    records_key = "machineTypes"

    def parse_record(self, entry: dict, index: int, number: int) -> list[Offer]:
        region = field(entry, "dataCenterId", self.id, "machineTypes[]")
        machine = field(entry, "machineType", self.id, region)
        raw_name = entry.get("gpuModel")
        if not raw_name:
            return []  # CPU-only machine types
        where = f"{region}/{machine}"
        gpu = _unit_price(entry, "gpuPriceHr", self.id, where)
        vcpu = _unit_price(entry, "vcpuPriceHr", self.id, where)
        memory = _unit_price(entry, "memoryGibPriceHr", self.id, where)
        vcpus = int(entry.get("minVcpuPerGpu") or 1)
        ratio = Decimal(str(entry.get("maxVcpuPerMemoryGib") or 1))
        memory_gib = max(1, math.ceil(Decimal(vcpus) / ratio))
        machine_price = gpu + vcpu * vcpus + memory * memory_gib
        common = dict(
            source=self.id, channel="cloud", provider=self.provider, raw_gpu_name=raw_name,
            gpu_id=resolve_gpu_id(raw_name, "cudo"), gpu_count=Fraction(1), pricing_type="on_demand",
            currency="USD", region=region, instance_type=machine, in_stock=(entry.get("maxGpuFree") or 0) > 0,
            document_index=index,
        )
        return [
            Offer(**common, offer_id=f"{where}|gpu", title=f"{raw_name} GPU only", price=gpu,
                  price_unit="gpu_hour", includes_host_vm=False),
            Offer(**common, offer_id=f"{where}|1gpu-{vcpus}vcpu-{memory_gib}gib",
                  title=f"1x {raw_name}, {vcpus} vCPU, {memory_gib} GiB", price=machine_price,
                  price_unit="instance_hour", includes_host_vm=True),
        ]
