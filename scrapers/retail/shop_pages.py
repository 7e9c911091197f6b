"""Any shop's product page from the watch list (`[shops] products`): Shopify, WooCommerce, BigCommerce and the
resellers of datacenter GPUs that run on them declare their product in JSON-LD, OpenGraph product meta or
microdata. The declared offer is the price; when OpenGraph declares a lower price in the same currency, that is the
sale price and the JSON-LD figure the list price (Rejuvenation's page). A page with no declared price is no
observation (never a price of 0); the provider is the shop's host."""

from __future__ import annotations

from urllib.parse import urlsplit

from scrapers.base import Offer
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated
from scrapers.retail.pages import RetailSource, structured_offers
from scrapers.retail.watchlist import watchlist


class ShopProductPages(RetailSource):
    id = "shops"
    provider = "shops"
    description = "product pages of any shop in the watch list (JSON-LD / OpenGraph / microdata)"
    status = "parser tested on real shop pages (Costco, Etsy, Overstock, Rejuvenation, Potterybarn...)"
    offline = Generated("dev.recordings.retail_scenario:shop_product_pages", "a made-up reseller's pages, every day")

    def __init__(self, products: list[str] | None = None):
        self.products = products if products is not None else watchlist("shops").get("products", [])
        self.hosts = tuple(sorted({urlsplit(url).hostname or "" for url in self.products}))

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(url, allowed_hosts=self.hosts) for url in self.products]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        declared = [o for o in structured_offers(html) if o.price is not None and o.currency]
        if not declared:
            return []
        selling = next((o for o in declared if o.origin != "opengraph"), declared[0])
        listed = None
        opengraph = next((o for o in declared if o.origin == "opengraph"), None)
        if opengraph and opengraph is not selling and opengraph.currency == selling.currency \
                and opengraph.price < selling.price:
            selling, listed = opengraph, selling
        host = (urlsplit(url).hostname or "shop").removeprefix("www.")
        title = next((o.title for o in declared if o.title), None) or ""

        def offer(found, role: str, suffix: str = "") -> Offer:
            return self.card_offer(
                offer_id=f"{url}{suffix}", title=title, price=found.price, currency=found.currency.upper(), url=url,
                index=index, provider=host, condition=found.condition or "new", role=role,
                in_stock=found.in_stock if found.in_stock is not None else selling.in_stock,
            )

        return [offer(selling, "selling")] + ([offer(listed, "list", "#list")] if listed else [])
