"""Jarvislabs server meta (API key): on-demand and spot USD per GPU-hour per region.

Facts (gpuhunt's fixture of `GET /misc/server_meta`, tests/fixtures/jarvislabs/):
`{server_meta: [{gpu_type, region, price_per_hour, spot_price, vram (string, GB), num_gpus (string: the most
GPUs per machine), workload_type (container | vm | null), num_free_devices...}], cpu_meta}`.
Prices are PER GPU-hour. `spot_price` null = no spot. The same GPU is listed once per workload type, at the same
price: both rows are kept (different products), told apart in the offer id.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.gpu_names import resolve_first
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

API_URL = "https://backendn.jarvislabs.net/misc/server_meta"


class Jarvislabs(JsonApiSource):
    id = "jarvislabs"
    provider = "jarvislabs"
    description = "Jarvislabs server_meta: on-demand and spot per GPU-hour, per region"
    pricing_types = ("on_demand", "spot")
    hosts = ("backendn.jarvislabs.net",)
    api_key_env = "JARVISLABS_API_KEY"
    status = "parser tested on gpuhunt's fixture (exact shape, values may be invented); offline replay serves it (flagged synthetic)"
    expectations = Expectations(frozenset({"l4-24gb"}), min_offers=2)
    offline = Recording(
        "synthetic", "gpuhunt fixture (shape exact, values may be invented)",
        (Served(API_URL, "gpuhunt_fixture_server_meta.json", fixture="jarvislabs/gpuhunt_server_meta_fixture.json",
                pick="SERVER_META_RESPONSE"),))
    api_url = API_URL
    records_key = "server_meta"

    def request_headers(self) -> dict[str, str]:
        return self.bearer_headers()

    def parse_record(self, entry: dict, index: int, number: int) -> list[Offer]:
        gpu_type = field(entry, "gpu_type", self.id, "server_meta[]")
        region = entry.get("region")
        vram = entry.get("vram")
        raw_name, gpu_id = resolve_first([gpu_type, f"{gpu_type} {vram}GB" if vram else None], "jarvislabs")
        workload = entry.get("workload_type") or "any"
        free = entry.get("num_free_devices")
        offers = []
        for pricing_type, key in (("on_demand", "price_per_hour"), ("spot", "spot_price")):
            price = money(entry.get(key), f"{gpu_type}/{region} {key}", self.id)
            if price is None:
                continue
            offers.append(
                Offer(
                    source=self.id, channel="cloud", provider=self.provider,
                    offer_id=f"{gpu_type}|{region}|{workload}", title=f"{gpu_type} ({workload})",
                    raw_gpu_name=raw_name, gpu_id=gpu_id, gpu_count=Fraction(1), pricing_type=pricing_type,
                    price=price, currency="USD", price_unit="gpu_hour", region=region,
                    in_stock=None if free is None else free > 0, document_index=index,
                )
            )
        return offers
