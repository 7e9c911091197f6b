"""Azure Retail Prices parser: the real sample (format) and a synthetic fixture in the documented item format."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from fractions import Fraction

import pytest
from conftest import AnsweringClient, document, raw_document

from scrapers.cloud.azure import FIRST_PAGE_URL, AzureRetailPrices
from scrapers.errors import ParseError
from scrapers.http import HttpClient
from scrapers.replay import OFFLINE_HTTP, RecordedServer, load_recordings, replay_plan, rewrite_to
from warehouse.ingest.normalize import price_per_unit

SYNTHETIC = "azure/synthetic_documented_format_gpu_items.json"


def test_real_sample_envelope_parses_and_a_storage_meter_is_not_an_offer():
    # The only real capture we hold is a GBP storage meter: right envelope, no GPU VM in it.
    assert AzureRetailPrices().parse([document("azure/azrp_go_test_retail_prices_response.json")]) == []


def test_filters_and_pricing_types():
    offers = AzureRetailPrices().parse([document(SYNTHETIC)])
    by_meter = {o.offer_id.split("|")[1]: o for o in offers}
    # kept: on-demand, spot, both reservations, the $0 row (the integrity check quarantines it with its reason),
    # the A10 share, and an N-series size we do not know (kept unmatched)
    assert set(by_meter) == {f"synthetic-{n}" for n in (1, 2, 5, 6, 7, 8, 9)}
    assert by_meter["synthetic-1"].pricing_type == "on_demand"
    assert by_meter["synthetic-2"].pricing_type == "spot"
    assert (by_meter["synthetic-5"].pricing_type, by_meter["synthetic-5"].term_months) == ("reserved_1y", 12)
    assert (by_meter["synthetic-6"].pricing_type, by_meter["synthetic-6"].term_months) == ("reserved_3y", 36)
    unknown = by_meter["synthetic-9"]
    assert unknown.gpu_id is None and unknown.gpu_count is None and unknown.raw_gpu_name == "Standard_NC999ads_Z900_v9"


def test_reservation_price_is_a_term_total_not_hourly():
    offers = AzureRetailPrices().parse([document(SYNTHETIC)])
    one_year = next(o for o in offers if o.pricing_type == "reserved_1y")
    three_years = next(o for o in offers if o.pricing_type == "reserved_3y")
    assert one_year.price_unit == "instance_term" and one_year.gpu_count == 8
    # 560640 USD for 8760 hours of an 8-GPU VM = 8.00 USD per GPU-hour; 1261440 over 26280 h = 6.00
    assert price_per_unit(one_year) == Decimal("8.000000")
    assert price_per_unit(three_years) == Decimal("6.000000")
    on_demand = next(o for o in offers if o.pricing_type == "on_demand" and o.gpu_count == 8)
    assert price_per_unit(on_demand) == Decimal("12.290000")


def test_fractional_gpu_share():
    offers = AzureRetailPrices().parse([document(SYNTHETIC)])
    a10 = next(o for o in offers if o.instance_type == "Standard_NV6ads_A10_v5")
    assert a10.gpu_count == Fraction(1, 6)
    assert price_per_unit(a10) == Decimal("2.724000")


@pytest.mark.parametrize(
    "body, message",
    [
        (b"<html><title>Are you a human?</title></html>", "not JSON"),
        (b'{"BillingCurrency": "USD", "Items": [{"armSkuName": "Std', "not JSON"),
        (b'{"error": {"code": "TooManyRequests"}}', "no Items list"),
        (b'{"Items": [{"armSkuName": "Standard_NC6s_v3"}]}', "item without"),
    ],
)
def test_wrong_shapes_are_parse_errors(body, message):
    bad = raw_document(body, url="https://prices.azure.com/x")
    with pytest.raises(ParseError, match=message):
        AzureRetailPrices().parse([bad])


def test_fetch_follows_next_page_link_through_every_page():
    day = replay_plan(load_recordings())[0]
    pages = [route for route, file in day.routes.items() if file.startswith("azure/")]

    async def fetch():
        with RecordedServer() as server:
            server.routes = day.routes
            async with HttpClient(OFFLINE_HTTP, rewrite=rewrite_to(server.base_url)) as client:
                return await AzureRetailPrices().fetch(client), server.requests

    documents, requests = asyncio.run(fetch())
    assert len(documents) == len(pages) > 1
    assert documents[0].url == FIRST_PAGE_URL and "$skip=100" in documents[1].url
    assert sorted(requests) == sorted(pages)
    offers = AzureRetailPrices().parse(documents)
    assert len(offers) > 1500


AZURE_HOST = "prices.azure.com"


def azure_page(next_link: str | None) -> bytes:
    return json.dumps({"BillingCurrency": "USD", "Items": [], "NextPageLink": next_link}).encode()


def test_fetch_follows_next_page_link_until_null():
    second = f"{FIRST_PAGE_URL}&$skip=100"
    client = AnsweringClient({FIRST_PAGE_URL: azure_page(second), second: azure_page(None)}, AZURE_HOST)
    documents = asyncio.run(AzureRetailPrices().fetch(client))
    assert [url for url, _ in client.asked] == [FIRST_PAGE_URL, second] and len(documents) == 2


def test_a_next_page_link_back_to_a_fetched_page_is_a_parse_error():
    second = f"{FIRST_PAGE_URL}&$skip=100"
    client = AnsweringClient({FIRST_PAGE_URL: azure_page(second), second: azure_page(FIRST_PAGE_URL)}, AZURE_HOST)
    with pytest.raises(ParseError, match="loops"):
        asyncio.run(AzureRetailPrices().fetch(client))
    assert [url for url, _ in client.asked] == [FIRST_PAGE_URL, second]


def test_a_page_without_items_stops_the_fetch():
    client = AnsweringClient({FIRST_PAGE_URL: b'{"error": {"code": "TooManyRequests"}}'}, AZURE_HOST)
    with pytest.raises(ParseError, match="no Items list"):
        asyncio.run(AzureRetailPrices().fetch(client))
