"""Massed Compute GPU inventory (API token): on-demand and spot prices of each instance type, per instance.

Facts (Massed Compute's API at vm.massedcompute.com/api/v1, docs vm-docs.massedcompute.com; Brev's Massed Compute
provider, brevdev/cloud v1/providers/massedcompute: its OpenAPI client and client_test.go):
- `GET https://vm.massedcompute.com/api/v1/gpu-inventory` with `Authorization: Bearer <token>` ->
  `{gpu_inventory: {<product name>: {instance_type: {name ("gpu_1x_l40"), description ("1x L40 (48GB)"),
  price_cents_per_hour, specs: {vcpu_count, memory_gib, storage_gb}}, regions_with_capacity_available:
  [{name, description}], capacity_available}}}`. One answer, no pages.
- `price_cents_per_hour` is US CENTS per INSTANCE-hour (all its GPUs): 86 -> $0.86 (Brev's test).
- The description is the only statement of the GPUs: "<count>x <model> (<memory>GB)" then optional "NVLink"
  and an optional "[tag]": "[Spot]" is a spot offer; "[Premium]", "[ALT Config]" are other CPU/RAM variants of
  the same GPUs (their own instance types). "CPU-only instance" (no "<n>x") is skipped. A model without a memory
  size ("4x H100 NVL") is kept as written (never guessed).
- An entry without `price_cents_per_hour` is skipped (nothing to record; the API schema has it optional).
- Capacity: one offer per region in `regions_with_capacity_available` (in stock); none: one offer with no region,
  out of stock. Interconnect from the words: SXM -> sxm, NVL / NVLink on PCIe cards -> pcie_nvlink.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import interconnect_of
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, money

API_URL = "https://vm.massedcompute.com/api/v1/gpu-inventory"
_DESCRIPTION = re.compile(
    r"^\s*(?P<count>\d+)\s*x\s+(?P<model>.+?)(?:\s*\((?P<memory>\d+)\s*GB\))?(?P<nvlink>\s+NVLink)?"
    r"(?:\s*\[(?P<tag>[^\]]+)\])?\s*$",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[a-z0-9]+")


def read_description(description: str) -> tuple[int, str, bool, str | None] | None:
    """"4x H200 NVL (141GB) NVLink [Spot]" -> (4, "H200 NVL 141GB", True, "Spot"); None for a CPU-only type."""
    match = _DESCRIPTION.match(description or "")
    if match is None:
        return None
    model = match.group("model").strip()
    name = f"{model} {match.group('memory')}GB" if match.group("memory") else model
    return int(match.group("count")), name, bool(match.group("nvlink")), match.group("tag")


class MassedCompute(JsonApiSource):
    id = "massedcompute"
    provider = "massedcompute"
    description = "Massed Compute GPU inventory (US cents per instance-hour)"
    pricing_types = ("on_demand", "spot")
    hosts = ("vm.massedcompute.com",)
    api_key_env = "MASSEDCOMPUTE_API_TOKEN"
    status = (
        "parser tested on a documented example (Brev's Massed Compute test payload, values may be invented); "
        "offline replay serves it (flagged synthetic); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "synthetic", "brevdev/cloud test payload of GET /api/v1/gpu-inventory (documented example, values may be "
        "invented)",
        (Served(API_URL, "documented_example_brevdev_gpu_inventory.json",
                fixture="massedcompute/documented_example_brevdev_cloud_gpu_inventory.json"),))
    api_url = API_URL

    def request_headers(self) -> dict[str, str]:
        return self.bearer_headers()

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        inventory = field(payload, "gpu_inventory", self.id)
        if not isinstance(inventory, dict):
            raise ParseError(f"{self.id}: gpu_inventory is {type(inventory).__name__}, expected an object")
        offers = []
        for key, entry in inventory.items():
            offers.extend(self._offers(key, entry, index))
        return offers

    def _offers(self, key: str, entry: dict, index: int) -> list[Offer]:
        where = f"gpu_inventory[{key!r}]"
        instance = field(entry, "instance_type", self.id, where)
        name = str(field(instance, "name", self.id, where))
        description = str(field(instance, "description", self.id, where))
        read = read_description(description)
        if read is None:
            return []  # a CPU-only instance type
        count, raw_name, _, tag = read
        if count <= 0:
            return []
        cents = money(instance.get("price_cents_per_hour"), f"{where} price_cents_per_hour", self.id)
        if cents is None:
            return []  # listed without a price
        regions = as_list(entry.get("regions_with_capacity_available") or [], f"{where} regions", self.id)
        region_names = [str(field(region, "name", self.id, where)) for region in regions]
        spot = (tag or "").strip().lower() == "spot"
        gpu_id = resolve_gpu_id(raw_name, self.id)
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{name}|{region or 'no-region'}",
                title=description or name, raw_gpu_name=raw_name, gpu_id=gpu_id,
                gpu_count=Fraction(count), pricing_type="spot" if spot else "on_demand",
                price=cents / Decimal(100), currency="USD", price_unit="instance_hour", region=region,
                instance_type=name, in_stock=region is not None, document_index=index,
                interconnect=interconnect_of(description),
            )
            for region in (region_names or [None])
        ]
