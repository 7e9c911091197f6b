"""Micro Center search pages (`/search/search_results.aspx?Ntt=<query>&storeid=<NNN>`). Prices and stock are per
store, so every query pins a `storeid` (029 = web store) and the store is the offer's region. Each result
`li.product_wrapper` has a link with `data-id`, `data-name`, `data-price`, `data-category`; the visible
`[itemprop=price]` reads "Our price $59.99" and `.price` can hold "Original price $349.99 Save $50.00 Our price
$299.99" (the first number is the WAS price). Items are Micro Center's own: seller type retailer."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Expectations, Offer, RawDocument, Source
from scrapers.errors import ParseError
from scrapers.http import HttpClient
from scrapers.retail import classify_listing, parse_price, raise_if_blocked
from scrapers.watchlist import watchlist

BASE_URL = "https://www.microcenter.com"
GPU_CATEGORIES = ("video cards", "graphics cards")


def search_url(query: str, store_id: str) -> str:
    return f"{BASE_URL}/search/search_results.aspx?{urlencode({'Ntt': query, 'storeid': store_id})}"


class MicroCenterSearch(Source):
    id = "microcenter"
    channel = "retail"
    provider = "microcenter"
    description = "Micro Center search pages per store, queries from the watch list"
    pricing_types = ("purchase",)
    hosts = ("www.microcenter.com",)
    status = "parser tested on a real recent search page (keyboards, not GPUs)"
    expectations = Expectations(frozenset(), min_offers=1)

    def __init__(self, queries: list[str] | None = None, store_id: str | None = None):
        config = watchlist("microcenter")
        self.queries = queries if queries is not None else config.get("queries", [])
        self.store_id = store_id or config.get("store_id", "029")

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(search_url(q, self.store_id), allowed_hosts=self.hosts) for q in self.queries]

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: dict[str, Offer] = {}
        for index, document in enumerate(documents):
            html = document.body.decode("utf-8", "replace")
            raise_if_blocked(html, document.url)
            items = LexborHTMLParser(html).css("li.product_wrapper")
            if not items and "product_wrapper" not in html and "no results" not in html.lower():
                raise ParseError("Micro Center page without product_wrapper results (layout changed?)")
            for item in items:
                offer = self._item(item, index)
                if offer is not None:
                    offers.setdefault(offer.offer_id, offer)
        return list(offers.values())

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
        listing = classify_listing(title, scope=self.provider)
        category = (data.get("data-category") or "").lower()
        reject = listing.reason if not listing.is_card else None
        if reject is None and category and not any(c in category for c in GPU_CATEGORIES):
            reject = f"not a video card (category {data.get('data-category')})"
        return Offer(
            source=self.id, channel="retail", provider=self.provider, offer_id=f"{data['data-id']}@{self.store_id}",
            raw_gpu_name=listing.raw_gpu_name or title[:120], gpu_id=listing.gpu_id, gpu_count=1,
            pricing_type="purchase", price=price, currency="USD", price_unit="card", region=f"store-{self.store_id}",
            title=title, bundled=False, condition="new", seller_type="retailer", in_stock=None,
            url=f"{BASE_URL}{link.attributes.get('href', '')}", document_index=index, reject_reason=reject,
        )
