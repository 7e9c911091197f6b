"""Oracle Cloud (OCI) public price list (no key): GPU shapes priced per GPU-hour.

Facts (the real price-list response and opencost's shape -> part number map, tests/fixtures/oci/):
- `GET https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD` returns `{items: [{partNumber,
  displayName, metricName, serviceCategory, currencyCodeLocalizations: [{currencyCode, prices: [{model, value}]}]}]}`;
- GPU parts have metricName "GPU Per Hour": a GPU shape costs that part x its GPU count, host CPU and memory
  included (GPU shapes have no OCPU/memory parts), so the price is bundled, per GPU-hour;
- the price list is global: one price for every region (region left empty);
- spot (preemptible) GPU capacity is priced by a documented 50% rule, not listed: we do not invent it.
A shape whose part is missing from the list (e.g. BM.GPU.L40S.4 in the bundled response) yields no offer.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, list_field, money

API_URL = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD"
# shape -> (GPU part number, GPU name, GPUs in the shape). Part numbers from opencost's shape map; GPU models from
# Oracle's shape documentation (GPU2 = P100, GPU3 = V100 16GB, GPU4 = A100 40GB, A100-v2 = A100 80GB).
GPU_SHAPES = {
    "BM.GPU.H100.8": ("B98415", "H100 SXM5 80GB", 8),
    "BM.GPU.A100-v2.8": ("B95907", "A100 SXM4 80GB", 8),
    "BM.GPU4.8": ("B92740", "A100 SXM4 40GB", 8),
    "BM.GPU.L40S.4": ("B109479", "L40S", 4),
    "BM.GPU.A10.4": ("B95909", "A10", 4),
    "VM.GPU.A10.1": ("B95909", "A10", 1),
    "VM.GPU.A10.2": ("B95909", "A10", 2),
    "BM.GPU3.8": ("B89734", "V100 SXM2 16GB", 8),
    "VM.GPU3.1": ("B89734", "V100 SXM2 16GB", 1),
    "VM.GPU3.2": ("B89734", "V100 SXM2 16GB", 2),
    "VM.GPU3.4": ("B89734", "V100 SXM2 16GB", 4),
    "BM.GPU2.2": ("B88517", "P100 PCIe 16GB", 2),
    "VM.GPU2.1": ("B88518", "P100 PCIe 16GB", 1),
}


class OracleCloud(JsonApiSource):
    id = "oci"
    provider = "oci"
    description = "Oracle Cloud price list: GPU shapes (GPU part x count), per GPU-hour"
    pricing_types = ("on_demand",)
    hosts = ("apexapps.oracle.com",)
    status = "parser tested on a real price-list response (450 products); offline replay serves it (flagged synthetic: capture date unknown)"
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "a100-sxm4-80gb", "a10-24gb"}), min_offers=5)
    offline = Recording(
        "stale_capture", "real OCI price-list response (opencost test data, date unknown)",
        (Served(API_URL, "stale_capture_pricelist_products_usd.json",
                fixture="oci/opencost_oci_pricelist_products_usd.json"),))
    api_url = API_URL

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        items = list_field(payload, "items", self.id)
        gpu_parts = {}
        for item in items:
            if item.get("metricName") == "GPU Per Hour":
                gpu_parts[field(item, "partNumber", self.id, "items[]")] = item
        if items and not gpu_parts:
            raise ParseError(f"{self.id}: {len(items)} products but none with metricName 'GPU Per Hour'")
        offers = []
        for shape, (part, gpu_name, count) in GPU_SHAPES.items():
            item = gpu_parts.get(part)
            if item is None:
                continue
            price, currency = self._usd_price(item)
            if price is None:
                continue
            offers.append(
                Offer(
                    source=self.id, channel="cloud", provider=self.provider, offer_id=f"{shape}|{part}",
                    title=f"{shape}: {item.get('displayName', '').strip()}", raw_gpu_name=gpu_name,
                    gpu_id=resolve_gpu_id(gpu_name, "oci"), gpu_count=Fraction(count), pricing_type="on_demand",
                    price=price, currency=currency, price_unit="gpu_hour", instance_type=shape,
                    document_index=index,
                )
            )
        return offers

    def _usd_price(self, item: dict):
        for localization in item.get("currencyCodeLocalizations") or []:
            for price in localization.get("prices") or []:
                if price.get("model") == "PAY_AS_YOU_GO":
                    return money(price.get("value"), f"{item['partNumber']} price", self.id), localization["currencyCode"]
        return None, None
