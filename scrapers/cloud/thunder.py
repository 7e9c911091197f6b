"""Thunder Compute public price list (no key): on-demand USD per hour of every GPU configuration.

Facts (Thunder's own clients and docs; tests/fixtures/thunder/):
- `GET https://api.thundercompute.com:8443/v2/pricing` -> `{pricing: {"<gpu>_x<count>": usd_per_hour,
  "additional_vcpus": ..., "disk_gb": ..., ...}}`: one flat map of numbers (OpenAPI `thundertypes.PricingMap`,
  `additionalProperties: number`). thunder-cli decodes exactly `{"pricing": map[string]float64}` (api/client.go
  FetchPricing) and its JSON contract test serves `/v2/pricing` that way (cmd/json_contract_test.go).
- Public: Thunder's API reference ("Get current pricing", www.thundercompute.com/docs/api-reference/utilities/
  get-current-pricing) lists the pricing operation with `security: []`, and thunder-cli calls it "the public pricing
  data". No key is sent.
- Units: USD per hour of the WHOLE configuration (thunder-cli prices an instance as `rates["<gpu>_x<n>"]` + extra
  vCPUs x `additional_vcpus` + disk above the included allowance x `disk_gb`, printed as "$%.2f/hr"; its test data
  has h100_x2 = 2 x h100_x1; Thunder's terraform provider documents "hourly price in USD"). The GPU price includes
  the configuration's minimum vCPUs and base disk. The payload names no currency: USD as the docs say.
- Keys that are not `<gpu>_x<count>` are add-on rates (vCPU, disk, snapshot storage ...) and are skipped.
- TRAP, modes: the v1 API keyed configurations as `<gpu>_x<count>_<mode>` (prototyping / production: different
  products, different prices, e.g. h100_x1 2.49 vs 3.49 in thunder-cli's test). Thunder has since retired modes:
  terraform provider v0.2's migration guide strips the suffix (`h100_x1_prototyping -> h100_x1`) and the current
  CLI prices `<gpu>_x<count>` from `/v2/pricing`. A mode-suffixed key still parses (legacy payloads): the mode stays
  in offer_id and instance_type, and both modes are `on_demand` (Thunder sells neither as spot or reserved).
- GPU slugs are Thunder's (`a100xl` = the A100 80GB, per thunder-cli's spec test data: "NVIDIA A100 (80GB)",
  80 GB; `h100` = "NVIDIA H100", 80 GB; `a6000` = "RTX A6000", 48 GB). Form factors are never stated: the H100
  and A100 stay "unstated" (never guessed SXM or PCIe). Other slugs go through as written, upper-cased.
- The map says nothing of availability (that is `/v2/status`) or region: in_stock and region stay empty.
"""

from __future__ import annotations

import re
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://api.thundercompute.com:8443/v2/pricing"
# "<gpu>_x<count>" (current) or "<gpu>_x<count>_<mode>" (the retired v1 modes)
_CONFIG_KEY = re.compile(r"^(?P<gpu>[a-z0-9]+)_x(?P<count>[0-9]+)(?:_(?P<mode>[a-z]+))?$")
# Thunder's GPU slugs with the names and memory thunder-cli's spec test data give them
_GPU_NAMES = {"a6000": "RTX A6000 48GB", "a100xl": "A100 80GB", "h100": "H100 80GB"}


def gpu_raw_name(slug: str) -> str:
    """"a100xl" -> "A100 80GB"; a slug we hold no facts about goes through upper-cased ("l40s" -> "L40S")."""
    return _GPU_NAMES.get(slug, slug.upper())


class ThunderCompute(JsonApiSource):
    id = "thunder"
    provider = "thunder"
    description = "Thunder Compute public price list (USD per instance-hour of each GPU configuration)"
    pricing_types = ("on_demand",)
    hosts = ("api.thundercompute.com",)
    status = (
        "parser tested on documented examples (thunder-cli's test payloads, values may be invented, flagged "
        "synthetic); no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "synthetic", "thunder-cli test payload of GET /v2/pricing (documented example, values may be invented)",
        (Served(API_URL, "documented_example_thunder_cli_v2_pricing.json",
                fixture="thunder/documented_example_thunder_cli_v2_pricing.json"),))
    api_url = API_URL

    def request_headers(self) -> dict[str, str]:
        return {"accept": "application/json"}

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        rates = field(payload, "pricing", self.id, "the response")
        if not isinstance(rates, dict):
            raise ParseError(f"{self.id}: pricing is {type(rates).__name__}, expected a map of rates")
        found = [self._offer(key, value, index) for key, value in rates.items() if _CONFIG_KEY.match(key)]
        if not found:
            raise ParseError(f"{self.id}: pricing has no '<gpu>_x<count>' key, only {sorted(rates)[:10]}")
        return [offer for offer in found if offer is not None]

    def _offer(self, key: str, value: object, index: int) -> Offer | None:
        match = _CONFIG_KEY.match(key)
        count = int(match["count"])
        if count <= 0:
            return None
        price = money(value, f"pricing.{key}", self.id)
        if price is None:
            raise ParseError(f"{self.id}: pricing.{key} has no price")
        raw_name = gpu_raw_name(match["gpu"])
        mode = match["mode"]
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=key,
            title=f"{count}x {raw_name}" + (f" ({mode})" if mode else ""), raw_gpu_name=raw_name,
            gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(count), pricing_type="on_demand",
            price=price, currency="USD", price_unit="instance_hour", instance_type=key, document_index=index,
        )
