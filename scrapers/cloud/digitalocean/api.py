"""DigitalOcean GPU Droplets (API token): on-demand prices of every Droplet size with GPUs.

Facts (DigitalOcean's Go client godo, sizes_test.go, and gpuhunt's test; tests/fixtures/digitalocean/):
- `GET https://api.digitalocean.com/v2/sizes?per_page=200` -> `{sizes: [{slug ("gpu-h100x8-640gb"), vcpus, memory,
  price_hourly, price_monthly, regions[], available, description ("H100 GPU - 8X"), gpu_info: {count, model
  ("nvidia_h100", "amd_mi300x"), vram: {amount, unit}}}], links: {pages: {next}}, meta: {total}}`; pages follow
  `links.pages.next`.
- `price_hourly` is USD per INSTANCE-hour (all the size's GPUs); CPU sizes have no `gpu_info` and are skipped.
- `gpu_info.vram.amount` is the size's TOTAL GPU memory (640 GiB for 8 x H100): per GPU = amount / count.
- The model names no form factor ("nvidia_h100"): the H100 stays "H100 80GB" (unstated), never guessed SXM.
- `available: false` or no region: the size is still a price (in_stock false, no region), never dropped.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, load_json, money

API_URL = "https://api.digitalocean.com/v2/sizes?per_page=200"
_MAX_PAGES = 20  # ~150 sizes in all today: one page; a loop of `next` links must still end
_VENDOR_PREFIXES = ("nvidia_", "amd_", "intel_")


def gpu_raw_name(model: str, memory_gib: Fraction | None) -> str:
    """"nvidia_rtx_6000_ada", 48 -> "RTX 6000 ADA 48GB": the vendor prefix dropped, the per-GPU memory added."""
    name = model.lower()
    for prefix in _VENDOR_PREFIXES:
        name = name.removeprefix(prefix)
    name = name.replace("_", " ").upper()
    if memory_gib is None:
        return name
    return f"{name} {memory_gib.numerator if memory_gib.denominator == 1 else float(memory_gib):g}GB"


class DigitalOcean(JsonApiSource):
    id = "digitalocean"
    provider = "digitalocean"
    description = "DigitalOcean GPU Droplet sizes (USD per instance-hour)"
    pricing_types = ("on_demand",)
    hosts = ("api.digitalocean.com",)
    api_key_env = "DIGITALOCEAN_TOKEN"
    status = (
        "parser tested on documented examples (godo's and gpuhunt's test payloads, values may be invented); offline "
        "replay serves godo's (flagged synthetic); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "synthetic", "DigitalOcean's Go client (godo) test payload of GET /v2/sizes (documented example, values may be "
        "invented)",
        (Served(API_URL, "documented_example_godo_sizes_list.json",
                fixture="digitalocean/documented_example_godo_sizes_list.json"),))
    api_url = API_URL
    records_key = "sizes"

    def request_headers(self) -> dict[str, str]:
        return self.bearer_headers()

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        payload = load_json(document, self.id)
        url = ((payload.get("links") or {}).get("pages") or {}).get("next") if isinstance(payload, dict) else None
        return url if len(documents) < _MAX_PAGES else None

    def parse_record(self, size: dict, index: int, number: int) -> list[Offer]:
        slug = field(size, "slug", self.id, "sizes[]")
        gpu_info = size.get("gpu_info")
        if not gpu_info:
            return []  # a CPU Droplet
        count = int(field(gpu_info, "count", self.id, slug))
        if count <= 0:
            return []
        model = field(gpu_info, "model", self.id, slug)
        vram = gpu_info.get("vram") or {}
        if vram and str(vram.get("unit", "")).lower() not in ("gib", "gb"):
            raise ParseError(f"{self.id}: {slug} gpu_info.vram unit {vram.get('unit')!r} is not GiB")
        memory_gib = Fraction(int(vram["amount"]), count) if vram.get("amount") else None
        raw_name = gpu_raw_name(str(model), memory_gib)
        price = money(field(size, "price_hourly", self.id, slug), f"{slug} price_hourly", self.id)
        if price is None:
            raise ParseError(f"{self.id}: {slug} has no price_hourly")
        available = size.get("available") is True
        regions = size.get("regions") or []
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{slug}|{region or 'no-region'}",
                title=size.get("description") or slug, raw_gpu_name=raw_name,
                gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(count), pricing_type="on_demand",
                price=price, currency="USD", price_unit="instance_hour", region=region, instance_type=slug,
                in_stock=available and region is not None, document_index=index,
            )
            for region in (regions or [None])
        ]
