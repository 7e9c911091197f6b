"""Vast.ai public offer search (no key): a marketplace, every raw offer kept; the models aggregate.

Facts (vast-cli, gpuhunt, the real capture in tests/fixtures/vast/):
- `POST https://console.vast.ai/api/v0/bundles/` with a JSON filter body returns `{offers: [...]}` (a capture may
  also carry `url`, `timestamp`, `count`);
- prices are USD per hour for the WHOLE offer (all `num_gpus` GPUs): `search.totalHour` = `dph_base` (GPUs + host)
  + storage at the default disk; older payloads have `dph_total` instead. `min_bid` is the interruptible floor
  (GPUs + host, without storage);
- `gpu_ram` is MiB per GPU; `geolocation` "Ontario, CA" (or ", US" with no state); `hosting_type` (1 =
  datacenter), `rentable` (false = taken right now: the ask is still a price, kept with in_stock = false);
- verification is the STRING `verification`: "verified", "unverified" or "deverified" (`vericode` 1/0/4; the
  last in gpu-index's h100_sxm_desc answer). The 2026-08-22 answers (getcomputable/gpu-index, saved in
  tests/fixtures/vast/vast_bundles_capture_2026-08-22_*) carry no boolean `verified` at all, the 2025 capture
  carries both; the boolean is only a fallback;
- `reliability2` is the host's published reliability, a share of 0-1 from its uptime history (0.889-0.993 in the
  2026 answers): host_reliability, on both the on-demand ask and the interruptible bid of the offer (vast publishes
  no outbid rate);
- those answers are `{offers: [...]}` only, with `dph_total` == `search.totalHour`; `min_bid` can be ABOVE the
  on-demand ask (an H100 SXM 1/8 slice: ask 1.9348..., min_bid 2.4): kept as stated, it is vast's bid floor;
- gpu-index asked `GET .../bundles/?q=<the same JSON filter>` (gpu_name eq, rentable eq true, type
  on-demand, order dph_total, small limit) and reports the server clamping a page (limit 400 gave 64 offers).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer, rental_channel
from scrapers.errors import ParseError
from scrapers.gpu_names import memory_class_gib, resolve_first
from scrapers.http import HttpClient, RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://console.vast.ai/api/v0/bundles/"
# Everything rentable or not, on-demand asks; the API caps results, so ask for its maximum.
QUERY = {"num_gpus": {"gte": 1}, "order": [["score", "desc"]], "type": "on-demand", "limit": 10000}


class VastMarketplace(JsonApiSource):
    id = "vast"
    # 2: the 2026 answers' `verification` string (no boolean `verified` any more); 3: host_reliability (reliability2)
    parser_version = 3
    provider = "vast"
    description = "Vast.ai offer search: every marketplace offer (on-demand ask and interruptible min bid)"
    pricing_types = ("on_demand", "spot")
    hosts = ("console.vast.ai",)
    status = (
        "parser tested on real captures (2 offers of 2025-07-26; H100 SXM and B300 books of 2026-08-22, ids "
        "pseudonymized upstream); offline replay serves the 2025 capture (flagged synthetic: stale date)"
    )
    # A marketplace: which GPUs are listed changes hour to hour, so no GPU is required; bands still apply.
    expectations = Expectations(frozenset(), min_offers=1)
    offline = Recording(
        "stale_capture", "real vast.ai offers captured 2025-07-26, replayed on every day",
        (Served(API_URL, "stale_capture_2025-07-26_2offers.json",
                fixture="vast/vast_offers_capture_2025-07-26_2offers.json"),))
    records_key = "offers"

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.post(API_URL, allowed_hosts=self.hosts, json=QUERY)]  # a POSTed search

    def parse_record(self, offer: dict, index: int, number: int) -> list[Offer]:
        offer_id = str(field(offer, "id", self.id, "offers[]"))
        count = field(offer, "num_gpus", self.id, offer_id)
        if not isinstance(count, int) or count < 1:
            raise ParseError(f"{self.id}: offer {offer_id} num_gpus = {count!r}")
        listed_name = field(offer, "gpu_name", self.id, offer_id)
        with_memory = f"{listed_name} {memory_class_gib(offer['gpu_ram'])}GB" if offer.get("gpu_ram") else None
        # the memory the host reports first: it names the variant where the name alone would take a default
        raw_name, gpu_id = resolve_first([with_memory, listed_name], "vast")
        total = (offer.get("search") or {}).get("totalHour", offer.get("dph_total"))
        prices = (
            ("on_demand", money(total, f"offer {offer_id} totalHour", self.id)),
            ("spot", money(offer.get("min_bid"), f"offer {offer_id} min_bid", self.id)),
        )
        verified = offer.get("verification") or ("verified" if offer.get("verified") else "unverified")
        if not isinstance(verified, str):
            raise ParseError(f"{self.id}: offer {offer_id} verification = {verified!r}")
        hosting = "datacenter" if offer.get("hosting_type") == 1 else "host"
        reliability = self._reliability(offer.get("reliability2"), offer_id)
        return [
            Offer(
                source=self.id, channel=rental_channel(self.provider), provider=self.provider, offer_id=offer_id,
                title=f"{count}x {raw_name} ({verified}, {hosting}, host {offer.get('host_id')})",
                raw_gpu_name=raw_name, gpu_id=gpu_id, gpu_count=Fraction(count), pricing_type=pricing_type,
                price=price, currency="USD", price_unit="instance_hour", region=offer.get("geolocation"),
                seller_type=f"{hosting}_{verified}", in_stock=bool(offer.get("rentable", True)),
                instance_type=f"machine {offer.get('machine_id')}", document_index=index,
                host_reliability=reliability,
            )
            for pricing_type, price in prices
            if price is not None
        ]

    def _reliability(self, value, offer_id: str) -> Decimal | None:
        """`reliability2` as published (a share of 0-1, to 6 places); absent -> None; out of range -> ParseError."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ParseError(f"{self.id}: offer {offer_id} reliability2 = {value!r} is not a share of 0-1")
        return Decimal(str(value)).quantize(Decimal("0.000001"))
