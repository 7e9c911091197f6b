"""Scaleway Instances server types: on-demand EUR prices of every GPU instance type of a zone.

Facts (real recorded responses, tests/fixtures/scaleway/: scaleway/scaleway-sdk-go's VCR cassette of fr-par-1,
2025-09-05, and gpu-index's trimmed capture of fr-par-2, 2026-08-22; that project's collector notes):
- `GET https://api.scaleway.com/instance/v1/zones/<zone>/products/servers?per_page=100&page=<n>` ->
  `{servers: {<type name>: {ncpus, ram, gpu (count), gpu_info: {gpu_manufacturer, gpu_name ("H100-SXM",
  "H100-PCIe", "L40S", "L4", "B300-SXM", "P100"), gpu_memory (BYTES per GPU)} | null, mig_profile, hourly_price,
  monthly_price, end_of_service, ...}}}`: a MAP keyed by type name, not a list.
- `hourly_price` is EUR per INSTANCE-hour (all the type's GPUs: L4-8-24G = 8 x L4 at 6.3); the payload names no
  currency (Scaleway bills in EUR). `monthly_price` is hourly x 730, a display figure: not read.
- Pages: `per_page` is at most 100 and the body says nothing about more pages (the total is only in the
  X-Total-Count header, which a RawDocument does not keep): a page with fewer than 100 types is the last one.
  The SDK's default page size is 50 (the fr-par-1 cassette's two pages: 50 + 25 of 75 types).
- A type name twice in one zone = the pages shifted under us: a ParseError rather than a doubled offer.
- CPU types have `gpu: 0` and `gpu_info: null` and are skipped. A `mig_profile` (a slice of one GPU) would make
  the node price no price of whole GPUs: such a type is skipped (none is listed today).
- `gpu_name` says the form factor where it matters ("H100-SXM" vs "H100-PCIe"): SXM -> interconnect sxm, PCIe ->
  pcie; "P100" (RENDER-S) says neither and stays unresolved rather than guessed.
- The zone is only in the URL: the region is read from the document's URL.
- Zones: fr-par-2 lists every GPU type the other zones list, at the same prices (gpu-index, probed live
  2026-08-22: fr-par-1 L4/P100, pl-waw-2 H100-PCIe/L4/L40S, nl-ams-1 none), so one zone by default; `zones`
  (constructor, replay overrides) asks for more.
- Auth: the catalog answered without a token (gpu-index fetches it unauthenticated); the SDKs send
  `X-Auth-Token: <secret key>`, which is sent too when SCW_SECRET_KEY is set.
"""

from __future__ import annotations

import os
import re
from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import memory_class_gib, resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.interconnect import interconnect_of
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_BASE = "https://api.scaleway.com/instance/v1/zones"
PER_PAGE = 100  # the API's maximum
_MAX_PAGES = 5  # ~140 types in fr-par-2 today: 2 pages
# Every zone of Scaleway's instance API (its docs' zone list); GPU types are listed where a zone has them
DEFAULT_ZONES = ("fr-par-1", "fr-par-2", "fr-par-3", "nl-ams-1", "nl-ams-2", "nl-ams-3", "pl-waw-1", "pl-waw-2",
                 "pl-waw-3")
TOKEN_ENV = "SCW_SECRET_KEY"
_ZONE = re.compile(r"/zones/([a-z]{2}-[a-z]{3}-\d+)/")
_PAGE = re.compile(r"[?&]page=(\d+)")
_GIB = 1024**3


def servers_url(zone: str, page: int) -> str:
    return f"{API_BASE}/{zone}/products/servers?per_page={PER_PAGE}&page={page}"


def zone_of(url: str) -> str | None:
    match = _ZONE.search(url)
    return match.group(1) if match else None


def page_of(url: str) -> int | None:
    match = _PAGE.search(url)
    return int(match.group(1)) if match else None


def gpu_raw_name(gpu_name: str, memory_bytes: object) -> str:
    """"H100-SXM", 85899345920 -> "H100-SXM 80GB": the per-GPU memory (bytes) added in GiB."""
    if isinstance(memory_bytes, bool) or not isinstance(memory_bytes, int) or memory_bytes <= 0:
        return gpu_name
    gigabytes = memory_bytes // _GIB if memory_bytes % _GIB == 0 else memory_class_gib(memory_bytes / 1024**2)
    return f"{gpu_name} {gigabytes}GB"


class Scaleway(JsonApiSource):
    id = "scaleway"
    provider = "scaleway"
    description = "Scaleway Instances GPU server types per zone (EUR per instance-hour)"
    pricing_types = ("on_demand",)
    hosts = ("api.scaleway.com",)
    status = (
        "parser tested on two real recorded responses (scaleway-sdk-go's cassette of fr-par-1, 2025-09-05; "
        "gpu-index's capture of fr-par-2, 2026-08-22, trimmed to its GPU rows); no live call made"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "l40s-48gb", "l4-24gb"}), min_offers=10)
    # page 1 of fr-par-2 holds under 100 types, so the source asks for no page 2 (the real page 2 is a test input)
    offline = Recording(
        "stale_capture", "REAL fr-par-2 server types captured 2026-08-22 (getcomputable/gpu-index@055204ad, trimmed "
        "there to the GPU and 4 CPU types), every day",
        (Served(servers_url("fr-par-2", 1), "stale_capture_2026-08-22_fr-par-2_page1_gpu_rows.json",
                fixture="scaleway/servers_capture_2026-08-22_fr-par-2_page1_gpu_rows.json"),),
        overrides={"zones": ["fr-par-2"]})

    def __init__(self, zones: tuple[str, ...] | list[str] | None = None):
        self.zones = tuple(zones or DEFAULT_ZONES)

    def urls(self) -> list[str]:
        return [servers_url(zone, 1) for zone in self.zones]

    def request_headers(self) -> dict[str, str] | None:
        key = os.environ.get(TOKEN_ENV)
        return {"X-Auth-Token": key} if key else None

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        # the body names no next page: a full page may have one; the zone and page are read back from our own URL
        servers = self._servers(document)
        zone, page = zone_of(document.url), page_of(document.url)
        if len(servers) < PER_PAGE or zone is None or page is None or page >= _MAX_PAGES:
            return None
        return servers_url(zone, page + 1)

    def _servers(self, document: RawDocument) -> dict:
        payload = self.load(document)
        servers = field(payload, "servers", self.id, document.url)
        if not isinstance(servers, dict):
            raise ParseError(f"{self.id}: 'servers' is {type(servers).__name__}, expected a map of type names")
        return servers

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        # not parse_payload: a type met again on a later page of its zone is an error, so the pages are read together
        offers, seen = [], set()
        for index, document in enumerate(documents):
            zone = zone_of(document.url)
            for name, spec in self._servers(document).items():
                if (zone, name) in seen:
                    raise ParseError(f"{self.id}: {name} is listed twice in zone {zone} (the pages shifted)")
                seen.add((zone, name))
                offer = self._offer(name, spec, zone, index)
                if offer is not None:
                    offers.append(offer)
        return offers

    def _offer(self, name: str, spec: object, zone: str | None, index: int) -> Offer | None:
        count = field(spec, "gpu", self.id, name)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ParseError(f"{self.id}: {name} gpu = {count!r} is not a GPU count")
        if count == 0:
            return None  # a CPU type
        if spec.get("mig_profile") is not None:
            return None  # a slice of a GPU: the node price is no price of whole GPUs
        info = field(spec, "gpu_info", self.id, name)
        gpu_name = str(field(info, "gpu_name", self.id, f"{name} gpu_info") or "").strip()
        if not gpu_name:
            raise ParseError(f"{self.id}: {name} has GPUs but no gpu_info.gpu_name")
        price = money(field(spec, "hourly_price", self.id, name), f"{name} hourly_price", self.id)
        if price is None:
            raise ParseError(f"{self.id}: {name} has no hourly_price")
        raw_name = gpu_raw_name(gpu_name, info.get("gpu_memory"))
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=f"{name}|{zone or 'no-zone'}",
            title=name, raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(count),
            pricing_type="on_demand", price=price, currency="EUR", price_unit="instance_hour", region=zone,
            instance_type=name, document_index=index, interconnect=interconnect_of(gpu_name),
        )
