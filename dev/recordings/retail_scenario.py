"""The made-up retail pages of the offline replay (issue 4), one a day per source. The sources name these functions in
their `offline` declaration; build_bundle.py calls each with the source id. (The real 2020 Newegg and Best Buy pages
are declared on their sources: kept once in recordings/, replayed every day as stale captures.)

No real GPU page of Amazon, eBay, Micro Center, JD or a datacenter-GPU reseller exists in our samples. These pages
are written by us in the exact documented format of each site (the selectors and JSON fields the parsers read, see
scrapers/retail/<source>.py), with MADE-UP listings and prices (`data_origin = 'synthetic'`). Prices follow one
made-up scenario over the replay month (fall, rise, fall to a new low) so trends, signals and alerts have something to
show. A ghost card and a non-card listing are included, as on the real pages, to exercise the set-aside rules.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from html import escape

from dev.recordings.common import FIRST_DAY, LAST_DAY, recording, write_text
from scrapers.retail.amazon import AmazonPages
from scrapers.retail.ebay import search_url as ebay_search_url
from scrapers.retail.jd import JdStock
from scrapers.retail.microcenter import search_url as microcenter_search_url

MADE_UP = "NOT a capture: made-up listings and prices in the documented page format (recordings/build_retail.py)"

# (day of the replay month, price factor): straight lines between these points.
SCENARIO = ((0, Decimal("1.00")), (9, Decimal("0.91")), (19, Decimal("1.02")), (29, Decimal("0.85")))


def scenario_factor(day_number: int) -> Decimal:
    """The made-up price factor of day `day_number` (0 = the first replay day)."""
    for (start, low), (end, high) in zip(SCENARIO, SCENARIO[1:], strict=False):
        if start <= day_number <= end:
            return low + (high - low) * Decimal(day_number - start) / Decimal(end - start)
    return SCENARIO[-1][1]


def price_on(base: str, day_number: int, cents: bool = True) -> Decimal:
    """The made-up price of a listing on a replay day: its base price times the scenario factor."""
    return (Decimal(base) * scenario_factor(day_number)).quantize(Decimal("0.01") if cents else Decimal("1"),
                                                                  ROUND_HALF_UP)


# -- made-up listings, per source ------------------------------------------------------------------------------------
EBAY_LISTINGS = (  # (listing id, title, base price USD, condition text)
    ("900000000001", "NVIDIA A100 80GB PCIe GPU Accelerator 900-21001-0020-000", "9800", "Pre-Owned"),
    ("900000000002", "NVIDIA GeForce RTX 3090 Founders Edition 24GB GDDR6X", "720", "Pre-Owned"),
    ("900000000003", "ASUS TUF Gaming GeForce RTX 4090 OC 24GB GDDR6X Graphics Card", "1650", "Pre-Owned"),
    ("900000000004", "NVIDIA H100 PCIe 80GB HBM2e Tensor Core GPU", "21500", "Pre-Owned"),
    ("900000000005", "EVGA RTX 3090 FTW3 - box only, no card", "35", "Brand New"),
)
AMAZON_LISTINGS = (  # (ASIN, title, base price, list price)
    ("B0SYNTH0001", "MSI Gaming GeForce RTX 4090 24GB GDDR6X Graphics Card (RTX 4090 GAMING X TRIO 24G)", "1899.99",
     "1999.99"),
    ("B0SYNTH0002", "ASUS ROG Astral GeForce RTX 5090 OC Edition 32GB GDDR7 Graphics Card", "3299.99", "3499.99"),
    ("B0SYNTH0003", "PNY NVIDIA RTX 6000 Ada Generation 48GB GDDR6 Graphics Card", "7199.00", ""),
)
MICROCENTER_LISTINGS = (  # (product id, title, base price, category)
    ("900001", "Gigabyte NVIDIA GeForce RTX 5090 Gaming OC Triple Fan 32GB GDDR7 PCIe 5.0 Graphics Card", "2999.99",
     "Video Cards"),
    ("900002", "Zotac NVIDIA GeForce RTX 4090 Trinity OC Triple Fan 24GB GDDR6X PCIe 4.0 Graphics Card", "1799.99",
     "Video Cards"),
    ("900003", "PowerSpec G758 Gaming PC with GeForce RTX 5090", "4999.99", "Desktops"),
)
JD_ITEMS = (  # (sku, watch-list label, base price CNY)
    ("990000000001", "RTX 4090 24GB", "15999"),
    ("990000000002", "RTX 5090 32GB", "21999"),
)
SHOP_PRODUCTS = (  # (path, title, base price EUR, availability)
    ("products/nvidia-h100-pcie-80gb", "NVIDIA H100 PCIe 80GB HBM2e (900-21010-0000-000)", "27900", "InStock"),
    ("products/nvidia-l40s-48gb", "NVIDIA L40S 48GB GDDR6 PCIe passive", "8450", "InStock"),
    ("products/nvidia-a100-80gb-pcie", "NVIDIA A100 80GB PCIe", "14200", "OutOfStock"),
)
SHOP_HOST = "gpu-reseller.example"  # a made-up shop: example.* never resolves


def _ebay_page(day_number: int) -> str:
    cards = ['<li class="s-card s-card--horizontal" data-listingid="2500219655424533"><div class="s-card__title">'
             '<span class="su-styled-text primary default">Shop on eBay</span></div><span class="s-card__price">'
             '$20.00</span></li>']
    for listing_id, title, base, condition in EBAY_LISTINGS:
        price = price_on(base, day_number)
        cards.append(
            f'<li class="s-card s-card--horizontal" data-listingid="{listing_id}"><a class="su-link s-card__link" '
            f'href="https://www.ebay.com/itm/{listing_id}?_skw=gpu"><div class="s-card__title" role="heading">'
            f'<span class="su-styled-text primary default">{escape(title)}</span><span class="clipped">Opens in a '
            f'new window or tab</span></div></a><div class="s-card__subtitle"><span class="su-styled-text secondary '
            f'default">{condition}</span></div><div class="s-card__attribute-row"><span class="su-styled-text '
            f'primary bold large-1 s-card__price">${price:,}</span></div><div class="s-card__attribute-row"><span '
            f'class="su-styled-text secondary large">Buy It Now</span></div></li>')
    return f'<html><body><ul class="srp-results srp-list">{"".join(cards)}</ul></body></html>'


def _amazon_page(day_number: int) -> str:
    cards = []
    for asin, title, base, list_price in AMAZON_LISTINGS:
        strike = (f'<span class="a-price a-text-price" data-a-strike="true"><span class="a-offscreen">${list_price}'
                  f'</span></span>') if list_price else ""
        cards.append(
            f'<div data-asin="{asin}" data-component-type="s-search-result" class="s-result-item"><h2 '
            f'class="a-size-medium"><span>{escape(title)}</span></h2><span class="a-price" data-a-size="xl">'
            f'<span class="a-offscreen">${price_on(base, day_number):,}</span></span>{strike}</div>')
    return f'<html><body><div class="s-main-slot">{"".join(cards)}</div></body></html>'


def _microcenter_page(day_number: int) -> str:
    items = []
    for product_id, title, base, category in MICROCENTER_LISTINGS:
        price = price_on(base, day_number)
        items.append(
            f'<li class="product_wrapper"><div class="pDescription"><a href="/product/{product_id}/synthetic" '
            f'data-id="{product_id}" data-name="{escape(title)}" data-price="{price}" data-category="{category}">'
            f'{escape(title)}</a></div><span itemprop="price">Our price${price:,}</span></li>')
    return f'<html><body><ul id="productGrid">{"".join(items)}</ul></body></html>'


def _jd_stock(sku: str, base: str, day_number: int) -> dict:
    price = f"{price_on(base, day_number, cents=False):.2f}"
    return {"stock": {"skuId": int(sku), "realSkuId": int(sku), "StockState": 33, "StockStateName": "现货",
                      "jdPrice": {"p": price, "op": f"{Decimal(base):.2f}", "m": f"{Decimal(base) + 1:.2f}",
                                  "id": sku}}}


def _shop_page(title: str, base: str, availability: str, url: str, day_number: int) -> str:
    product = {"@context": "https://schema.org", "@type": "Product", "name": title, "offers": {
        "@type": "Offer", "price": f"{price_on(base, day_number, cents=False):.2f}", "priceCurrency": "EUR",
        "availability": f"https://schema.org/{availability}", "itemCondition": "https://schema.org/NewCondition",
        "url": url}}
    return (f'<html><head><title>{escape(title)}</title><script type="application/ld+json">{json.dumps(product)}'
            f'</script></head><body><h1>{escape(title)}</h1></body></html>')


def _days():
    """(day number, ISO date) of every replay day."""
    first, last = date.fromisoformat(FIRST_DAY), date.fromisoformat(LAST_DAY)
    return [(number, (first + timedelta(days=number)).isoformat()) for number in range((last - first).days + 1)]


def ebay_search_pages(source_id: str) -> list[dict]:
    return [recording(source_id, "synthetic", MADE_UP, {ebay_search_url("gpu"): write_text(
        f"ebay/synthetic_documented_format_search_{stamp}.html", _ebay_page(number))}, f"{stamp}T12:00:00+00:00",
        {"queries": ["gpu"]}) for number, stamp in _days()]


def amazon_search_pages(source_id: str) -> list[dict]:
    amazon = AmazonPages(products=[], queries=[], storefront="www.amazon.com")
    return [recording(source_id, "synthetic", MADE_UP, {amazon.search_url("graphics card"): write_text(
        f"amazon/synthetic_documented_format_search_{stamp}.html", _amazon_page(number))}, f"{stamp}T12:00:00+00:00",
        {"products": [], "queries": ["graphics card"], "storefront": "www.amazon.com"}) for number, stamp in _days()]


def microcenter_search_pages(source_id: str) -> list[dict]:
    return [recording(source_id, "synthetic", MADE_UP, {microcenter_search_url("graphics card", "029"): write_text(
        f"microcenter/synthetic_documented_format_search_{stamp}.html", _microcenter_page(number))},
        f"{stamp}T12:00:00+00:00", {"queries": ["graphics card"], "store_id": "029"}) for number, stamp in _days()]


def jd_stock_answers(source_id: str) -> list[dict]:
    items = [{"sku": sku, "gpu": label} for sku, label, _ in JD_ITEMS]
    jd = JdStock(items=items, area="1_72_4137_0")
    return [recording(source_id, "synthetic", MADE_UP, {
        jd.url({"sku": sku}): write_text(f"jd/synthetic_documented_format_stock_{sku}_{stamp}.json",
                                         json.dumps(_jd_stock(sku, base, number), ensure_ascii=False))
        for sku, _, base in JD_ITEMS}, f"{stamp}T12:00:00+00:00", {"items": items, "area": "1_72_4137_0"})
        for number, stamp in _days()]


def shop_product_pages(source_id: str) -> list[dict]:
    shop_urls = [f"https://{SHOP_HOST}/{path}" for path, *_ in SHOP_PRODUCTS]
    return [recording(source_id, "synthetic", MADE_UP, {
        url: write_text(f"shops/synthetic_documented_format_{path.rsplit('/', 1)[-1]}_{stamp}.html",
                        _shop_page(title, base, availability, url, number))
        for url, (path, title, base, availability) in zip(shop_urls, SHOP_PRODUCTS, strict=True)},
        f"{stamp}T12:00:00+00:00", {"products": shop_urls}) for number, stamp in _days()]
