"""TensorDock marketplace host nodes (legacy v0 API, no key): GPU prices per host node.

Facts (gpuhunt's fixture of one hostnode's `specs`, copied in tests/fixtures/tensordock/):
`GET https://marketplace.tensordock.com/api/v0/client/deploy/hostnodes` returns
`{hostnodes: {<id>: {location: {country, ...}, specs: {cpu: {amount, price}, gpu: {<model>: {amount, price,
vram}}, ram: {amount, price}, storage: {amount, price}}}}}`. Prices are per unit-hour: `gpu.price` per GPU,
`cpu.price` per vCPU, `ram.price` per GB, `storage.price` per GB.
A VM's price = GPUs + vCPUs + RAM + storage as the renter sizes it. We publish the GPU part per GPU-hour
(includes_host_vm = false) and a reference 1-GPU VM (includes_host_vm = true): 1 GPU, REFERENCE_VCPUS vCPUs, REFERENCE_RAM_GB GB RAM and
REFERENCE_STORAGE_GB GB disk, each capped by what the node has per GPU.
gpuhunt dropped this provider in 2026-02: the endpoint may be gone; a 404 fails the source, nothing else.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer, rental_channel
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://marketplace.tensordock.com/api/v0/client/deploy/hostnodes"
REFERENCE_VCPUS, REFERENCE_RAM_GB, REFERENCE_STORAGE_GB = 8, 32, 100


class TensorDock(JsonApiSource):
    id = "tensordock"
    provider = "tensordock"
    description = "TensorDock marketplace host nodes: per-component prices (GPU, vCPU, RAM, disk)"
    pricing_types = ("on_demand",)
    hosts = ("marketplace.tensordock.com",)
    status = (
        "parser tested on gpuhunt's hostnode specs fixture inside the documented envelope "
        "(synthetic_documented_format fixture); offline replay serves it (flagged synthetic)"
    )
    expectations = Expectations(frozenset(), min_offers=1)  # a marketplace: no GPU is always listed
    offline = Recording(
        "synthetic", "gpuhunt hostnode specs fixture in the documented hostnodes envelope (location made up)",
        (Served(API_URL, "synthetic_documented_format_hostnodes.json",
                fixture="tensordock/gpuhunt_tensordock_hostnode_specs_fixture.json",
                pick=lambda fixture: {"hostnodes": {"synthetic-node-1": {
                    "location": {"city": "Example City", "country": "United States"},
                    "specs": fixture["fixture:specs"]}}}),))
    api_url = API_URL

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        nodes = field(payload, "hostnodes", self.id)
        if not isinstance(nodes, dict):
            raise ParseError(f"{self.id}: hostnodes is not an object")
        offers = []
        for node_id, node in nodes.items():
            offers.extend(self._offers(node_id, node, index))
        return offers

    def _offers(self, node_id: str, node: dict, index: int) -> list[Offer]:
        specs = field(node, "specs", self.id, node_id)
        location = node.get("location") or {}
        region = ", ".join(str(location[k]) for k in ("city", "region", "country") if location.get(k)) or None

        def unit(part: str) -> tuple[Decimal, int]:
            spec = field(specs, part, self.id, node_id)
            price = money(field(spec, "price", self.id, f"{node_id} {part}"), f"{node_id} {part}.price", self.id)
            return price or Decimal(0), int(spec.get("amount") or 0)

        (cpu_price, cpus), (ram_price, ram_gb), (disk_price, disk_gb) = unit("cpu"), unit("ram"), unit("storage")
        offers = []
        for model, gpu in (field(specs, "gpu", self.id, node_id) or {}).items():
            price = money(field(gpu, "price", self.id, f"{node_id} {model}"), f"{node_id} {model}.price", self.id)
            amount = int(gpu.get("amount") or 0)
            if price is None:
                continue
            per_gpu = max(amount, 1)
            vcpus = min(REFERENCE_VCPUS, cpus // per_gpu)
            ram = min(REFERENCE_RAM_GB, ram_gb // per_gpu)
            disk = min(REFERENCE_STORAGE_GB, disk_gb // per_gpu)
            vm_price = price + cpu_price * vcpus + ram_price * ram + disk_price * disk
            common = dict(
                source=self.id, channel=rental_channel(self.provider), provider=self.provider, raw_gpu_name=model,
                gpu_id=resolve_gpu_id(model, "tensordock"), gpu_count=Fraction(1), pricing_type="on_demand",
                currency="USD", region=region, instance_type=f"hostnode {node_id}", in_stock=amount > 0,
                document_index=index,
            )
            offers.append(Offer(**common, offer_id=f"{node_id}|{model}|gpu", title=f"{model} GPU only",
                                price=price, price_unit="gpu_hour", includes_host_vm=False))
            offers.append(Offer(**common, offer_id=f"{node_id}|{model}|vm-1gpu",
                                title=f"1x {model}, {vcpus} vCPU, {ram} GB RAM, {disk} GB disk",
                                price=vm_price, price_unit="instance_hour", includes_host_vm=True))
        return offers
