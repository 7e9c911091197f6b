"""The paging limits of Azure and Scaleway, which page through JsonApiSource's next_url: a loop or a page count
past the cap is stopped, not fetched forever."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import raw_document

from scrapers.cloud.azure import FIRST_PAGE_URL, AzureRetailPrices
from scrapers.cloud.scaleway import PER_PAGE, Scaleway, servers_url
from scrapers.errors import ParseError


class AnsweringClient:
    """A stand-in client: answers each URL from a map and records the URLs asked, in order."""

    def __init__(self, answers: dict[str, bytes]):
        self.answers, self.asked = answers, []

    async def get(self, url, *, allowed_hosts, headers=None):
        self.asked.append(url)
        return raw_document(self.answers[url], url=url)


def azure_page(next_link: str | None) -> bytes:
    return json.dumps({"BillingCurrency": "USD", "Items": [], "NextPageLink": next_link}).encode()


def test_azure_follows_next_page_link_until_null():
    second = f"{FIRST_PAGE_URL}&$skip=100"
    client = AnsweringClient({FIRST_PAGE_URL: azure_page(second), second: azure_page(None)})
    documents = asyncio.run(AzureRetailPrices().fetch(client))
    assert client.asked == [FIRST_PAGE_URL, second] and len(documents) == 2


def test_azure_next_page_link_back_to_a_fetched_page_is_a_parse_error():
    second = f"{FIRST_PAGE_URL}&$skip=100"
    client = AnsweringClient({FIRST_PAGE_URL: azure_page(second), second: azure_page(FIRST_PAGE_URL)})
    with pytest.raises(ParseError, match="loops"):
        asyncio.run(AzureRetailPrices().fetch(client))
    assert client.asked == [FIRST_PAGE_URL, second]


def test_azure_page_without_items_stops_the_fetch():
    client = AnsweringClient({FIRST_PAGE_URL: b'{"error": {"code": "TooManyRequests"}}'})
    with pytest.raises(ParseError, match="no Items list"):
        asyncio.run(AzureRetailPrices().fetch(client))


def test_scaleway_full_pages_stop_at_the_page_cap_then_go_to_the_next_zone():
    full = json.dumps({"servers": {f"T{n}": {"gpu": 0} for n in range(PER_PAGE)}}).encode()
    answers = {servers_url(zone, page): full for zone in ("fr-par-2", "pl-waw-2") for page in range(1, 8)}
    client = AnsweringClient(answers)
    asyncio.run(Scaleway(zones=["fr-par-2", "pl-waw-2"]).fetch(client))
    # 5 pages a zone at the most (the module's cap: ~140 types a zone today)
    assert client.asked == [servers_url(zone, page) for zone in ("fr-par-2", "pl-waw-2") for page in range(1, 6)]
