"""RunPod GraphQL `gpuTypes` (API key): secure and community cloud, on-demand and spot, per GPU-hour.

Facts (runpod-python's query and documented outputs; a real answer of 2026-08-25 saved by getcomputable/gpu-index;
both in tests/fixtures/runpod/):
- `POST https://api.runpod.io/graphql` with the `gpuTypes` query returns `{data: {gpuTypes: [...]}}`;
- `id` is the GPU's full name ("NVIDIA A100 80GB PCIe", "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X OAM"),
  `displayName` the short one ("A100 80GB", "H100 SXM");
- securePrice / communityPrice are on-demand USD per GPU-hour, secureSpotPrice / communitySpotPrice the
  interruptible ones (`lowestPrice.minimumBidPrice` is the bid floor of the cheapest);
- "not offered" comes two ways: `null` (the documented example) or `0` beside `secureCloud`/`communityCloud`
  false (the real answer: A100-SXM4-40GB and RTX 3070 have securePrice 0, secureCloud false). Neither is a $0
  offer. The cloud flag wins over a price: the real answer quotes MI300X communityPrice 0.5 with
  communityCloud false, so no community MI300X offer is made;
- in the real 2026-08-25 answer (asked without a key) every spot price equals the on-demand price of the same
  cloud, and minimumBidPrice equals uninterruptablePrice: they are kept as RunPod states them;
- secure cloud and community cloud are different products: both are kept, told apart by `region`-less offer ids
  and the `seller_type` (datacenter vs community host).
- the query asks only for fields the real answer holds (it asked for more: stock probes, `dataCenters`);
- `GraphQL errors` come back with HTTP 200 and an `errors` list: that is a failed fetch, not an empty catalog.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer, rental_channel
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import HttpClient, RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, list_field, money

API_URL = "https://api.runpod.io/graphql"
QUERY = """query GpuTypes {
  gpuTypes {
    id displayName memoryInGb maxGpuCount secureCloud communityCloud
    securePrice communityPrice secureSpotPrice communitySpotPrice
    lowestPrice(input: {gpuCount: 1}) { minimumBidPrice uninterruptablePrice }
  }
}"""
# (price field, cloud flag, pricing type, seller type)
_PRICES = (
    ("securePrice", "secureCloud", "on_demand", "secure_cloud"),
    ("secureSpotPrice", "secureCloud", "spot", "secure_cloud"),
    ("communityPrice", "communityCloud", "on_demand", "community_cloud"),
    ("communitySpotPrice", "communityCloud", "spot", "community_cloud"),
)


class RunPod(JsonApiSource):
    id = "runpod"
    parser_version = 2  # 2: a 0 price beside a false secureCloud/communityCloud flag is "not offered", not $0
    provider = "runpod"
    description = "RunPod GraphQL gpuTypes: secure + community cloud, on-demand + spot, per GPU-hour"
    pricing_types = ("on_demand", "spot")
    hosts = ("api.runpod.io",)
    api_key_env = "RUNPOD_API_KEY"
    status = (
        "parser tested on a real gpuTypes answer (2026-08-25, 9 of its 48 GPU types) and RunPod's documented "
        "get_gpu output; offline replay serves the real answer (undated replay: flagged synthetic)"
    )
    # GPUs RunPod has listed in every answer we hold (the real 2026 one is cut to 9 types)
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "rtx-4090-24gb"}), min_offers=10)
    offline = Recording(
        "stale_capture", "getcomputable/gpu-index@5cf4f703 runpod/gputypes.json: a REAL gpuTypes answer of 2026-08-25 "
        "(9 of 48 GPU types, kept whole), every day",
        (Served(API_URL, "stale_capture_2026-08-25_gpu_types.json"),))  # kept once, in recordings/

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        headers = self.bearer_headers()
        return [await client.post(API_URL, allowed_hosts=self.hosts, json={"query": QUERY}, headers=headers)]

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        if isinstance(payload, dict) and payload.get("errors"):
            raise ParseError(f"{self.id}: GraphQL errors: {str(payload['errors'])[:300]}")
        return self.parse_records(list_field(field(payload, "data", self.id), "gpuTypes", self.id), index)

    def parse_record(self, gpu: dict, index: int, number: int) -> list[Offer]:
        gpu_type = field(gpu, "id", self.id, "gpuTypes[]")
        gpu_id = resolve_gpu_id(gpu_type, "runpod") or resolve_gpu_id(gpu.get("displayName"), "runpod")
        offers = []
        for price_field, cloud_flag, pricing_type, seller_type in _PRICES:
            price = money(gpu.get(price_field), f"{gpu_type} {price_field}", self.id)
            if price is None or price == 0 or gpu.get(cloud_flag) is False:
                continue  # not offered on that cloud / pricing type
            offers.append(
                Offer(
                    source=self.id, channel=rental_channel(self.provider, seller_type), provider=self.provider,
                    offer_id=f"{gpu_type}|{seller_type}", title=gpu.get("displayName"),
                    raw_gpu_name=gpu_type, gpu_id=gpu_id, gpu_count=Fraction(1), pricing_type=pricing_type,
                    price=price, currency="USD", price_unit="gpu_hour", seller_type=seller_type,
                    document_index=index,
                )
            )
        return offers
