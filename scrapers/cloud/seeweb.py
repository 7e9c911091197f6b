"""Seeweb ECS plans (API token): cloud GPU servers, priced per instance-hour in EUR.

Facts (gpuhunt's fixture and client: `GET https://api.seeweb.it/ecs/v2/plans`, header `X-APITOKEN`):
`{status: "ok", plans: [{name, cpu, ram (MiB, string), disk, gpu (count, string), gpu_label ("L40s 48GB"),
hourly_price, available, available_regions: [{location}]}]}`. Plans with gpu "0" are CPU servers.
Seeweb's public prices are in EUR (an Italian provider): stored as EUR, converted to USD only where an FX rate
exists (no USD figure until the FX source lands).
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://api.seeweb.it/ecs/v2/plans"


class Seeweb(JsonApiSource):
    id = "seeweb"
    provider = "seeweb"
    description = "Seeweb ECS GPU plans (EUR per instance-hour)"
    pricing_types = ("on_demand",)
    hosts = ("api.seeweb.it",)
    api_key_env = "SEEWEB_API_TOKEN"
    status = "parser tested on gpuhunt's fixture (exact shape, values may be invented); offline replay serves it (flagged synthetic)"
    expectations = Expectations(frozenset({"l40s-48gb"}), min_offers=1)
    offline = Recording(
        "synthetic", "gpuhunt fixture (shape exact, values may be invented)",
        (Served(API_URL, "gpuhunt_fixture_plans.json", fixture="seeweb/gpuhunt_seeweb_plans_fixture.json",
                pick="fixture:plans_payload"),))
    api_url = API_URL
    records_key = "plans"

    def request_headers(self) -> dict[str, str]:
        return {"X-APITOKEN": self.require_key()}

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        if isinstance(payload, dict) and payload.get("status") not in (None, "ok"):
            raise ParseError(f"{self.id}: status {payload.get('status')!r}")
        return super().parse_payload(payload, index, document)

    def parse_record(self, plan: dict, index: int, number: int) -> list[Offer]:
        name = field(plan, "name", self.id, "plans[]")
        count = int(plan.get("gpu") or 0)
        if count <= 0 or not plan.get("gpu_label"):
            return []
        price = money(field(plan, "hourly_price", self.id, name), f"{name} hourly_price", self.id)
        if price is None:
            return []
        label = plan["gpu_label"]
        regions = [r.get("location") for r in plan.get("available_regions") or []] or [None]
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{name}|{region or 'none'}",
                title=f"{name}: {count}x {label}", raw_gpu_name=label, gpu_id=resolve_gpu_id(label, "seeweb"),
                gpu_count=Fraction(count), pricing_type="on_demand", price=price, currency="EUR",
                price_unit="instance_hour", region=region, instance_type=name,
                in_stock=bool(plan.get("available")) and region is not None, document_index=index,
            )
            for region in regions
        ]
