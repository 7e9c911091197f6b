"""JD.com (京东) prices from the stock endpoint `c0.3.cn/stock`, whose `stock.jdPrice` carries `p` (the current
price), `op` (the guide price) and `m` (a maximum, sometimes a placeholder such as 9999.00). Prices are CNY: JD
decides the currency, whatever glyph a page shows (¥ means JPY elsewhere). Failure shapes seen in public scraper
code: `{"error": "pdos_captcha"}` (blocked), `"p": "-1.00"` (no price: off shelf), a JSONP wrapper when a callback is
passed. The response has no title, so the watch list names the GPU of each SKU.

The price endpoint `p.3.cn/prices/mgets?skuIds=J_<sku>,J_<sku>` answers every SKU at once as a list
`[{"p": "5499.00", "op": "5499.00", "m": "5500.00", "id": "J_100004770235", "cbf": "0"}]` (the documented example;
no real capture of it is in our samples) with the same failure shapes, but says nothing about stock. The watch list
picks the endpoint (`endpoint = "stock"`, the default, or `"prices"`)."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from scrapers.base import Offer
from scrapers.errors import BlockedError, ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated
from scrapers.retail.pages import RetailSource
from scrapers.retail.watchlist import watchlist

STOCK_URL = "https://c0.3.cn/stock"
PRICES_URL = "https://p.3.cn/prices/mgets"
# StockState: 33 现货 (in stock), 40 可配货 (can be allocated), 34 无货 (none); anything else: unknown.
STOCK_STATES = {33: True, 40: True, 34: False}
_JSONP = re.compile(r"^\s*[\w$.]+\((.*)\)\s*;?\s*$", re.S)


def _payload(document: RawDocument) -> dict | list:
    text = document.body.decode("utf-8", "replace").strip()
    wrapped = _JSONP.match(text)
    try:
        data = json.loads(wrapped.group(1) if wrapped else text)
    except ValueError as error:
        raise ParseError(f"JD stock response is not JSON: {error}") from error
    if isinstance(data, dict) and data.get("error"):
        if "captcha" in str(data["error"]):
            raise BlockedError(f"JD answered {data['error']!r} (captcha)")
        raise ParseError(f"JD answered an error: {data['error']!r}")
    if isinstance(data, list):  # p.3.cn/prices/mgets: one entry per SKU
        if not all(isinstance(entry, dict) and str(entry.get("id", "")).startswith("J_") for entry in data):
            raise ParseError("JD price list entries without a J_<sku> id")
        return data
    if not isinstance(data, dict) or not isinstance(data.get("stock"), dict):
        raise ParseError("JD stock response without a `stock` object")
    return data["stock"]


class JdStock(RetailSource):
    id = "jd"
    provider = "jd"
    description = "JD.com prices (CNY) from the stock or the price endpoint, SKUs from the watch list"
    hosts = ("c0.3.cn", "p.3.cn")
    watch_fields = ("items",)
    status = "parser tested on a real stock response, the documented price-list example and failure shapes"
    offline = Generated("dev.recordings.retail_scenario:jd_stock_answers", "a JD stock answer per SKU a day")

    def __init__(self, items: list[dict] | None = None, area: str | None = None, endpoint: str | None = None):
        config = watchlist("jd")
        self.items = items if items is not None else config.get("items", [])
        self.area = area or config.get("area", "1_72_4137_0")
        self.endpoint = endpoint or config.get("endpoint", "stock")
        if self.endpoint not in ("stock", "prices"):
            raise ValueError(f"jd endpoint must be 'stock' or 'prices', not {self.endpoint!r}")

    def prices_url(self) -> str:
        sku_ids = ",".join(f"J_{item['sku']}" for item in self.items)
        return f"{PRICES_URL}?{urlencode({'skuIds': sku_ids})}"

    def url(self, item: dict) -> str:
        query = {"skuId": item["sku"], "area": self.area, "venderId": item.get("vender_id", ""),
                 "cat": item.get("cat", ""), "buyNum": 1}
        return f"{STOCK_URL}?{urlencode(query)}"

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        if self.endpoint == "prices":
            return [await client.get(self.prices_url(), allowed_hosts=self.hosts)]
        return [await client.get(self.url(item), allowed_hosts=self.hosts) for item in self.items]

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        labels = {str(item["sku"]): item.get("gpu", "") for item in self.items}
        offers = []
        for index, document in enumerate(documents):
            payload = _payload(document)
            if isinstance(payload, list):
                entries = [(entry["id"].removeprefix("J_"), entry.get("p"), None) for entry in payload]
            else:
                sku = str(payload.get("skuId") or payload.get("realSkuId") or "")
                entries = [(sku, (payload.get("jdPrice") or {}).get("p"), STOCK_STATES.get(payload.get("StockState")))]
            offers += [offer for sku, price, in_stock in entries
                       if (offer := self._offer(sku, labels.get(sku, ""), price, in_stock, index)) is not None]
        return offers

    def _offer(self, sku: str, label: str, price, in_stock: bool | None, index: int) -> Offer | None:
        try:
            amount = Decimal(str(price))
        except (InvalidOperation, TypeError):
            raise ParseError(f"JD sku {sku}: price p {price!r} is not a number") from None
        if amount <= 0:  # -1.00: no price (off shelf): no observation, not a zero price
            return None
        return self.card_offer(
            offer_id=sku, title=label or None, price=amount, currency="CNY", url=f"https://item.jd.com/{sku}.html",
            index=index, region=self.area, in_stock=in_stock, raw_name_fallback=label or sku,
            reject_prefix="watch-list label is not a GPU card: ",
        )
