"""Latitude.sh bare-metal plans (API key): on-demand prices of the GPU servers, per region.

Facts (a real recording in latitudesh/terraform-provider-latitudesh's cassettes, tests/fixtures/latitudesh/; the
SDKs' plan model, latitudesh-python-sdk docs/models/gpu.md; getcomputable/gpu-index's notes on the live pricing
page of 2026-08-22, which renders the same plan objects):
- `GET https://api.latitude.sh/plans` with `Authorization` (the token; the cassettes redact the header's value, the
  bearer form is assumed) and `Api-Version: 2023-06-01` -> JSON:API `{data: [{id ("plan_..."), type ("plans"),
  attributes: {slug ("g3-h100-small"), name, features, specs: {cpu, memory, drives, nics, gpu: {count, type
  ("NVIDIA H100 80GB"), vram_per_gpu (GB), interconnect}}, regions: [{name ("United States"), deploys_instantly,
  locations: {available: [site], in_stock: [site]}, stock_level ("high", "low", "unavailable"), pricing: {USD:
  {hour, month, year}, BRL: {...}}}]}}], meta}`.
- CPU plans carry an empty `gpu` object (`{}`) and are skipped.
- `pricing.USD.hour` is USD per hour for the WHOLE server (all its GPUs): an instance-hour price. Only USD is
  loaded (BRL is the same price in reais); `month`/`year` (commitment prices) are not loaded.
- A region whose plan is not sold publishes a null USD price (and 0 BRL): no price, not loaded. A priced region
  can be out of stock: kept, in_stock false (no site in `locations.in_stock`).
- `interconnect` is free text: it may name the GPU link ("NVLink", "PCIe") or the network ("800Gbps Dual Plane
  RoCE"): a GPU link is the interconnect, a network (RoCE, InfiniBand) the cluster_network.
- The GPU name drops the vendor word and gains the per-GPU memory when it states none ("NVIDIA RTX PRO 6000", 96 ->
  "RTX PRO 6000 96GB").
- The virtual-machine plans (`/plans/virtual_machines`, a different `specs` shape) are not read.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import interconnect_of
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, money

API_URL = "https://api.latitude.sh/plans"
API_VERSION = "2023-06-01"


def gpu_raw_name(gpu_type: str, vram_gb: object) -> str:
    """"NVIDIA H100 80GB" -> "H100 80GB"; "NVIDIA RTX PRO 6000", 96 -> "RTX PRO 6000 96GB"."""
    name = gpu_type.strip()
    if name.upper().startswith("NVIDIA "):
        name = name[len("NVIDIA "):].strip()
    if "GB" not in name.upper() and isinstance(vram_gb, (int, float)) and not isinstance(vram_gb, bool) and vram_gb:
        name = f"{name} {vram_gb:g}GB"
    return name


def cluster_network(text: object) -> str | None:
    """The node network the free text names ("800Gbps Dual Plane RoCE" -> roce), else not said."""
    value = str(text or "").lower()
    if "infiniband" in value:
        return "infiniband"
    if "roce" in value:
        return "roce"
    return None


class LatitudeSh(JsonApiSource):
    id = "latitudesh"
    provider = "latitudesh"
    description = "Latitude.sh bare-metal GPU plans (USD per server-hour, per region)"
    pricing_types = ("on_demand",)
    hosts = ("api.latitude.sh",)
    api_key_env = "LATITUDESH_API_KEY"
    status = (
        "parser tested on a real recording (terraform provider cassette, 2024-08-19, one CPU plan: no GPU offer) and "
        "on GPU plans built from the SDK's documented model; no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "reconstructed", "NOT a capture: /plans rebuilt from the 3 GPU plan objects of a REAL copy of "
        "latitude.sh/pricing (2026-08-22, getcomputable/gpu-index@055204ad), values verbatim",
        (Served(API_URL, "reconstructed_2026-08-22_plans_from_pricing_page.json",
                fixture="latitudesh/reconstructed_plans_from_pricing_page_2026-08-22.json"),))
    api_url = API_URL
    records_key = "data"

    def request_headers(self) -> dict[str, str]:
        return {**self.bearer_headers(), "Api-Version": API_VERSION, "accept": "application/json"}

    def parse_record(self, plan: dict, index: int, number: int) -> list[Offer]:
        attributes = field(plan, "attributes", self.id, "data[]")
        slug = str(field(attributes, "slug", self.id, "data[].attributes"))
        gpu = field(field(attributes, "specs", self.id, slug), "gpu", self.id, slug)
        if not gpu:
            return []  # a CPU plan: `gpu: {}`
        if not isinstance(gpu, dict):
            raise ParseError(f"{self.id}: {slug} specs.gpu = {gpu!r} is not an object")
        count = field(gpu, "count", self.id, slug)
        if isinstance(count, bool) or not isinstance(count, (int, float)) or count != int(count) or count < 0:
            raise ParseError(f"{self.id}: {slug} specs.gpu.count = {count!r} is not a count")
        if count == 0:
            return []
        raw_name = gpu_raw_name(str(field(gpu, "type", self.id, slug)), gpu.get("vram_per_gpu"))
        offers = []
        for region in as_list(field(attributes, "regions", self.id, slug), f"{slug} regions", self.id):
            name = str(field(region, "name", self.id, f"{slug} regions[]"))
            pricing = field(region, "pricing", self.id, f"{slug} {name}")
            usd = pricing.get("USD") if isinstance(pricing, dict) else None
            if usd is not None and not isinstance(usd, dict):
                raise ParseError(f"{self.id}: {slug} {name} pricing.USD = {usd!r} is not an object")
            if not isinstance(pricing, dict):
                raise ParseError(f"{self.id}: {slug} {name} pricing = {pricing!r} is not an object")
            usd = usd or {}
            price = money(usd.get("hour"), f"{slug} {name} USD hour", self.id)
            if price is None or price <= 0:
                continue  # not sold in this region
            locations = region.get("locations") or {}
            in_stock = (bool(locations["in_stock"]) if "in_stock" in locations
                        else region.get("stock_level") not in (None, "unavailable"))
            offers.append(Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{slug}|{name}",
                title=str(attributes.get("name") or slug), raw_gpu_name=raw_name,
                gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(int(count)), pricing_type="on_demand",
                price=price, currency="USD", price_unit="instance_hour", region=name, instance_type=slug,
                in_stock=in_stock, interconnect=interconnect_of(str(gpu.get("interconnect") or "")),
                cluster_network=cluster_network(gpu.get("interconnect")), document_index=index,
            ))
        return offers
