"""Novita AI GPU instances (API key): on-demand and spot prices of each GPU product, per GPU.

Facts (Novita's API reference novita.ai/docs/api-reference/gpu-instance-list-products; the Novita Python SDK's test
php-workx/novita-sdk-python tests/unit/test_gpu_products.py; SkyPilot's fetch_novita.py):
- `GET https://api.novita.ai/gpu-instance/openapi/v1/products` with `Authorization: Bearer <key>` ->
  `{data: [{id, name ("A100 80GB", "RTX 4090 24GB"), cpuPerGpu, memoryPerGpu, diskPerGpu, availableDeploy,
  regions: ["US-CA-06 (California)", ...], price, spotPrice, billingMethods: ["onDemand", "spot", "monthly"],
  monthlyPrice: [...]}]}`. One answer, no pages.
- `price` (a number or a numeric string) is in units of 1/100000 USD per hour: 350000 = $3.50 (the SDK divides
  by 100000, SkyPilot too). `spotPrice` is a string in the same unit; "0" or empty means no spot price.
- A product is ONE GPU with its CPU/RAM/disk share (`cpuPerGpu`, `memoryPerGpu`): the price is per GPU-hour
  (an instance of N GPUs pays N times it); gpu_count 1, price_unit gpu_hour.
- A spot price is recorded only where `billingMethods` offers spot (a product may carry a `spotPrice` without it).
- `availableDeploy` false: the product is still a price (in_stock false), never dropped. One offer per region;
  no region listed: one offer with no region.
- The product name says the memory, not the form factor: "A100 80GB" stays the unstated A100 80GB.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://api.novita.ai/gpu-instance/openapi/v1/products"
PRICE_UNITS_PER_USD = Decimal(100000)


class Novita(JsonApiSource):
    id = "novita"
    provider = "novita"
    description = "Novita AI GPU instance products (1/100000 USD per GPU-hour)"
    pricing_types = ("on_demand", "spot")
    hosts = ("api.novita.ai",)
    api_key_env = "NOVITA_API_KEY"
    status = (
        "parser tested on a documented example (the Novita Python SDK's test payload, values may be invented); "
        "offline replay serves it (flagged synthetic); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "synthetic", "novita-sdk-python test payload of GET /gpu-instance/openapi/v1/products (documented example, "
        "values may be invented)",
        (Served(API_URL, "documented_example_novita_sdk_gpu_products.json",
                fixture="novita/documented_example_novita_sdk_python_gpu_products.json"),))
    api_url = API_URL
    records_key = "data"
    object_payload = True

    def request_headers(self) -> dict[str, str]:
        return {**self.bearer_headers(), "Content-Type": "application/json"}

    def _usd(self, value: object, what: str) -> Decimal | None:
        amount = money(value, what, self.id)
        return None if amount is None else amount / PRICE_UNITS_PER_USD

    def parse_record(self, product: dict, index: int, number: int) -> list[Offer]:
        where = f"data[{number}]"
        product_id = str(field(product, "id", self.id, where))
        name = field(product, "name", self.id, where)
        if not isinstance(name, str) or not name.strip():
            raise ParseError(f"{self.id}: {where} has no product name")
        price = self._usd(field(product, "price", self.id, where), f"{where} price")
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: {where} ({product_id}) has no on-demand price")
        methods = product.get("billingMethods")
        spot = self._usd(product.get("spotPrice"), f"{where} spotPrice")
        if not isinstance(methods, list) or "spot" not in methods or not spot:
            spot = None
        regions = product.get("regions") or []
        if not isinstance(regions, list) or not all(isinstance(region, str) for region in regions):
            raise ParseError(f"{self.id}: {where} regions is {regions!r}, expected a list of names")
        in_stock = product.get("availableDeploy") is True
        name = name.strip()
        gpu_id = resolve_gpu_id(name, self.id)
        prices = [("on_demand", price)] + ([("spot", spot)] if spot is not None else [])
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider,
                offer_id=f"{product_id}|{region or 'no-region'}|{pricing_type}", title=name, raw_gpu_name=name,
                gpu_id=gpu_id, gpu_count=Fraction(1), pricing_type=pricing_type, price=amount, currency="USD",
                price_unit="gpu_hour", region=region, instance_type=product_id, in_stock=in_stock,
                document_index=index,
            )
            for region in (regions or [None])
            for pricing_type, amount in prices
        ]
