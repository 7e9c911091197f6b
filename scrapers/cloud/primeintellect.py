"""Prime Intellect GPU availability (API key): on-demand and spot prices of the GPU offers Prime Intellect resells
from other clouds, and of its own capacity.

Facts (Prime's CLI, PrimeIntellect-ai/prime: prime_cli/api/availability.py and its test data
packages/prime/tests/data/availability_response.json, a real recorded answer; Prime's docs
docs.primeintellect.ai/api-reference/check-gpu-availability; SkyPilot's fetch_primeintellect.py):
- `GET https://api.primeintellect.ai/api/v1/availability/gpus?page=<n>&page_size=100` with
  `Authorization: Bearer <key>` -> `{items: [{cloudId, gpuType ("H100_80GB"), socket ("PCIe", "SXM4", "SXM5"),
  provider ("runpod", "lambdalabs", "crusoecloud"...), region, dataCenter, country, gpuCount, gpuMemory,
  stockStatus ("Available", "Low"), security ("secure_cloud" | "community_cloud"), isSpot,
  prices: {onDemand, communityPrice, isVariable, currency}, disk, vcpu, memory...}], totalCount}`.
  Pages (at most 100 items each) are read until `totalCount` items are in hand.
- AN AGGREGATOR: `provider` names the cloud that rents the offer. That cloud is the offer's provider (under the id
  our direct sources use: lambdalabs -> lambda, datacrunch -> verda, the same table as the SkyPilot source) and
  `via` is primeintellect. Prime's own capacity (`primecompute`, and the `dc_*` datacenters SkyPilot's fetcher
  names as Prime's own) is provider primeintellect with no `via`.
- `prices.onDemand` is USD (`prices.currency`) per hour for the WHOLE offer (all `gpuCount` GPUs): Prime's
  gpu-summary test data prices 8 x H100 at 15.2 = 8 x 1.9, SkyPilot's fetcher "2-GPU box is $2.70 = 2 x $1.35".
  Disk (and on some clouds vCPU/RAM) beyond the defaults is billed on top (`pricePerUnit`): not included here.
- `communityPrice` is the price of a community-cloud offer (the CLI shows it before onDemand); an offer with
  neither price is skipped (nothing to record), a price that is not a number is a ParseError.
- `gpuType` + `socket` name the part ("A100_80GB" + "SXM4" -> "A100 80GB SXM4"); the socket is the interconnect
  (SXM -> sxm, PCIe -> pcie). `gpuMemory` is the whole offer's memory (SkyPilot): not used.
- `stockStatus` "Available"/"Low" = in stock; any other value is left unknown rather than guessed.
- Traps: `onDemand` arrives as a float with noise (1.6567999999999998): kept exactly as its shortest repr.
  The multi-node (cluster) endpoint `/availability/multi-node` is not read.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.cloud.aggregators import renting_provider
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.interconnect import interconnect_of
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, list_field, load_json, money

API_URL = "https://api.primeintellect.ai/api/v1/availability/gpus"
PAGE_SIZE = 100
_MAX_PAGES = 50  # ~600 offers today: 7 pages; a totalCount that never comes must still end
_IN_STOCK = frozenset({"available", "low"})
_CAPTURE = "primeintellect/availability_gpus_capture_undated_prime_cli_8_of_608.json"  # the offline recording's fixture


def page_url(page: int) -> str:
    return f"{API_URL}?page={page}&page_size={PAGE_SIZE}"


def gpu_raw_name(gpu_type: str, socket: str | None) -> str:
    """"A100_80GB", "SXM4" -> "A100 80GB SXM4" (the socket says the form factor the type leaves out)."""
    name = gpu_type.replace("_", " ").strip()
    return f"{name} {socket.strip()}" if socket and socket.strip() else name


class PrimeIntellect(JsonApiSource):
    id = "primeintellect"
    provider = "primeintellect"
    description = ("Prime Intellect GPU availability (USD per offer-hour); an aggregator: each offer under the cloud "
                   "that rents it, `via` primeintellect")
    pricing_types = ("on_demand", "spot")
    hosts = ("api.primeintellect.ai",)
    api_key_env = "PRIME_API_KEY"
    status = (
        "parser tested on a real recorded answer (Prime's CLI test data: 8 of 608 offers, all runpod, date unknown); "
        "offline replay serves it as a stale capture; no live call made"
    )
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "stale_capture", "REAL /availability/gpus page (PrimeIntellect-ai/prime@4f82c668 test data: 8 of 608 offers, "
        "all RunPod, date unknown); page 2 made up EMPTY to end the paging",
        (Served(page_url(1), "stale_capture_availability_gpus_page1.json", fixture=_CAPTURE),
         Served(page_url(2), "synthetic_empty_page2.json", fixture=_CAPTURE,
                pick=lambda capture: {"items": [], "totalCount": capture["totalCount"]})))
    api_url = page_url(1)
    records_key = "items"
    object_payload = True

    def request_headers(self) -> dict[str, str]:
        return self.bearer_headers()

    def _items(self, document: RawDocument) -> tuple[list, object]:
        """A page's items and its totalCount, as paging reads them (an answer that is no object: none)."""
        payload = load_json(document, self.id)
        if not isinstance(payload, dict):
            return [], None
        return list_field(payload, "items", self.id), payload.get("totalCount")

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        items, total = self._items(document)
        seen = sum(len(self._items(page)[0]) for page in documents)
        if not items or not isinstance(total, int) or seen >= total or len(documents) >= _MAX_PAGES:
            return None
        return page_url(len(documents) + 1)

    def parse_record(self, item: dict, index: int, number: int) -> list[Offer]:
        where = f"items[{number}]"
        gpu_type = field(item, "gpuType", self.id, where)
        count = field(item, "gpuCount", self.id, where)
        if not isinstance(gpu_type, str) or not gpu_type or isinstance(count, bool) or not isinstance(count, int):
            raise ParseError(f"{self.id}: {where} has gpuType {gpu_type!r} / gpuCount {count!r}")
        if count <= 0:
            return []  # no GPU: not a GPU offer
        prices = field(item, "prices", self.id, where)
        if not isinstance(prices, dict):
            raise ParseError(f"{self.id}: {where} prices is {type(prices).__name__}, expected an object")
        price = money(prices.get("onDemand"), f"{where} prices.onDemand", self.id)
        if price is None:
            price = money(prices.get("communityPrice"), f"{where} prices.communityPrice", self.id)
        if price is None:
            return []  # listed without a price: nothing to record
        named = field(item, "provider", self.id, where)
        if not isinstance(named, str) or not named.strip():
            raise ParseError(f"{self.id}: {where} names no provider")
        provider, via = renting_provider(named, self.id)
        socket = item.get("socket")
        raw_name = gpu_raw_name(gpu_type, socket)
        cloud_id = str(field(item, "cloudId", self.id, where))
        data_center = item.get("dataCenter") or None
        region = data_center or item.get("region") or item.get("country") or None
        spot = item.get("isSpot") is True
        security = item.get("security") or None
        stock = str(item.get("stockStatus") or "").strip().lower()
        offer_id = "|".join(str(part) for part in (named.strip().lower(), cloud_id, data_center or region or "",
                                                   count, security or "", "spot" if spot else "on_demand"))
        return [Offer(
            source=self.id, channel="cloud", provider=provider, offer_id=offer_id,
            title=f"{count}x {raw_name} ({cloud_id})", raw_gpu_name=raw_name,
            gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(count),
            pricing_type="spot" if spot else "on_demand", price=price,
            currency=str(prices.get("currency") or "USD").upper(), price_unit="instance_hour", region=region,
            instance_type=cloud_id, seller_type=security, in_stock=True if stock in _IN_STOCK else None,
            document_index=index, via=via, interconnect=interconnect_of(socket),
        )]
