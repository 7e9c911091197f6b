"""eBay: search result pages (both layouts) and the Browse API.

Pages, 2025+ `s-card` layout (`li.s-card[data-listingid]`). Each card: the title in
`.s-card__title .su-styled-text` (not the "New Listing" or "Opens in a new window or tab" spans), the price in
`.s-card__price` (a range on variation listings), the condition in `.s-card__subtitle` ("Brand New",
"Pre-Owned"...), and attribute rows for buying format, delivery ("+$1.44 delivery", "Free ... Shipping") and the
seller. The "Shop on eBay" ghost card (listing 2500219655424533, $20.00) is on every page and is never an offer.
A "Pardon Our Interruption" challenge is a blocked page, not "0 results". Sellers on eBay are marketplace sellers.
The legacy layout (`li.s-item`, seen on eBay.de in 2022): `.s-item__title`, `.s-item__price` ("EUR 10,79"),
`.SECONDARY_INFO` (condition: "Brandneu", "Gebraucht", "Sehr gut - Refurbished"), `.s-item__shipping`, and the item
id in the `a.s-item__link` URL (`/itm/<id>`). The storefront decides the currency (ebay.de: EUR).

Browse API (`GET /buy/browse/v1/item_summary/search`, an OAuth application token minted from EBAY_CLIENT_ID and
EBAY_CLIENT_SECRET): `itemSummaries[]` with `price{value, currency[, convertedFromValue, convertedFromCurrency]}`
(we keep the seller's own amount and currency and convert with our ECB rates), `conditionId` (condition is keyed on
the id, not the text; 3 of 100 sample items have none), `buyingOptions` (an AUCTION's bid is not a selling price),
`shippingOptions[].shippingCost` (its own shipping row) and `itemWebUrl`."""

from __future__ import annotations

import base64
import json
import os
import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode, urlsplit

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Offer
from scrapers.errors import FetchError, MissingCredentials, ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated
from scrapers.parsing import node_text
from scrapers.retail.pages import (
    CONDITIONS,
    RetailSource,
    condition_from_text,
    json_answer,
    parse_priced,
)
from scrapers.retail.watchlist import watchlist

SEARCH_URL = "https://www.ebay.com/sch/i.html"
GHOST_LISTING_ID = "2500219655424533"
GPU_CATEGORY = "27386"  # Graphics/Video Cards
CURRENCY_BY_HOST = {"www.ebay.com": "USD", "www.ebay.de": "EUR", "www.ebay.co.uk": "GBP", "www.ebay.fr": "EUR",
                    "www.ebay.it": "EUR", "www.ebay.es": "EUR", "www.ebay.ca": "CAD", "www.ebay.com.au": "AUD"}
_ITEM_ID = re.compile(r"/itm/(?:[^/?]+/)?(\d{9,})")


def search_url(query: str) -> str:
    return f"{SEARCH_URL}?{urlencode({'_nkw': query, '_sacat': GPU_CATEGORY, 'LH_BIN': 1})}"


class EbaySearch(RetailSource):
    id = "ebay"
    provider = "ebay"
    description = "eBay.com search pages (s-card layout), GPU queries from the watch list"
    hosts = tuple(CURRENCY_BY_HOST)
    status = "parser tested on a real 2026 s-card page, a real 2022 s-item page (not GPUs) and the real " \
             "bot-challenge page"
    offline = Generated("dev.recordings.retail_scenario:ebay_search_pages", "an eBay search page a day")

    def __init__(self, queries: list[str] | None = None):
        self.queries = queries if queries is not None else watchlist("ebay").get("queries", [])

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(search_url(query), allowed_hosts=self.hosts) for query in self.queries]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        # the site's currency, for prices that do not write theirs (an unknown eBay site: None, never USD by default)
        currency = CURRENCY_BY_HOST.get(urlsplit(url).netloc)
        tree = LexborHTMLParser(html)
        cards = tree.css("li.s-card[data-listingid]")
        if cards:
            return [offer for offer in (self._card(card, currency, index) for card in cards) if offer is not None]
        items = tree.css("li.s-item")
        if not items:
            raise ParseError("eBay page without s-card or s-item results (layout changed?)")
        return [offer for offer in (self._legacy_item(item, currency, index) for item in items) if offer is not None]

    def _legacy_item(self, item, site_currency: str | None, index: int) -> Offer | None:
        title_node = item.css_first(".s-item__title")
        for decoration in title_node.css(".LIGHT_HIGHLIGHT, .clipped") if title_node else []:
            decoration.decompose()  # "Neues Angebot" / "New Listing" prefixes
        title = node_text(title_node)
        link = item.css_first("a.s-item__link")
        href = link.attributes.get("href", "") if link else ""
        listing = _ITEM_ID.search(href)
        if title == "Shop on eBay" or listing is None or listing.group(1) == "123456":
            return None  # the ghost card links to /itm/123456
        price_text = item.css_first(".s-item__price").text() if item.css_first(".s-item__price") else ""
        priced = parse_priced(price_text, site_currency)  # "EUR 399,99": EUR whatever the site
        if priced is None:
            return None
        condition = item.css_first(".SECONDARY_INFO")
        host = urlsplit(href).netloc
        return self.card_offer(
            offer_id=listing.group(1), title=title, price=priced[0], currency=priced[1],
            url=f"https://{host}/itm/{listing.group(1)}" if host in CURRENCY_BY_HOST else None, index=index,
            region=host or None, condition=condition_from_text(condition.text() if condition else None) or "used",
            seller_type="marketplace", in_stock=True,
        )

    def _card(self, card, site_currency: str | None, index: int) -> Offer | None:
        listing_id = card.attributes.get("data-listingid") or ""
        title_node = card.css_first(".s-card__title .su-styled-text") or card.css_first(".s-card__title")
        title = node_text(title_node)
        if listing_id == GHOST_LISTING_ID or title == "Shop on eBay":
            return None
        price_text = card.css_first(".s-card__price").text() if card.css_first(".s-card__price") else ""
        priced = parse_priced(price_text, site_currency)  # "EUR 399,99": EUR whatever the site
        if priced is None:
            return None  # no price shown: no observation
        link = card.css_first("a.su-link") or card.css_first("a")
        href = link.attributes.get("href", "") if link else ""
        url = href.split("?", 1)[0] if urlsplit(href).netloc in CURRENCY_BY_HOST else None
        subtitle = card.css_first(".s-card__subtitle")
        return self.card_offer(
            offer_id=listing_id, title=title, price=priced[0], currency=priced[1], url=url, index=index,
            region=urlsplit(url).netloc if url else None,
            condition=condition_from_text(subtitle.text() if subtitle else None) or "used",
            seller_type="marketplace", in_stock=True,
        )


BROWSE_URL = "https://api.ebay.com/buy/browse/v1/item_summary/search"
TOKEN_URL = "https://api.ebay.com/identity/v1/oauth2/token"
CLIENT_ID_ENV = "EBAY_CLIENT_ID"


def _money(node) -> tuple[Decimal, str] | None:
    """The seller's own amount and currency (convertedFrom*, when eBay converted it for the marketplace)."""
    if not isinstance(node, dict):
        return None
    value = node.get("convertedFromValue", node.get("value"))
    currency = node.get("convertedFromCurrency", node.get("currency"))
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return None
    return (amount, str(currency)) if amount > 0 and currency else None


class EbayBrowseApi(RetailSource):
    id = "ebay-api"
    provider = "ebay"
    description = "eBay Browse API item_summary/search: fixed-price GPU listings for the watch-list queries"
    hosts = ("api.ebay.com",)
    api_key_env = "EBAY_CLIENT_SECRET"
    extra_credential_envs = (CLIENT_ID_ENV,)
    status = "parser tested on real Browse API answers re-serialised from Python (not GPUs)"

    def __init__(self, queries: list[str] | None = None, marketplace: str | None = None):
        config = watchlist("ebay")
        self.queries = queries if queries is not None else config.get("queries", [])
        self.marketplace = marketplace or config.get("marketplace", "EBAY_US")

    def search_url(self, query: str) -> str:
        query_string = urlencode({"q": query, "category_ids": GPU_CATEGORY, "limit": 200,
                                  "filter": "buyingOptions:{FIXED_PRICE}"})
        return f"{BROWSE_URL}?{query_string}"

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        secret = self.require_key()
        client_id = os.environ.get(CLIENT_ID_ENV)
        if not client_id:
            raise MissingCredentials(f"{self.id}: skipped, set {CLIENT_ID_ENV} and {self.api_key_env}")
        basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        token_response = await client.post(
            TOKEN_URL, allowed_hosts=self.hosts, headers={"Authorization": f"Basic {basic}"},
            form={"grant_type": "client_credentials", "scope": "https://api.ebay.com/oauth/api_scope"})
        try:
            token = json.loads(token_response.body)["access_token"]
        except (ValueError, KeyError, TypeError):
            raise FetchError(f"{self.id}: the token endpoint gave no access_token") from None
        headers = {"Authorization": f"Bearer {token}", "X-EBAY-C-MARKETPLACE-ID": self.marketplace}
        return [await client.get(self.search_url(query), allowed_hosts=self.hosts, headers=headers)
                for query in self.queries]

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: dict[str, Offer] = {}
        for index, document in enumerate(documents):
            payload = json_answer(document, "eBay Browse API", "total")  # itemSummaries is absent with no results
            for item in payload.get("itemSummaries") or []:
                for offer in self._item(item, index):
                    offers.setdefault(offer.offer_id, offer)
        return list(offers.values())

    def _item(self, item: dict, index: int) -> list[Offer]:
        price = _money(item.get("price"))
        if price is None or "FIXED_PRICE" not in (item.get("buyingOptions") or ["FIXED_PRICE"]):
            return []  # an auction's current bid is not a selling price
        item_id = str(item.get("itemId") or "")
        condition = CONDITIONS.get(str(item.get("conditionId") or ""))
        common = dict(title=item.get("title"), url=(item.get("itemWebUrl") or "").split("?", 1)[0] or None, index=index,
                      region=(item.get("itemLocation") or {}).get("country"), condition=condition,
                      seller_type="marketplace", in_stock=True)
        offers = [self.card_offer(offer_id=item_id, price=price[0], currency=price[1], **common)]
        shipping = next((_money(option.get("shippingCost")) for option in item.get("shippingOptions") or []
                         if isinstance(option, dict)), None)
        if shipping is not None:
            offers.append(self.card_offer(offer_id=f"{item_id}:shipping", price=shipping[0], currency=shipping[1],
                                          role="shipping", **common))
        return offers
