"""Hyperstack (NexGen Cloud Infrahub API, API key): per-GPU hourly prices from the pricebook, joined to the flavors.

Facts (Hyperstack's API docs at docs.hyperstack.cloud / infrahub-doc.nexgencloud.com: "Retrieve Pricebook", "List
Flavors", the PricebookModel and Flavor_Fields schemas; NexGenCloud/hyperstack-sdk-python docs/PricebookApi.md;
SkyPilot's fetch_hyperstack.py; tests/fixtures/hyperstack/):
- `GET https://infrahub-api.nexgencloud.com/v1/pricebook` with header `api_key: <key>` -> a BARE JSON array (no
  status/message envelope): `[{id, name, value, original_value, discount_applied, start_time, end_time}]`.
  `name` is the resource ("RTX-A4000", "H100-80G-PCIe", "H100-80G-PCIe-spot"), `value` the hourly price, the docs
  say "price value for the GPU per hour": USD per GPU-HOUR. `original_value` is the price before any discount:
  `value` can carry the calling account's discount (`discount_applied: true`), so the list price read is
  `original_value` where the entry has one, else `value`. Numbers or decimal strings: both read exactly.
- The pricebook also prices non-GPU resources (vCPU, RAM, storage, IPs, inference models): it never says which
  entries are GPUs. `GET https://infrahub-api.nexgencloud.com/v1/core/flavors` (same header) -> `{status, message,
  data: [{gpu, region_name, flavors: [{name, region_name, cpu, ram, disk, ephemeral, gpu, gpu_count,
  stock_available}]}]}` names them: an entry is a GPU price when a flavor's `gpu` is its name (SkyPilot joins the
  same way); without the flavors, only a name the GPU resolver knows counts. CPU flavors have `gpu` "" and count 0.
- One offer per GPU flavor the pricebook prices (price per GPU-hour, gpu_count the flavor's GPUs, region the
  flavor's, in_stock its `stock_available`); a priced GPU no flavor lists is one 1-GPU offer with no region.
- A "-spot" suffix is the spot price of the same GPU (pricing_type spot, the suffix dropped from the GPU name).
- The name says the form factor: "-SXM" -> sxm, "-NVLink" -> pcie_nvlink, "-PCIe" -> pcie; else not said.
- Currency: Hyperstack bills in USD (the payload names none).
- Traps: "RTX-A6000-ada" is the RTX 6000 Ada; "H200-141G-SXM5" needs an alias to resolve.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.interconnect import interconnect_of
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, list_field, load_json, money

API_BASE = "https://infrahub-api.nexgencloud.com/v1"
PRICEBOOK_URL = f"{API_BASE}/pricebook"
FLAVORS_URL = f"{API_BASE}/core/flavors"
SPOT_SUFFIX = "-spot"


class Hyperstack(JsonApiSource):
    id = "hyperstack"
    provider = "hyperstack"
    description = "Hyperstack pricebook joined to its GPU flavors (USD per GPU-hour)"
    pricing_types = ("on_demand", "spot")
    hosts = ("infrahub-api.nexgencloud.com",)
    api_key_env = "HYPERSTACK_API_KEY"
    status = (
        "parser tested on the API docs' documented pricebook example (one GPU, values may be old); offline replay "
        "serves it (flagged synthetic); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "synthetic", "Hyperstack API docs' pricebook example (documented example, values may be invented); the flavors "
        "answer is made up EMPTY (no documented example with a GPU)",
        (Served(PRICEBOOK_URL, "documented_example_hyperstack_docs_pricebook.json",
                fixture="hyperstack/documented_example_hyperstack_docs_pricebook.json"),
         Served(FLAVORS_URL, "synthetic_empty_flavors.json",
                body={"status": True, "message": "synthetic: no flavors", "data": []})))

    def urls(self) -> list[str]:
        return [PRICEBOOK_URL, FLAVORS_URL]

    def request_headers(self) -> dict[str, str]:
        return {"api_key": self.require_key(), "accept": "application/json"}

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        pricebooks, flavor_groups = [], []
        for index, document in enumerate(documents):
            payload = load_json(document, self.id)
            if isinstance(payload, list):
                pricebooks.append((index, payload))
            elif isinstance(payload, dict) and "data" in payload:
                flavor_groups.extend(list_field(payload, "data", self.id, "flavors response"))
            else:
                raise ParseError(f"{self.id}: {document.url} is neither the pricebook array nor the flavors response")
        if not pricebooks:
            raise ParseError(f"{self.id}: no pricebook among the documents")
        flavors = self._gpu_flavors(flavor_groups)
        offers = []
        for index, entries in pricebooks:
            for number, entry in enumerate(entries):
                offers.extend(self._offers(entry, number, index, flavors))
        return offers

    def _gpu_flavors(self, groups: list) -> dict[str, list[dict]]:
        """GPU name -> the flavors built on it (CPU flavors left out)."""
        by_gpu: dict[str, list[dict]] = {}
        for group in groups:
            for flavor in as_list(field(group, "flavors", self.id, "flavors data[]"), "data[].flavors", self.id):
                gpu = field(flavor, "gpu", self.id, "flavor")
                if gpu and int(field(flavor, "gpu_count", self.id, str(flavor.get("name")))) > 0:
                    by_gpu.setdefault(str(gpu), []).append(flavor)
        return by_gpu

    def _offers(self, entry: dict, number: int, index: int, flavors: dict[str, list[dict]]) -> list[Offer]:
        where = f"pricebook entry {number}"
        name = str(field(entry, "name", self.id, where))
        spot = name.lower().endswith(SPOT_SUFFIX)
        gpu_name = name[: -len(SPOT_SUFFIX)] if spot else name
        gpu_id = resolve_gpu_id(gpu_name, self.id)
        its_flavors = flavors.get(name) or flavors.get(gpu_name) or []
        if not its_flavors and gpu_id is None:
            return []  # not a GPU: vCPU, RAM, storage, an inference model...
        listed = entry.get("original_value")
        price = money(listed if listed not in (None, "") else field(entry, "value", self.id, where),
                      f"{name} price", self.id)
        if price is None:
            raise ParseError(f"{self.id}: {where} ({name}) has no price")
        if price <= 0:
            return []  # a resource priced at zero is not a rental price
        common = dict(
            source=self.id, channel="cloud", provider=self.provider, raw_gpu_name=gpu_name, gpu_id=gpu_id,
            pricing_type="spot" if spot else "on_demand", price=price, currency="USD", price_unit="gpu_hour",
            document_index=index, interconnect=interconnect_of(gpu_name),
        )
        if not its_flavors:
            return [Offer(offer_id=name, title=name, gpu_count=Fraction(1), **common)]
        return [
            Offer(
                offer_id=f"{name}|{flavor.get('name')}|{flavor.get('region_name')}", title=str(flavor.get("name")),
                gpu_count=Fraction(int(flavor["gpu_count"])), region=flavor.get("region_name") or None,
                instance_type=flavor.get("name"), in_stock=flavor.get("stock_available"), **common,
            )
            for flavor in its_flavors
        ]

