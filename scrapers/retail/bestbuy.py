"""Best Buy: pages (search results and product pages, 2020 and current layouts) and the Products API.

2020 search: `li.sku-item[data-sku-id]`, title in `h4.sku-header a`, price = the FIRST span of
`.priceView-hero-price` / `.priceView-customer-price` (the second is screen-reader text), a "Sold Out" button.
Current search: `.product-list-item[data-product-id]`, `[data-testid=price-block-customer-price]` whose text is
doubled ("$59.99$59.99"). 2020 product pages carry a JSON-LD Product (offers.price, availability SoldOut); current
product pages carry none (read the h1 and the customer price block). Products API (`BESTBUY_API_KEY`):
`products[]` with salePrice (selling) and regularPrice (list); the only sample is a hand-written response of the
documented shape (its file name says SUSPECT)."""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Offer
from scrapers.errors import ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Recording, Served
from scrapers.parsing import node_text
from scrapers.retail.pages import (
    RetailSource,
    json_answer,
    parse_price,
    structured_offers,
)
from scrapers.retail.watchlist import watchlist

BASE_URL = "https://www.bestbuy.com"
API_URL = "https://api.bestbuy.com/v1/products"
API_FIELDS = "sku,name,salePrice,regularPrice,onSale,condition,onlineAvailability,url"
# The real 2020 RTX 3080 pages of the offline recording: a search and a sold-out product page
RECORDED_PAGES = ("https://www.bestbuy.com/site/searchpage.jsp?st=rtx+3080",
                  "https://www.bestbuy.com/site/evga-geforce-rtx-3080-xc3-ultra-gaming/6432400.p?skuId=6432400")


class _BestBuyOffers(RetailSource):
    provider = "bestbuy"

    def _offer(self, sku, title, price, in_stock, url, index, role="selling", condition="new") -> Offer:
        return self.card_offer(
            offer_id=f"{sku}" + ("#list" if role == "list" else ""), title=title, price=price, currency="USD",
            url=url, index=index, region="US", condition=condition, in_stock=in_stock, role=role,
        )


class BestBuyPages(_BestBuyOffers):
    id = "bestbuy"
    description = "Best Buy search and product pages (2020 and current layouts), from the watch list"
    hosts = ("www.bestbuy.com",)
    watch_fields = ("pages",)
    status = "parser tested on real 2020 RTX 3080 search/product pages and current (non-GPU) pages"

    offline = Recording(
        "stale_capture", "REAL pages saved in December 2020 (RTX 3080 shortage), replayed on every day: 2020 prices",
        (Served(RECORDED_PAGES[0], "stale_capture_2020_bestbuy_search_rtx3080_2020.html"),
         Served(RECORDED_PAGES[1], "stale_capture_2020_bestbuy_product_evga_rtx3080_soldout_2020.html")),  # kept once
        overrides={"pages": list(RECORDED_PAGES)})

    def __init__(self, pages: list[str] | None = None):
        self.pages = pages if pages is not None else watchlist("bestbuy").get("pages", [])

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(url, allowed_hosts=self.hosts) for url in self.pages]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        tree = LexborHTMLParser(html)
        found = self._search_2020(tree, index) or self._search_current(tree, index) or self._product(tree, html, url, index)
        if not found:
            raise ParseError("Best Buy page with no results, product or price we know (layout changed?)")
        return found

    def _search_2020(self, tree, index) -> list[Offer]:
        offers = []
        for item in tree.css("li.sku-item[data-sku-id]"):
            link = item.css_first("h4.sku-header a") or item.css_first(".sku-title a")
            span = item.css_first(".priceView-hero-price span") or item.css_first(".priceView-customer-price span")
            price = parse_price(span.text() if span else None, "USD")
            if link is None or price is None:
                continue
            button = node_text(item.css_first(".fulfillment-add-to-cart-button") or item.css_first("button"))
            in_stock = False if "sold out" in button.lower() else True if "add to cart" in button.lower() else None
            offers.append(self._offer(item.attributes["data-sku-id"], node_text(link), price, in_stock,
                                      BASE_URL + link.attributes.get("href", "").split("?", 1)[0], index))
        return offers

    def _search_current(self, tree, index) -> list[Offer]:
        offers = []
        for item in tree.css(".product-list-item[data-product-id]"):
            title = node_text(item.css_first("h2") or item.css_first(".product-title"))
            block = item.css_first('[data-testid="price-block-customer-price"]')
            price = parse_price(block.text() if block else None, "USD")  # "$59.99$59.99": the first one
            link = item.css_first('a[href*=".p?"]') or item.css_first("a[href]")
            if not title or price is None:
                continue  # a lazy skeleton without a price yet: no observation
            href = link.attributes.get("href", "") if link else ""
            offers.append(self._offer(item.attributes["data-product-id"], title, price, None,
                                      (href if href.startswith("http") else BASE_URL + href).split("?", 1)[0], index))
        return offers

    def _product(self, tree, html, url, index) -> list[Offer]:
        declared = [o for o in structured_offers(html) if o.origin == "json-ld" and o.price is not None]
        sku = url.rsplit("skuId=", 1)[-1] if "skuId=" in url else url.rstrip("/").rsplit("/", 1)[-1].split(".p")[0]
        if declared:
            offer = declared[0]
            return [self._offer(sku, offer.title or "", offer.price, offer.in_stock, url.split("?", 1)[0], index,
                                condition=offer.condition or "new")]
        heading = tree.css_first("h1")
        block = tree.css_first('[data-testid="price-block-customer-price"]')
        price = parse_price(block.text() if block else None, "USD")
        if heading is None or price is None:
            return []
        return [self._offer(sku, node_text(heading), price, None, url.split("?", 1)[0], index)]


class BestBuyApi(_BestBuyOffers):
    id = "bestbuy-api"
    description = "Best Buy Products API v1: watch-list queries"
    hosts = ("api.bestbuy.com",)
    api_key_env = "BESTBUY_API_KEY"
    status = "parser tested on a hand-written response of the documented shape (no real capture)"

    def __init__(self, queries: list[str] | None = None):
        self.queries = queries if queries is not None else watchlist("bestbuy").get("api_queries", [])

    def url(self, query: str, key: str) -> str:
        terms = "&".join(f"search={quote(word)}" for word in query.split())
        return f"{API_URL}(({terms}))?format=json&show={API_FIELDS}&pageSize=100&apiKey={key}"

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        key = self.require_key()
        return [await client.get(self.url(query, key), allowed_hosts=self.hosts) for query in self.queries]

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: dict[str, Offer] = {}
        for index, document in enumerate(documents):
            for product in json_answer(document, "Best Buy API", "products")["products"] or []:
                sale, regular = product.get("salePrice"), product.get("regularPrice")
                if sale is None:
                    continue
                sku, title = str(product["sku"]), product.get("name") or ""
                condition = {"refurbished": "refurbished", "pre-owned": "used", "open-box": "open_box"}.get(
                    str(product.get("condition") or "new").lower(), "new")
                in_stock = product.get("onlineAvailability")
                found = [self._offer(sku, title, Decimal(str(sale)), in_stock, product.get("url"), index,
                                     condition=condition)]
                if regular is not None and Decimal(str(regular)) != Decimal(str(sale)):
                    found.append(self._offer(sku, title, Decimal(str(regular)), in_stock, product.get("url"), index,
                                             role="list", condition=condition))
                for offer in found:
                    offers.setdefault(offer.offer_id, offer)
        return list(offers.values())
