"""Azure Retail Prices API (public, no key): on-demand, spot and 1y/3y reservation prices of GPU VM sizes.

Facts (learn.microsoft.com "Azure Retail Prices overview"):
- `GET https://prices.azure.com/api/retail/prices?$filter=...` returns `{BillingCurrency, Items[], NextPageLink,
  Count}`; follow `NextPageLink` until it is null (the link already carries `$skip`).
- Prices are per VM-hour (`unitOfMeasure` "1 Hour"). Spot is a separate meter whose `skuName`/`meterName` ends
  in " Spot"; " Low Priority" meters are the retired low-priority VMs; Windows rows include a licence.
- `type` "Reservation" rows carry `reservationTerm` ("1 Year" / "3 Years") and, despite "1 Hour", a price that
  is the TOTAL for the whole term (Microsoft's own example: E64 v4, 1 Year, 25007.0). Reading it as hourly is
  the classic bug; we store it as `instance_term` and divide by the term's hours.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from urllib.parse import quote

from scrapers.base import Expectations, Offer
from scrapers.cloud.azure_vm_sizes import is_gpu_vm_size, vm_sizes
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Generated

API_URL = "https://prices.azure.com/api/retail/prices"
# Only the N-series (GPU) VM meters: cuts ~130k VM meters to a few thousand.
FILTER = "serviceName eq 'Virtual Machines' and contains(armSkuName, 'Standard_N')"
FIRST_PAGE_URL = f"{API_URL}?api-version=2023-01-01-preview&$filter={quote(FILTER, safe='')}"
MAX_PAGES = 500

RESERVATION_TERMS = {"1 Year": ("reserved_1y", 12), "3 Years": ("reserved_3y", 36)}


class AzureRetailPrices(JsonApiSource):
    id = "azure"
    provider = "azure"
    description = "Azure Retail Prices API: GPU VM sizes (N-series)"
    pricing_types = ("on_demand", "spot", "reserved_1y", "reserved_3y")
    hosts = ("prices.azure.com",)
    parser_version = 1
    status = (
        "parser tested on Microsoft's documented format; offline replay uses pages reconstructed from real "
        "SkyPilot Azure prices (flagged synthetic); live fetch not run here (no internet)"
    )
    expectations = Expectations(
        expected_gpu_ids=frozenset({"a100-pcie-80gb", "h100-sxm5-80gb", "t4-16gb", "a10-24gb"}),
        min_offers=50,
    )
    offline = Generated("dev.recordings.from_skypilot:azure_price_pages",
                        "Retail Prices API pages rebuilt from each dated SkyPilot Azure catalog")
    api_url = FIRST_PAGE_URL
    records_key = "Items"

    def load(self, document: RawDocument) -> dict:
        """A page's JSON, checked to hold an Items list (read for NextPageLink while fetching, then parsed)."""
        page = super().load(document)
        if not isinstance(page, dict) or not isinstance(page.get("Items"), list):
            keys = list(page)[:8] if isinstance(page, dict) else type(page).__name__
            raise ParseError(f"azure: page {document.url} has no Items list (keys: {keys})")
        return page

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        url = self.load(document).get("NextPageLink") or None
        if url and (len(documents) >= MAX_PAGES or any(fetched.url == url for fetched in documents)):
            raise ParseError(f"azure: NextPageLink loops or exceeds {MAX_PAGES} pages at {url}")
        return url

    def parse_record(self, item: dict, document_index: int, number: int) -> list[Offer]:
        try:
            sku = item["armSkuName"]
            product = item["productName"]
            sku_name = item["skuName"]
            meter = item["meterName"]
            price_type = item["type"]
            raw_price = item["retailPrice"]
            currency = item["currencyCode"]
            region = item["armRegionName"]
        except KeyError as missing:
            raise ParseError(f"azure: item without {missing}: {json.dumps(item)[:300]}") from None
        if item.get("serviceName", "Virtual Machines") != "Virtual Machines" or not is_gpu_vm_size(sku):
            return []
        if "Windows" in product or product.endswith(" Win") or "Cloud Services" in product:
            return []  # licence-inclusive or classic Cloud Services meters: not the Linux VM price
        if "Low Priority" in sku_name or "Low Priority" in meter:
            return []  # retired low-priority VMs; spot replaced them
        if item.get("unitOfMeasure") != "1 Hour":
            return []
        try:
            price = Decimal(str(raw_price))
        except InvalidOperation:
            raise ParseError(f"azure: price {raw_price!r} is not a number") from None

        term_months = None
        if price_type == "Consumption":
            is_spot = sku_name.endswith(" Spot") or meter.endswith(" Spot")
            pricing_type, price_unit = ("spot" if is_spot else "on_demand"), "instance_hour"
        elif price_type == "Reservation":
            term = item.get("reservationTerm")
            if term not in RESERVATION_TERMS:
                raise ParseError(f"azure: unknown reservationTerm {term!r} for {sku}")
            pricing_type, term_months = RESERVATION_TERMS[term]
            price_unit = "instance_term"
        else:
            return []  # DevTestConsumption and other non-public price types

        known = vm_sizes().get(sku)
        gpu_name, gpu_count = known if known else (sku, None)  # unknown N-series size: kept, reported unmatched
        return [Offer(
            source=self.id,
            channel="cloud",
            provider=self.provider,
            offer_id=f"{item.get('skuId', sku)}|{item.get('meterId', '')}|{price_type}|{term_months or ''}",
            title=f"{product} {sku_name}",
            raw_gpu_name=gpu_name,
            gpu_id=resolve_gpu_id(gpu_name, "azure") if known else None,
            gpu_count=gpu_count,
            pricing_type=pricing_type,
            term_months=term_months,
            price=price,
            currency=currency,
            price_unit=price_unit,
            region=region,
            instance_type=sku,
            document_index=document_index,
        )]
