"""eBay search result pages in the 2025+ `s-card` layout (`li.s-card[data-listingid]`). Each card: the title in
`.s-card__title .su-styled-text` (not the "New Listing" or "Opens in a new window or tab" spans), the price in
`.s-card__price` (a range on variation listings), the condition in `.s-card__subtitle` ("Brand New",
"Pre-Owned"...), and attribute rows for buying format, delivery ("+$1.44 delivery", "Free ... Shipping") and the
seller. The "Shop on eBay" ghost card (listing 2500219655424533, $20.00) is on every page and is never an offer.
A "Pardon Our Interruption" challenge is a blocked page, not "0 results". Sellers on eBay are marketplace sellers."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Offer, RawDocument
from scrapers.errors import ParseError
from scrapers.http import HttpClient
from scrapers.retail import RetailSource, condition_from_text, parse_price, parse_range
from scrapers.watchlist import watchlist

SEARCH_URL = "https://www.ebay.com/sch/i.html"
GHOST_LISTING_ID = "2500219655424533"
GPU_CATEGORY = "27386"  # Graphics/Video Cards


def search_url(query: str) -> str:
    return f"{SEARCH_URL}?{urlencode({'_nkw': query, '_sacat': GPU_CATEGORY, 'LH_BIN': 1})}"


class EbaySearch(RetailSource):
    id = "ebay"
    provider = "ebay"
    description = "eBay.com search pages (s-card layout), GPU queries from the watch list"
    hosts = ("www.ebay.com",)
    status = "parser tested on a real 2026 s-card page (not GPUs) and the real bot-challenge page"

    def __init__(self, queries: list[str] | None = None):
        self.queries = queries if queries is not None else watchlist("ebay").get("queries", [])

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(search_url(query), allowed_hosts=self.hosts) for query in self.queries]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        tree = LexborHTMLParser(html)
        cards = tree.css("li.s-card[data-listingid]")
        if not cards and tree.css_first("li.s-item") is None:
            raise ParseError("eBay page without s-card or s-item results (layout changed?)")
        return [offer for offer in (self._card(card, index) for card in cards) if offer is not None]

    def _card(self, card, index: int) -> Offer | None:
        listing_id = card.attributes.get("data-listingid") or ""
        title_node = card.css_first(".s-card__title .su-styled-text") or card.css_first(".s-card__title")
        title = " ".join((title_node.text() if title_node else "").split())
        if listing_id == GHOST_LISTING_ID or title == "Shop on eBay":
            return None
        price_text = card.css_first(".s-card__price").text() if card.css_first(".s-card__price") else ""
        low_high = parse_range(price_text, "USD")
        price = low_high[0] if low_high else parse_price(price_text, "USD")
        if price is None:
            return None  # no price shown: no observation
        link = card.css_first("a.su-link") or card.css_first("a")
        href = link.attributes.get("href", "") if link else ""
        url = href.split("?", 1)[0] if urlsplit(href).netloc.endswith("ebay.com") else None
        subtitle = card.css_first(".s-card__subtitle")
        return self.card_offer(
            offer_id=listing_id, title=title, price=price, currency="USD", url=url, index=index, region="US",
            condition=condition_from_text(subtitle.text() if subtitle else None) or "used",
            seller_type="marketplace", in_stock=True,
        )
