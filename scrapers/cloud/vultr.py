"""Vultr plans (public, no key): cloud GPU (`vcg`, often a fraction of one GPU) and bare-metal GPU servers.

Facts (Vultr API v2 docs, gpuhunt's fixture in tests/fixtures/vultr/):
- `GET https://api.vultr.com/v2/plans?type=vcg&per_page=500` -> `{plans: [{id, vcpu_count, ram, hourly_cost,
  monthly_cost, locations[], gpu_vram_gb, gpu_type ("NVIDIA_A100")}]}`: a vcg plan with 4 GB of an 80 GB A100 is
  1/20 of the GPU, so the GPU count is `gpu_vram_gb` / the full card's memory;
- `GET https://api.vultr.com/v2/plans-metal?per_page=500` -> `{plans_metal: [{id ("vbm-112c-2048gb-8-h100-gpu"),
  hourly_cost, hourly_cost_preemptible, locations[]}]}`: GPU model and count only in the id;
- prices are USD per instance-hour; `hourly_cost_preemptible` is the preemptible (spot) price.
"""

from __future__ import annotations

import asyncio
import re
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import HttpClient, RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, money

VCG_URL = "https://api.vultr.com/v2/plans?type=vcg&per_page=500"
METAL_URL = "https://api.vultr.com/v2/plans-metal?per_page=500"
# Full-card memory (GB) of the GPUs Vultr slices into vcg plans: the divisor for fractional counts.
FULL_CARD_GB = {"NVIDIA_A100": 80, "NVIDIA_A40": 48, "NVIDIA_A16": 16, "NVIDIA_L40S": 48, "NVIDIA_H100": 80}
_METAL_GPU = re.compile(r"-(\d+)-([a-z0-9]+)-gpu$")


class Vultr(JsonApiSource):
    id = "vultr"
    provider = "vultr"
    description = "Vultr cloud GPU (fractional) and bare-metal GPU plans, on-demand and preemptible"
    pricing_types = ("on_demand", "spot")
    hosts = ("api.vultr.com",)
    status = "parser tested on gpuhunt's fixture (exact shape, values may be invented); offline replay serves it (flagged synthetic)"
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "synthetic", "gpuhunt fixture (shape exact, values may be invented)",
        (Served(VCG_URL, "gpuhunt_fixture_vcg_plans.json", fixture="vultr/gpuhunt_vultr_plans_fixture.json",
                pick="vm_instances"),
         Served(METAL_URL, "gpuhunt_fixture_metal_plans.json", fixture="vultr/gpuhunt_vultr_plans_fixture.json",
                pick="bare_metal")))

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return list(await asyncio.gather(  # two independent lists, fetched at once
            client.get(VCG_URL, allowed_hosts=self.hosts), client.get(METAL_URL, allowed_hosts=self.hosts)
        ))

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        offers = []
        if isinstance(payload, dict) and "plans_metal" in payload:
            for plan in as_list(payload["plans_metal"], "plans_metal", self.id):
                offers.extend(self._metal(plan, index))
        elif isinstance(payload, dict) and "plans" in payload:
            for plan in as_list(payload["plans"], "plans", self.id):
                offers.extend(self._vcg(plan, index))
        else:
            raise ParseError(f"{self.id}: {document.url} has neither plans nor plans_metal")
        return offers

    def _offer(self, plan, index, *, raw_name, gpu_id, count, pricing_type, price) -> list[Offer]:
        plan_id = plan["id"]
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{plan_id}|{region}",
                title=plan_id, raw_gpu_name=raw_name, gpu_id=gpu_id, gpu_count=count, pricing_type=pricing_type,
                price=price, currency="USD", price_unit="instance_hour", region=region, instance_type=plan_id,
                document_index=index,
            )
            for region in plan.get("locations") or [None]
        ]

    def _vcg(self, plan: dict, index: int) -> list[Offer]:
        plan_id = field(plan, "id", self.id, "plans[]")
        gpu_type, vram = plan.get("gpu_type"), plan.get("gpu_vram_gb")
        if not gpu_type or not vram:
            return []  # a CPU plan
        price = money(field(plan, "hourly_cost", self.id, plan_id), f"{plan_id} hourly_cost", self.id)
        full = FULL_CARD_GB.get(gpu_type)
        count = Fraction(int(vram), full) if full else None  # unknown card: kept, no per-GPU figure
        raw_name = f"{gpu_type} {full}GB" if full else gpu_type
        gpu_id = resolve_gpu_id(raw_name, "vultr")
        if price is None:
            return []
        return self._offer(plan, index, raw_name=raw_name, gpu_id=gpu_id, count=count, pricing_type="on_demand",
                           price=price)

    def _metal(self, plan: dict, index: int) -> list[Offer]:
        plan_id = field(plan, "id", self.id, "plans_metal[]")
        match = _METAL_GPU.search(plan_id)
        if not match:
            return []  # a CPU-only server
        count, model = Fraction(int(match.group(1))), match.group(2)
        gpu_id = resolve_gpu_id(model, "vultr")
        offers = []
        for pricing_type, key in (("on_demand", "hourly_cost"), ("spot", "hourly_cost_preemptible")):
            price = money(plan.get(key), f"{plan_id} {key}", self.id)
            if price is not None:
                offers.extend(self._offer(plan, index, raw_name=model, gpu_id=gpu_id, count=count,
                                          pricing_type=pricing_type, price=price))
        return offers
