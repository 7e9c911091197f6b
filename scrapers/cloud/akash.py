"""Akash Network console GPU prices (public, no key): a peer-to-peer marketplace, one offer per provider's best bid.

Facts (a real saved response, tests/fixtures/akash/; the console's public API):
- `GET https://console-api.akash.network/v1/gpu-prices?debug=true` -> `{models: [{vendor ("nvidia"), model
  ("h100"), ram ("80Gi"), interface ("SXM5"), availability, providerAvailability, price: {currency, min, max, avg,
  weightedAverage, med}, priceUakt, bidCount, providersWithBestBid: [{provider: {owner, hostUri, allocated,
  allocatable}, bestBid: {datetime, hourlyPrice, monthlyPrice, aktTokenPrice, deployment, data: {resources_offer:
  [{resources: {gpu: {units: {val}}}, count}]}}}]}]}` (a saver may add its own keys beside `models`).
- `providersWithBestBid` is only in the `debug=true` form; without it there are no per-provider asks to read.
- `hourlyPrice` is USD per hour for the WHOLE bid (the deployment's GPUs plus a little CPU, memory and disk),
  converted by the console from the on-chain uakt/uact amount at `aktTokenPrice`: an instance-hour price, whose GPU
  count is the bid's `gpu.units.val` x `count` summed over `resources_offer`.
- The model's `interface` says the form factor (SXM5, PCIe); a missing one leaves H100/A100 unresolved, never guessed.
- `price.min/med/...` summarise the same bids: not loaded again (the marts compute their own figures).
"""

from __future__ import annotations

import re
from fractions import Fraction
from urllib.parse import urlsplit

from scrapers.base import Expectations, Offer, rental_channel
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, list_field, money

API_URL = "https://console-api.akash.network/v1/gpu-prices?debug=true"
_GIBIBYTES = re.compile(r"^(\d+)Gi$")


class AkashGpuPrices(JsonApiSource):
    id = "akash"
    provider = "akash"
    description = "Akash Network console GPU prices: each provider's best bid per GPU model (marketplace asks)"
    pricing_types = ("on_demand",)
    hosts = ("console-api.akash.network",)
    status = (
        "parser tested on a real saved response (2026-09-28, H100 only); offline replay serves it (stale capture); "
        "live endpoint not called from here"
    )
    # A marketplace: which GPUs have bids changes hour to hour, so no GPU is required; bands still apply.
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "stale_capture", "REAL /v1/gpu-prices?debug=true response saved 2026-09-28 (H100 only; "
        "Rehgud/GWDC2026@d1666ff1 prices/akash-snapshot.json), replayed on every day",
        (Served(API_URL, "stale_capture_2026-09-28_gpu_prices_h100.json",
                fixture="akash/akash_gpu_prices_capture_2026-09-28_h100.json"),))
    api_url = API_URL
    records_key = "models"

    def _raw_name(self, model: dict) -> str:
        vendor, name = field(model, "vendor", self.id, "models[]"), field(model, "model", self.id, "models[]")
        ram = _GIBIBYTES.match(str(model.get("ram") or ""))
        parts = [str(vendor).upper(), str(name).upper(), f"{ram.group(1)}GB" if ram else None, model.get("interface")]
        return " ".join(part for part in parts if part)

    def parse_record(self, model: dict, index: int, number: int) -> list[Offer]:
        raw_name = self._raw_name(model)
        gpu_id = resolve_gpu_id(raw_name, self.id)
        offers = []
        for entry in list_field(model, "providersWithBestBid", self.id, raw_name):
            host = field(entry, "provider", self.id, raw_name)
            bid = field(entry, "bestBid", self.id, raw_name)
            owner = field(host, "owner", self.id, raw_name)
            price = money(field(bid, "hourlyPrice", self.id, owner), f"{owner} hourlyPrice", self.id)
            if price is None:
                raise ParseError(f"{self.id}: {raw_name} bid of {owner} has no hourlyPrice")
            host_uri = host.get("hostUri") or ""
            allocatable, allocated = host.get("allocatable"), host.get("allocated")
            offers.append(Offer(
                source=self.id, channel=rental_channel(self.provider), provider=self.provider, offer_id=f"{raw_name}|{owner}",
                title=f"{raw_name} on {host_uri or owner}", raw_gpu_name=raw_name, gpu_id=gpu_id,
                gpu_count=self._bid_gpu_count(bid, owner), pricing_type="on_demand", price=price, currency="USD",
                price_unit="instance_hour", region=urlsplit(host_uri).hostname, instance_type=raw_name,
                # allocated == allocatable: every GPU of that provider is leased right now
                in_stock=(allocatable > allocated) if isinstance(allocatable, int) and isinstance(allocated, int)
                else None,
                document_index=index,
            ))
        return offers

    def _bid_gpu_count(self, bid: dict, owner: str) -> Fraction:
        data = field(bid, "data", self.id, owner)
        total = 0
        for offer in list_field(data, "resources_offer", self.id, owner):
            gpu = field(field(offer, "resources", self.id, owner), "gpu", self.id, owner)
            try:
                total += int(field(field(gpu, "units", self.id, owner), "val", self.id, owner)) * int(
                    offer.get("count", 1))
            except (TypeError, ValueError):
                raise ParseError(f"{self.id}: bid of {owner} has a GPU count that is not a number") from None
        if total <= 0:
            raise ParseError(f"{self.id}: bid of {owner} rents no GPU")
        return Fraction(total)
