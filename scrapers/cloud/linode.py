"""Akamai Cloud (Linode) instance types (public, no key): on-demand prices of the GPU plans.

Facts (a real recording in linodego's test cassettes, tests/fixtures/linode/; Linode's OpenAPI description; the
api-evangelist/linode plan profile of 2026-09-17):
- `GET https://api.linode.com/v4/linode/types?page_size=500` (no auth) -> `{data: [{id ("g1-gpu-rtx6000-2"), label
  ("Dedicated 64GB + RTX6000 GPU x2", "RTX4000 Ada x1 Small"), class ("gpu", "standard", "accelerated", ...), gpus,
  vcpus, memory (MB), disk (MB), price: {hourly, monthly}, region_prices: [{id ("br-gru"), hourly, monthly}],
  addons: {backups: {...}}, successor}], page, pages, results}`; more pages follow as `?page=N`.
- `price.hourly` is USD per INSTANCE-hour (all the type's GPUs); the payload names no currency, Linode bills in USD.
- `price` is the default; `region_prices` lists the regions that charge otherwise (older answers have no
  `region_prices`). The default names no region: it is loaded with the region left empty.
- Trap: since 2026 the public catalogue gives the GPU class a 0 base price (api-evangelist/linode, 2026-09-17); a 0
  or null price is no price and is not loaded (nor is a 0 regional price).
- `gpus` is the GPU count; types with `gpus: 0` (CPU plans, the NETINT VPU "accelerated" class) are skipped.
- The payload names the GPU only in the type id and label: the families below are Linode's GPU plans (the OpenAPI's
  class text: "NVIDIA Quadro RTX 6000"; labels "RTX4000 Ada x1 Small"); an unknown family keeps its label as the
  raw name (gpu_id then stays empty and shows in `gpuprices status`, never guessed).
- The list says nothing of stock: in_stock is left unknown.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, load_json, money

API_URL = "https://api.linode.com/v4/linode/types?page_size=500"
_MAX_PAGES = 10  # 75 types in all today: one page
# type-id family -> the GPU it carries (Linode's plan names; see the module docstring)
GPU_FAMILIES = {
    "g1-gpu-rtx6000-": "Quadro RTX 6000",
    "g2-gpu-rtx4000a": "RTX 4000 Ada",
    "g3-gpu-rtxpro6000-blackwell-": "RTX PRO 6000 Blackwell",
}


def gpu_raw_name(type_id: str, label: str) -> str:
    for prefix, name in GPU_FAMILIES.items():
        if type_id.startswith(prefix):
            return name
    return label


def page_url(page: int) -> str:
    return API_URL if page == 1 else f"{API_URL}&page={page}"


class Linode(JsonApiSource):
    id = "linode"
    provider = "linode"
    description = "Akamai Cloud (Linode) GPU instance types (USD per instance-hour, per-region overrides)"
    pricing_types = ("on_demand",)
    hosts = ("api.linode.com",)
    status = (
        "parser tested on a real recording (linodego's cassette, RTX 6000 era, about 2022); offline replay serves it "
        "(stale capture); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "stale_capture", "REAL /v4beta/linode/types response (linode/linodego@40e9d24d ExampleListTypes_all.yaml, "
        "RTX 6000 plans, about 2022), replayed on every day",
        (Served(page_url(1), "stale_capture_linodego_list_types.json",
                fixture="linode/linode_types_capture_undated_linodego_example_list_types.json"),))
    api_url = page_url(1)
    records_key = "data"

    def request_headers(self) -> dict[str, str]:
        return {"accept": "application/json"}

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        payload = load_json(document, self.id)
        pages = int(payload.get("pages") or 1) if isinstance(payload, dict) else 1
        page = len(documents) + 1
        return page_url(page) if page <= pages and page <= _MAX_PAGES else None

    def parse_record(self, linode_type: dict, index: int, number: int) -> list[Offer]:
        type_id = str(field(linode_type, "id", self.id, "data[]"))
        gpus = field(linode_type, "gpus", self.id, type_id)
        if isinstance(gpus, bool) or not isinstance(gpus, int):
            raise ParseError(f"{self.id}: {type_id} gpus = {gpus!r} is not a count")
        if gpus <= 0:
            return []  # a CPU plan or an accelerator that is no GPU
        label = str(linode_type.get("label") or type_id)
        raw_name = gpu_raw_name(type_id, label)
        prices = [(None, field(field(linode_type, "price", self.id, type_id), "hourly", self.id, type_id))]
        for regional in as_list(linode_type.get("region_prices") or [], f"{type_id} region_prices", self.id):
            prices.append((str(field(regional, "id", self.id, f"{type_id} region_prices")),
                           field(regional, "hourly", self.id, f"{type_id} region_prices")))
        offers = []
        for region, hourly in prices:
            price = money(hourly, f"{type_id} {region or 'default'} hourly", self.id)
            if price is None or price <= 0:
                continue  # no public price (the GPU class's 0 base price)
            offers.append(Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{type_id}|{region or 'default'}",
                title=label, raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.id),
                gpu_count=Fraction(gpus), pricing_type="on_demand", price=price, currency="USD",
                price_unit="instance_hour", region=region, instance_type=type_id, document_index=index,
            ))
        return offers
