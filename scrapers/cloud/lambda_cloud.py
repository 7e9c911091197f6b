"""Lambda Cloud instance-types API (API key): on-demand prices of every instance type.

Facts (Lambda's OpenAPI v1.10.0, tests/fixtures/lambda/): `GET /api/v1/instance-types` returns
`{data: {<name>: {instance_type: {name, description, gpu_description, price_cents_per_hour, specs: {vcpus,
memory_gib, storage_gib, gpus}}, regions_with_capacity_available: [{name, description}]}}}`.
- The price is in US CENTS per INSTANCE-hour (3592 = $35.92 for 8 GPUs).
- The price is the same in every region; the region list is *current capacity*, often empty. An instance type
  with no capacity is still a price (kept with in_stock = false and no region), never dropped.
- The model and variant are in the name (gpu_8x_h100_sxm5); gpu_description ("H100 (80 GB SXM5)") is kept as the
  raw name shown to people.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_first
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Generated
from scrapers.parsing import field, money

API_URL = "https://cloud.lambda.ai/api/v1/instance-types"
_NAME = re.compile(r"^gpu_(\d+)x_(.+)$")


class LambdaCloud(JsonApiSource):
    id = "lambda"
    provider = "lambda"
    description = "Lambda Cloud instance-types API (cents per instance-hour)"
    pricing_types = ("on_demand",)
    hosts = ("cloud.lambda.ai", "cloud.lambdalabs.com")
    api_key_env = "LAMBDA_API_KEY"
    status = (
        "parser tested on a fixture in the documented OpenAPI format; offline replay serves API responses "
        "reconstructed from the real SkyPilot Lambda catalogs (flagged synthetic)"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "a100-sxm4-40gb"}), min_offers=5)
    offline = Generated("dev.recordings.from_skypilot:lambda_instance_types",
                        "/instance-types answers rebuilt from each dated SkyPilot Lambda catalog")
    api_url = API_URL

    def request_headers(self) -> dict[str, str]:
        return self.bearer_headers()

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        data = field(payload, "data", self.id)
        if not isinstance(data, dict):
            raise ParseError(f"{self.id}: data is not an object of instance types")
        offers = []
        for name, item in data.items():
            offers.extend(self._offers(name, item, index))
        return offers

    def _offers(self, name: str, item: dict, index: int) -> list[Offer]:
        instance = field(item, "instance_type", self.id, name)
        specs = field(instance, "specs", self.id, name)
        gpus = int(field(specs, "gpus", self.id, name))
        if gpus <= 0:
            return []  # CPU-only instance types
        cents = money(field(instance, "price_cents_per_hour", self.id, name), f"{name} price_cents_per_hour", self.id)
        if cents is None:
            raise ParseError(f"{self.id}: {name} has no price_cents_per_hour")
        description = instance.get("gpu_description") or name
        match = _NAME.match(name)
        raw_name, gpu_id = resolve_first([match.group(2) if match else None, description], "lambda")
        regions = [region.get("name") for region in item.get("regions_with_capacity_available") or []]
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider,
                offer_id=f"{name}|{region or 'no-capacity'}",
                title=f"{instance.get('description')} ({description})", raw_gpu_name=raw_name, gpu_id=gpu_id,
                gpu_count=Fraction(gpus), pricing_type="on_demand",
                price=cents / Decimal(100), currency="USD", price_unit="instance_hour",
                region=region, instance_type=name, in_stock=region is not None, document_index=index,
            )
            for region in (regions or [None])
        ]
