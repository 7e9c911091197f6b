"""Newegg product pages and search pages. A product page embeds `window.__initialState__` whose ItemDetail carries the item number
(`14-137-609`), title, UnitCost (the item price), ShippingCharge, FinalPrice (= UnitCost + shipping: never the item
price), Instock and the marketplace seller. Item numbers starting `14-` are video cards and `83-` prebuilt PCs
(observed in the saved pages); "Combo" pages price a GPU with RAM or a PSU and are set aside as bundles.
Sold-out pages keep UnitCost: the price is still a data point, recorded with in_stock = false.
A search page (`/p/pl?d=<query>`) embeds the same state with `Products[]`: each `ItemCell` has the ItemDetail fields
above; `IsCombo` products carry a `ComboCell` (a GPU sold with RAM or a PSU) and are set aside as bundles."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from urllib.parse import urlencode

from scrapers.base import Offer
from scrapers.errors import ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Recording, Served
from scrapers.retail.pages import RetailSource
from scrapers.retail.watchlist import watchlist

SEARCH_URL = "https://www.newegg.com/p/pl"
_STATE = re.compile(r"window\.__initialState__\s*=\s*")
# The real 2020 product pages of the offline recording (a sold-out card, a prebuilt PC)
RECORDED_PRODUCTS = ("https://www.newegg.com/msi-geforce-rtx-3080-rtx-3080-suprim-x-10g/p/N82E16814137609",
                     "https://www.newegg.com/p/N82E16883360054")


def _initial_state(html: str) -> dict | None:
    found = _STATE.search(html)
    if not found:
        return None
    try:
        state, _ = json.JSONDecoder().raw_decode(html[found.end():])
    except ValueError as error:
        raise ParseError(f"Newegg __initialState__ is not readable JSON: {error}") from error
    return state


class NeweggProducts(RetailSource):
    id = "newegg"
    provider = "newegg"
    description = "Newegg product and search pages from the watch list (`__initialState__`)"
    hosts = ("www.newegg.com",)
    status = "parser tested on real 2020 product pages (card sold out, prebuilt PC, combo) and a 2020 search page"

    def __init__(self, products: list[str] | None = None, queries: list[str] | None = None):
        config = watchlist("newegg")
        self.products = products if products is not None else config.get("products", [])
        self.queries = queries if queries is not None else config.get("queries", [])

    @staticmethod
    def search_url(query: str) -> str:
        return f"{SEARCH_URL}?{urlencode({'d': query})}"

    offline = Recording(
        "stale_capture", "REAL pages saved in December 2020 (RTX 3080 shortage), replayed on every day: 2020 prices",
        (Served(RECORDED_PRODUCTS[0], "stale_capture_2020_newegg_product_msi_rtx3080_suprimx_soldout_2020.html"),
         Served(RECORDED_PRODUCTS[1], "stale_capture_2020_newegg_product_prebuilt_rtx3080_instock_2020.html"),
         Served(search_url("gtx 3080"), "stale_capture_2020_newegg_search_rtx3080_2020.html")),  # kept once, here
        overrides={"products": list(RECORDED_PRODUCTS), "queries": ["gtx 3080"]})

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        urls = [*self.products, *(self.search_url(query) for query in self.queries)]
        return [await client.get(url, allowed_hosts=self.hosts) for url in urls]

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        state = _initial_state(html)
        if state is None:
            if "Combo" in html and 'itemprop="price"' in html:
                combo = re.search(r'itemprop="price"\s+content="([\d.]+)"', html)
                return [self._offer(url, "combo", "Newegg combo bundle", Decimal(combo.group(1)) if combo else Decimal(0),
                                    None, index, reject="bundle (combo: a GPU priced with other parts)")]
            raise ParseError("Newegg page without window.__initialState__ (layout changed?)")
        if isinstance(state.get("Products"), list):
            return [offer for product in state["Products"] for offer in self._search_product(product, index)]
        detail = state.get("ItemDetail")
        if not isinstance(detail, dict) or detail.get("UnitCost") is None:
            raise ParseError("Newegg __initialState__ without ItemDetail.UnitCost")
        return self._item(detail, url, index)

    def _search_product(self, product: dict, index: int) -> list[Offer]:
        if product.get("IsCombo"):
            combo = product.get("ComboCell") or {}
            if not combo.get("UnitCost"):
                return []
            return [self._offer(f"https://www.newegg.com/Product/ComboDealDetails?ItemList=Combo.{combo.get('ComboID')}",
                                f"combo:{combo.get('ComboID')}", combo.get("SolutionDescription"),
                                Decimal(str(combo["UnitCost"])), None, index,
                                reject="bundle (combo: a GPU priced with other parts)")]
        cell = product.get("ItemCell")
        if not isinstance(cell, dict) or cell.get("UnitCost") is None:
            return []  # a sponsored tile or an item without a price: no observation
        number = str(cell.get("Item") or "")
        return self._item(cell, f"https://www.newegg.com/p/N82E168{number.replace('-', '')}", index)

    def _item(self, detail: dict, url: str, index: int) -> list[Offer]:
        item = str(detail.get("Item") or "")
        description = detail.get("Description") or {}
        title = description.get("Title") if isinstance(description, dict) else str(description)
        seller = (detail.get("Seller") or {}).get("SellerName")
        offers = [self._offer(url, item, title, Decimal(str(detail["UnitCost"])), bool(detail.get("Instock")), index,
                              seller=seller)]
        shipping = Decimal(str(detail.get("ShippingCharge") or 0))
        if shipping > Decimal("0.01"):  # 0.01 marks "no separate charge" in the saved pages
            offers.append(self._offer(url, f"{item}:shipping", title, shipping, bool(detail.get("Instock")), index,
                                      seller=seller, role="shipping"))
        return offers

    def _offer(self, url, item, title, price, in_stock, index, seller=None, role="selling", reject=None) -> Offer:
        return self.card_offer(
            offer_id=item or url, title=title, price=price, currency="USD", url=url, index=index, region="US",
            seller_type="marketplace" if seller else "retailer", in_stock=in_stock, role=role, reject=reject,
            not_a_card=f"not a video card (Newegg item {item})" if item and not item.startswith("14-") else None,
        )
