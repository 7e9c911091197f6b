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

from scrapers.base import Expectations, Offer
from scrapers.errors import MissingCredentials, ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import OFFLINE_PLACEHOLDER_KEY, Recording, Served
from scrapers.parsing import as_list, field, money

API_BASE = "https://admin.hotaisle.app/api"
TEAM_ENV = "HOTAISLE_TEAM_HANDLE"


def available_url(team: str) -> str:
    return f"{API_BASE}/teams/{team}/virtual_machines/available/"


class HotAisle(JsonApiSource):
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
    offline = Recording(  # offline, the team handle is the replay's placeholder credential
        "synthetic", "gpuhunt test payload of the available-VMs list (shape exact, values may be invented)",
        (Served(available_url(OFFLINE_PLACEHOLDER_KEY), "documented_example_gpuhunt_available_vms.json",
                fixture="hotaisle/documented_example_gpuhunt_available_vms.json"),))

    def request_headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.require_key()}", "accept": "application/json"}

    def urls(self) -> list[str]:
        team = os.environ.get(TEAM_ENV)
        if not team:
            raise MissingCredentials(f"{self.id}: skipped, set {TEAM_ENV} and {self.api_key_env}")
        return [available_url(team)]

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        return self.parse_records(as_list(payload if payload is not None else [], "response", self.id), index)

    def parse_record(self, machine: dict, index: int, number: int) -> list[Offer]:
        where = f"virtual machine {number}"
        specs = field(machine, "Specs", self.id, where)
        gpus = as_list(field(specs, "gpus", self.id, where), "Specs.gpus", self.id)
        if not gpus:
            return []  # a CPU-only VM
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
        return [Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=instance_type, title=instance_type,
            raw_gpu_name=model, gpu_id=resolve_gpu_id(model, self.id), gpu_count=Fraction(count),
            pricing_type="on_demand", price=cents / Decimal(100), currency="USD", price_unit="instance_hour",
            instance_type=instance_type, in_stock=True, document_index=index,
        )]
