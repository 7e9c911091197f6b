"""Hot Aisle available virtual machines (API token and team handle): on-demand prices of AMD GPU VMs.

Facts (gpuhunt's collector and its test, tests/fixtures/hotaisle/; Hot Aisle's API docs at admin.hotaisle.app):
- `GET https://admin.hotaisle.app/api/teams/<team>/virtual_machines/available/` with `Authorization: Token <key>`
  -> `[{OnDemandPrice, Specs: {cpu_cores, ram_capacity (bytes), disk_capacity (bytes), cpus: {count, model},
  gpus: [{count, model ("MI300X")}]}}]`; `null` when no VM is available.
- `OnDemandPrice` is in US CENTS per VM-hour (199 = $1.99 for one MI300X).
- Only VMs available right now are listed: `null` parses as no offers (not a ParseError); the integrity check
  then reports the run as empty, which it is.
- The API names no location (Hot Aisle runs one site); the region is left empty rather than made up.
"""

from __future__ import annotations

import os
from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer, Source
from scrapers.errors import MissingCredentials, ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import HttpClient, RawDocument
from scrapers.parsing import as_list, field, load_json, money

API_BASE = "https://admin.hotaisle.app/api"
TEAM_ENV = "HOTAISLE_TEAM_HANDLE"


def available_url(team: str) -> str:
    return f"{API_BASE}/teams/{team}/virtual_machines/available/"


class HotAisle(Source):
    id = "hotaisle"
    provider = "hotaisle"
    description = "Hot Aisle available AMD GPU virtual machines (cents per VM-hour)"
    pricing_types = ("on_demand",)
    hosts = ("admin.hotaisle.app",)
    api_key_env = "HOTAISLE_API_KEY"
    extra_credential_envs = (TEAM_ENV,)
    status = (
        "parser tested on gpuhunt's documented example (one VM, values may be invented); offline replay serves it "
        "(flagged synthetic); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        key = self.require_key()
        team = os.environ.get(TEAM_ENV)
        if not team:
            raise MissingCredentials(f"{self.id}: skipped, set {TEAM_ENV} and {self.api_key_env}")
        return [await client.get(available_url(team), allowed_hosts=self.hosts,
                                 headers={"Authorization": f"Token {key}", "accept": "application/json"})]

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers = []
        for index, document in enumerate(documents):
            payload = load_json(document, self.id)
            for number, machine in enumerate(as_list(payload if payload is not None else [], "response", self.id)):
                offer = self._offer(machine, number, index)
                if offer is not None:
                    offers.append(offer)
        return offers

    def _offer(self, machine: dict, number: int, index: int) -> Offer | None:
        where = f"virtual machine {number}"
        specs = field(machine, "Specs", self.id, where)
        gpus = as_list(field(specs, "gpus", self.id, where), "Specs.gpus", self.id)
        if not gpus:
            return None  # a CPU-only VM
        models = {str(field(gpu, "model", self.id, where)) for gpu in gpus}
        if len(models) != 1:
            raise ParseError(f"{self.id}: {where} mixes GPU models {sorted(models)}")
        model = models.pop()
        count = sum(int(field(gpu, "count", self.id, where)) for gpu in gpus)
        cents = money(field(machine, "OnDemandPrice", self.id, where), f"{where} OnDemandPrice", self.id)
        if cents is None or count <= 0:
            raise ParseError(f"{self.id}: {where} has no OnDemandPrice or no GPU count")
        cpu = specs.get("cpus") or {}
        instance_type = f"{count}x {model} {specs.get('cpu_cores')}c {cpu.get('model', '')}".strip()
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=instance_type, title=instance_type,
            raw_gpu_name=model, gpu_id=resolve_gpu_id(model, self.id), gpu_count=Fraction(count),
            pricing_type="on_demand", price=cents / Decimal(100), currency="USD", price_unit="instance_hour",
            instance_type=instance_type, in_stock=True, document_index=index,
        )
