"""Google Cloud Billing Catalog (API key): Compute Engine GPU SKUs, and the A2/A3/G2 machines they come in.

Facts (the real SKU page in tests/fixtures/gcp/ and the Cloud Billing Catalog API docs):
- `GET https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus` -> `{skus: [...], nextPageToken}`;
  pages are chained with `pageToken`. The key goes in the `X-goog-api-key` header so it never lands on disk in a URL;
- a SKU: `description` ("Nvidia Tesla A100 GPU running in Americas"), `category.resourceGroup` (GPU / CPU / RAM),
  `category.usageType` (OnDemand / Preemptible / Commit1Yr / Commit3Yr), `serviceRegions` (the truth for where),
  price = `units` + `nanos` / 1e9 of the last tiered rate, `usageUnit` "h" (per GPU-hour) or "GiBy.h";
- B200 spot SKUs say OnDemand but their description starts "Spot Preemptible": the description wins;
- GPU SKUs price the GPU alone; A2/A3/G2 machines also bill their vCPUs and memory through family SKUs
  ("A2 Instance Core", "A2 Instance Ram"). We publish the GPU-only price (includes_host_vm = false) for every GPU SKU and
  region, and the whole machine (includes_host_vm = true) for the machine types below wherever all three parts are priced.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Generated
from scrapers.parsing import field, list_field, load_json, money

SERVICE_URL = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageSize=5000"
MAX_PAGES = 50
USAGE_TYPES = {"OnDemand": "on_demand", "Preemptible": "spot", "Commit1Yr": "reserved_1y", "Commit3Yr": "reserved_3y"}
TERM_MONTHS = {"reserved_1y": 12, "reserved_3y": 36}
_GPU_SKU = re.compile(r"^(?:Spot Preemptible |Commitment v\d: |Commitment: )?Nvidia (.+?) GPU\b")
_FAMILY_SKU = re.compile(r"^(?:Spot Preemptible |Commitment v\d: |Commitment: )?(A2|A3|G2) Instance (Core|Ram)\b")
# machine type -> (family SKU prefix, GPU name in SKU descriptions, GPUs, vCPUs, memory GiB): Google's machine tables.
MACHINES = {
    "a2-highgpu-1g": ("A2", "Tesla A100", 1, 12, 85),
    "a2-highgpu-2g": ("A2", "Tesla A100", 2, 24, 170),
    "a2-highgpu-4g": ("A2", "Tesla A100", 4, 48, 340),
    "a2-highgpu-8g": ("A2", "Tesla A100", 8, 96, 680),
    "a2-megagpu-16g": ("A2", "Tesla A100", 16, 96, 1360),
    "a3-highgpu-8g": ("A3", "H100 80GB", 8, 208, 1872),
    "g2-standard-4": ("G2", "L4", 1, 4, 16),
    "g2-standard-8": ("G2", "L4", 1, 8, 32),
    "g2-standard-12": ("G2", "L4", 1, 12, 48),
    "g2-standard-16": ("G2", "L4", 1, 16, 64),
    "g2-standard-24": ("G2", "L4", 2, 24, 96),
    "g2-standard-32": ("G2", "L4", 1, 32, 128),
    "g2-standard-48": ("G2", "L4", 4, 48, 192),
    "g2-standard-96": ("G2", "L4", 8, 96, 384),
}


def _sku_price(sku: dict, source_id: str) -> tuple[Decimal | None, str | None, str | None]:
    info = list_field(sku, "pricingInfo", source_id, sku.get("skuId", ""))
    if not info:
        return None, None, None
    expression = field(info[0], "pricingExpression", source_id, sku.get("skuId", ""))
    rates = expression.get("tieredRates") or []
    if not rates:
        return None, None, None
    unit_price = field(rates[-1], "unitPrice", source_id, sku.get("skuId", ""))
    units = money(unit_price.get("units") or "0", f"{sku.get('skuId')} units", source_id)
    nanos = Decimal(int(unit_price.get("nanos") or 0)) / Decimal(1_000_000_000)
    return units + nanos, unit_price.get("currencyCode"), expression.get("usageUnit")


class GoogleCloud(JsonApiSource):
    id = "gcp"
    provider = "gcp"
    description = "Google Cloud Billing Catalog: GPU SKUs per region (GPU-only) and A2/A3/G2 machines (bundled)"
    pricing_types = ("on_demand", "spot", "reserved_1y", "reserved_3y")
    hosts = ("cloudbilling.googleapis.com",)
    api_key_env = "GCP_API_KEY"
    status = (
        "parser tested on a real SKU page (opencost) and a synthetic documented-format commitment page; offline "
        "replay: that real page + GPU SKU pages reconstructed from the real SkyPilot GCP catalogs (flagged synthetic)"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "a100-sxm4-40gb", "l4-24gb", "t4-16gb"}), min_offers=50)
    offline = Generated("dev.recordings.from_skypilot:gcp_sku_pages",
                        "the real opencost SKU page + GPU SKU pages rebuilt from each dated SkyPilot GCP catalog")
    api_url = SERVICE_URL

    def request_headers(self) -> dict[str, str]:
        return {"X-goog-api-key": self.require_key()}

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        token = load_json(document, self.id).get("nextPageToken")
        if token and len(documents) >= MAX_PAGES:
            raise ParseError(f"{self.id}: more than {MAX_PAGES} pages")
        return f"{SERVICE_URL}&pageToken={token}" if token else None

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: list[Offer] = []
        # (family, Core|Ram, pricing type, region) -> rate; (GPU name, pricing type, region) -> (rate, sku index)
        family_rates: dict[tuple, Decimal] = {}
        gpu_rates: dict[tuple, tuple[Decimal, int]] = {}
        for index, document in enumerate(documents):
            for sku in list_field(load_json(document, self.id), "skus", self.id):
                offers.extend(self._sku_offers(sku, index, family_rates, gpu_rates))
        offers.extend(self._machine_offers(family_rates, gpu_rates))
        return offers

    def _sku_offers(self, sku: dict, index: int, family_rates: dict, gpu_rates: dict) -> list[Offer]:
        description = field(sku, "description", self.id, "skus[]")
        category = field(sku, "category", self.id, description)
        pricing_type = USAGE_TYPES.get(category.get("usageType"))
        if pricing_type is None or "Workstation" in description or "Reserved" in description:
            return []  # licence SKUs, reservations of capacity (not of price), other usage types
        if description.startswith("Spot Preemptible"):
            pricing_type = "spot"
        group = category.get("resourceGroup")
        gpu_match, family_match = _GPU_SKU.match(description), _FAMILY_SKU.match(description)
        if not (group == "GPU" and gpu_match) and not (group in ("CPU", "RAM") and family_match):
            return []
        price, currency, usage_unit = _sku_price(sku, self.id)
        if price is None:
            return []
        regions = sku.get("serviceRegions") or []
        if family_match:
            if currency == "USD":
                for region in regions:
                    family_rates[(family_match.group(1), family_match.group(2), pricing_type, region)] = price
            return []
        if usage_unit != "h":
            raise ParseError(f"{self.id}: GPU SKU {sku.get('skuId')} priced per {usage_unit!r}, expected 'h'")
        gpu_name = gpu_match.group(1)
        offers = []
        for region in regions:
            if currency == "USD":
                gpu_rates[(gpu_name, pricing_type, region)] = (price, index)
            offers.append(
                Offer(
                    source=self.id, channel="cloud", provider=self.provider,
                    offer_id=f"{sku.get('skuId')}|{region}", title=description, raw_gpu_name=gpu_name,
                    gpu_id=resolve_gpu_id(gpu_name, "gcp"), gpu_count=Fraction(1), pricing_type=pricing_type,
                    term_months=TERM_MONTHS.get(pricing_type), price=price, currency=currency or "USD",
                    price_unit="gpu_hour", region=region, includes_host_vm=False, document_index=index,
                )
            )
        return offers

    def _machine_offers(self, family_rates: dict, gpu_rates: dict) -> list[Offer]:
        offers = []
        for (gpu_name, pricing_type, region), (gpu_rate, index) in sorted(gpu_rates.items()):
            for machine, (family, machine_gpu, count, vcpus, memory_gib) in MACHINES.items():
                core = family_rates.get((family, "Core", pricing_type, region))
                ram = family_rates.get((family, "Ram", pricing_type, region))
                if machine_gpu != gpu_name or core is None or ram is None:
                    continue
                offers.append(
                    Offer(
                        source=self.id, channel="cloud", provider=self.provider, offer_id=f"{machine}|{region}",
                        title=f"{machine}: {count}x {gpu_name} + {vcpus} vCPU + {memory_gib} GiB",
                        raw_gpu_name=gpu_name, gpu_id=resolve_gpu_id(gpu_name, "gcp"), gpu_count=Fraction(count),
                        pricing_type=pricing_type, term_months=TERM_MONTHS.get(pricing_type),
                        price=gpu_rate * count + core * vcpus + ram * memory_gib, currency="USD",
                        price_unit="instance_hour", region=region, instance_type=machine, includes_host_vm=True,
                        document_index=index,
                    )
                )
        return offers
