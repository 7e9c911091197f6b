"""Micro Center search pages (`/search/search_results.aspx?Ntt=<query>&storeid=<NNN>`). Prices and stock are per
store, so every query pins a `storeid` (029 = web store) and the store is the offer's region. Each result
`li.product_wrapper` has a link with `data-id`, `data-name`, `data-price`, `data-category`; the visible
`[itemprop=price]` reads "Our price $59.99" and `.price` can hold "Original price $349.99 Save $50.00 Our price
$299.99" (the first number is the WAS price). Items are Micro Center's own: seller type retailer."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Offer
from scrapers.errors import ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated
from scrapers.retail.pages import RetailSource, parse_price
from scrapers.retail.watchlist import watchlist

BASE_URL = "https://www.microcenter.com"
GPU_CATEGORIES = ("video cards", "graphics cards")


def search_url(query: str, store_id: str) -> str:
    return f"{BASE_URL}/search/search_results.aspx?{urlencode({'Ntt': query, 'storeid': store_id})}"


class MicroCenterSearch(RetailSource):
    id = "microcenter"
    provider = "microcenter"
    description = "Micro Center search pages per store, queries from the watch list"
    hosts = ("www.microcenter.com",)
    status = "parser tested on a real recent search page (keyboards, not GPUs)"
    offline = Generated("dev.recordings.retail_scenario:microcenter_search_pages", "a Micro Center search page a day")

    def __init__(self, queries: list[str] | None = None, store_id: str | None = None):
        config = watchlist("microcenter")
        self.queries = queries if queries is not None else config.get("queries", [])
        self.store_id = store_id or config.get("store_id", "029")

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(search_url(q, self.store_id), allowed_hosts=self.hosts) for q in self.queries]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        items = LexborHTMLParser(html).css("li.product_wrapper")
        if not items and "product_wrapper" not in html and "no results" not in html.lower():
            raise ParseError("Micro Center page without product_wrapper results (layout changed?)")
        return [offer for offer in (self._item(item, index) for item in items) if offer is not None]

    def _item(self, item, index: int) -> Offer | None:
        link = item.css_first('a[data-id][href^="/product/"]') or item.css_first("a[data-id]")
        if link is None:
            return None
        data = link.attributes
        try:
            price = Decimal(data.get("data-price") or "")
        except InvalidOperation:
            shown = item.css_first("[itemprop=price]")
            price = parse_price(shown.text() if shown else None, "USD")
        if price is None or price <= 0:
            return None  # no price shown: no observation
        title = " ".join((link.text() or data.get("data-name") or "").split())
        category = (data.get("data-category") or "").lower()
        return self.card_offer(
            offer_id=f"{data['data-id']}@{self.store_id}", title=title, price=price, currency="USD",
            url=f"{BASE_URL}{link.attributes.get('href', '')}", index=index, region=f"store-{self.store_id}",
            not_a_card=f"not a video card (category {data.get('data-category')})"
            if category and not any(c in category for c in GPU_CATEGORIES) else None,
        )
