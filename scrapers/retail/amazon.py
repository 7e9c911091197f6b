"""Amazon product pages (`/dp/<ASIN>`) and search pages (`/s?k=<query>`), on amazon.com and the other storefronts
(a currency written in the price wins: amazon.com showing "EUR 12.99" to a visitor is EUR; a bare number or an
ambiguous "$" takes the storefront's currency: amazon.co.uk is GBP, amazon.ca CAD).

The buy-box price moved three times in the saved pages, so the parser reads the first of these that holds text:
recent `#corePrice_feature_div .a-offscreen` ([price to pay, struck list price]; the `.priceToPay .a-offscreen`
and the first `#apex_desktop .a-offscreen` are empty there), 2021 `#priceblock_ourprice` /
`#tp_price_block_total_price_ww .a-offscreen`, 2019 `#priceblock_saleprice`. A generic `.a-offscreen` would
first hit "1 New from $29.99" (other sellers' teaser), so it is never used. On the recent page the price to pay is
offered as a Prime member price beside the plain NEW buying option at the list price: we record the price to pay
(selling) and the list price (list) as two rows, as the page shows them.

Search results: `div[data-component-type="s-search-result"][data-asin]` with `.a-price .a-offscreen` = [price,
struck list price (`data-a-strike="true"`)]; sponsored cards are real listings and count once per ASIN.
The seller is Amazon itself ("sold by Amazon.com") or a marketplace seller; "Renewed" titles are refurbished.
A captcha page ("Enter the characters you see below") is a blocked page, never a price."""

from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Offer
from scrapers.errors import ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated
from scrapers.parsing import node_text
from scrapers.retail.pages import RetailSource, parse_price, written_currency
from scrapers.retail.watchlist import watchlist

CURRENCY_BY_HOST = {
    "www.amazon.com": "USD", "www.amazon.ca": "CAD", "www.amazon.co.uk": "GBP", "www.amazon.de": "EUR",
    "www.amazon.fr": "EUR", "www.amazon.it": "EUR", "www.amazon.es": "EUR", "www.amazon.nl": "EUR",
    "www.amazon.co.jp": "JPY",
}
# Where the buy-box price has lived, newest layout first.
BUY_BOX_PRICE = (
    "#corePrice_feature_div .a-offscreen", "#corePriceDisplay_desktop_feature_div .priceToPay .a-offscreen",
    "#priceblock_dealprice", "#priceblock_saleprice", "#priceblock_ourprice",
    "#tp_price_block_total_price_ww .a-offscreen", "#price_inside_buybox",
)
LIST_PRICE = (".basisPrice .a-offscreen", '#corePrice_feature_div [data-a-strike="true"] .a-offscreen',
              "#priceblock_ourprice_row .a-text-strike", "#listPrice")
_ASIN_IN_URL = re.compile(r"/(?:dp|gp/product)/([A-Z0-9]{10})")
UNAVAILABLE = ("currently unavailable", "out of stock", "temporarily out of stock")


def _first_text(tree, selectors) -> str:
    for selector in selectors:
        for node in tree.css(selector):
            if node_text(node):
                return node_text(node)
    return ""


class AmazonPages(RetailSource):
    id = "amazon"
    provider = "amazon"
    description = "Amazon product pages and search pages from the watch list (buy box, three layouts)"
    hosts = tuple(CURRENCY_BY_HOST)
    status = "parser tested on real 2019, 2021 and recent product pages and recent .com / 2022 .de searches " \
             "(none are GPUs)"
    offline = Generated("dev.recordings.retail_scenario:amazon_search_pages", "an Amazon search page a day")

    def __init__(self, products: list[str] | None = None, queries: list[str] | None = None,
                 storefront: str | None = None):
        config = watchlist("amazon")
        self.products = products if products is not None else config.get("products", [])
        self.queries = queries if queries is not None else config.get("queries", [])
        self.storefront = storefront or config.get("storefront", "www.amazon.com")

    def search_url(self, query: str) -> str:
        return f"https://{self.storefront}/s?{urlencode({'k': query})}"

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        urls = [*self.products, *(self.search_url(query) for query in self.queries)]
        return [await client.get(url, allowed_hosts=self.hosts) for url in urls]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        host = urlsplit(url).netloc or self.storefront
        currency = CURRENCY_BY_HOST.get(host)
        if currency is None:
            raise ParseError(f"{host} is not an Amazon storefront we know the currency of")
        tree = LexborHTMLParser(html)
        cards = tree.css('div[data-component-type="s-search-result"][data-asin]')
        if cards:
            return [offer for card in cards for offer in self._search_card(card, host, currency, index)]
        if tree.css_first("#productTitle") is not None:
            return self._product(tree, url, host, currency, index)
        if "/s?" in url and "no results for" in html.lower():
            return []
        raise ParseError("Amazon page without #productTitle or search results (layout changed?)")

    def _product(self, tree, url: str, host: str, currency: str, index: int) -> list[Offer]:
        asin_node = tree.css_first("input#ASIN")
        asin = (asin_node.attributes.get("value") if asin_node else None) or \
            (_ASIN_IN_URL.search(url).group(1) if _ASIN_IN_URL.search(url) else "")
        if not asin:
            raise ParseError("Amazon product page without an ASIN")
        title = node_text(tree.css_first("#productTitle"))
        availability = node_text(tree.css_first("#availability")).lower()
        in_stock = False if any(word in availability for word in UNAVAILABLE) else \
            True if "in stock" in availability or tree.css_first("#add-to-cart-button") is not None else None
        buy_box = _first_text(tree, BUY_BOX_PRICE)
        price, currency = parse_price(buy_box, currency), written_currency(buy_box, currency)
        if price is None:
            if in_stock is False:
                return []  # "Currently unavailable" without a price: no observation
            raise ParseError(f"Amazon {asin}: no buy-box price in any known layout (layout changed?)")
        seller = node_text(tree.css_first("#merchantInfoFeature_feature_div") or tree.css_first("#merchant-info"))
        sold_by_amazon = bool(re.search(r"sold by amazon(\.\w+)*\b", seller, re.I))
        seller_type = "retailer" if sold_by_amazon else "marketplace" if seller else None  # no seller line: unknown
        list_price = parse_price(_first_text(tree, LIST_PRICE), currency)
        return self._offers(asin, title, price, list_price, currency, host, index, seller_type, in_stock)

    def _search_card(self, card, host: str, currency: str, index: int) -> list[Offer]:
        asin = card.attributes.get("data-asin") or ""
        if not asin:
            return []  # layout placeholders carry an empty data-asin
        title = node_text(card.css_first("h2"))
        selling = next((node_text(node) for node in card.css(".a-price:not([data-a-strike]) .a-offscreen")
                        if node_text(node)), "")
        price, currency = parse_price(selling, currency), written_currency(selling, currency)
        if price is None:
            return []  # "See options" / no featured offer: no observation
        list_price = parse_price(_first_text(card, ('.a-price[data-a-strike="true"] .a-offscreen',)), currency)
        # a search card does not say who sells
        return self._offers(asin, title, price, list_price, currency, host, index, seller_type=None, in_stock=True)

    def _offers(self, asin, title, price, list_price, currency, host, index, seller_type, in_stock) -> list[Offer]:
        """The selling row, and the struck list price as its own `list` row when it differs."""
        common = dict(title=title, currency=currency, url=f"https://{host}/dp/{asin}", index=index, region=host,
                      condition="refurbished" if "renewed" in title.lower() else "new", seller_type=seller_type,
                      in_stock=in_stock)
        offers = [self.card_offer(offer_id=asin, price=price, **common)]
        if list_price is not None and list_price != price:
            offers.append(self.card_offer(offer_id=f"{asin}:list", price=list_price, role="list", **common))
        return offers
