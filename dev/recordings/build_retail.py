"""Served documents and recordings of the retail sources (issue 4), for the offline replay. Called by build_bundle.py.

Two kinds, each labelled in its recording (and so on every row it loads):
- stale_capture: the REAL saved GPU pages we hold (Newegg and Best Buy, December 2020, RTX 3080 shortage), replayed
  on every day as if fetched then. Real markup and real prices, but 2020 prices: flagged synthetic.
- synthetic: no real GPU page of Amazon, eBay, Micro Center, JD or a datacenter-GPU reseller exists in our samples.
  These pages are written by us in the exact documented format of each site (the selectors and JSON fields the
  parsers read, see scrapers/<source>.py), with MADE-UP listings and prices. Prices follow one made-up scenario over
  the replay month (fall, rise, fall to a new low) so trends, signals and alerts have something to show. A ghost
  card and a non-card listing are included, as on the real pages, to exercise the set-aside rules.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from html import escape
from pathlib import Path

from dev.recordings.common import FIXTURES as ALL_FIXTURES
from dev.recordings.common import RECORDINGS as HERE
from scrapers.retail.amazon import AmazonPages
from scrapers.retail.ebay import search_url as ebay_search_url
from scrapers.retail.jd import JdStock
from scrapers.retail.microcenter import search_url as microcenter_search_url
from scrapers.retail.newegg import NeweggProducts

FIXTURES = ALL_FIXTURES / "retail"
FIRST_DAY, LAST_DAY = date(2026, 4, 2), date(2026, 5, 1)

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


def write_text(relative: str, text: str) -> str:
    path = HERE / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return relative


def retail_recordings(recording) -> list[dict]:
    """Every retail recording. `recording(source, origin, note, routes, recorded_at)` is build_providers' builder,
    so every recording has one shape."""
    def copy(relative_fixture: str, relative: str) -> str:
        """The real 2020 pages live once, in recordings/ (the parser tests read them there too)."""
        path = HERE / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes((FIXTURES / relative_fixture).read_bytes())
        return relative

    newegg_products = {
        "https://www.newegg.com/msi-geforce-rtx-3080-rtx-3080-suprim-x-10g/p/N82E16814137609":
            "newegg/newegg_product_msi_rtx3080_suprimx_soldout_2020.html",
        "https://www.newegg.com/p/N82E16883360054": "newegg/newegg_product_prebuilt_rtx3080_instock_2020.html",
    }
    newegg_routes = {url: copy(fixture, f"newegg/stale_capture_2020_{Path(fixture).name}")
                     for url, fixture in newegg_products.items()}
    newegg_routes[NeweggProducts.search_url("gtx 3080")] = copy(
        "newegg/newegg_search_rtx3080_2020.html", "newegg/stale_capture_2020_newegg_search_rtx3080_2020.html")
    bestbuy_pages = {
        "https://www.bestbuy.com/site/searchpage.jsp?st=rtx+3080": "bestbuy/bestbuy_search_rtx3080_2020.html",
        "https://www.bestbuy.com/site/evga-geforce-rtx-3080-xc3-ultra-gaming/6432400.p?skuId=6432400":
            "bestbuy/bestbuy_product_evga_rtx3080_soldout_2020.html",
    }
    bestbuy_routes = {url: copy(fixture, f"bestbuy/stale_capture_2020_{Path(fixture).name}")
                      for url, fixture in bestbuy_pages.items()}
    stale = "REAL pages saved in December 2020 (RTX 3080 shortage), replayed on every day: 2020 prices"
    recordings = [
        {**recording("newegg", "stale_capture", stale, newegg_routes),
         "overrides": {"products": list(newegg_products), "queries": ["gtx 3080"]}},
        {**recording("bestbuy", "stale_capture", stale, bestbuy_routes), "overrides": {"pages": list(bestbuy_pages)}},
    ]

    amazon = AmazonPages(products=[], queries=[], storefront="www.amazon.com")
    jd = JdStock(items=[{"sku": sku, "gpu": label} for sku, label, _ in JD_ITEMS], area="1_72_4137_0")
    shop_urls = [f"https://{SHOP_HOST}/{path}" for path, *_ in SHOP_PRODUCTS]
    made_up = "NOT a capture: made-up listings and prices in the documented page format (recordings/build_retail.py)"
    day = FIRST_DAY
    while day <= LAST_DAY:
        number, stamp = (day - FIRST_DAY).days, day.isoformat()
        at = f"{stamp}T12:00:00+00:00"
        recordings += [
            {**recording("ebay", "synthetic", made_up, {ebay_search_url("gpu"): write_text(
                f"ebay/synthetic_documented_format_search_{stamp}.html", _ebay_page(number))}, at),
             "overrides": {"queries": ["gpu"]}},
            {**recording("amazon", "synthetic", made_up, {amazon.search_url("graphics card"): write_text(
                f"amazon/synthetic_documented_format_search_{stamp}.html", _amazon_page(number))}, at),
             "overrides": {"products": [], "queries": ["graphics card"], "storefront": "www.amazon.com"}},
            {**recording("microcenter", "synthetic", made_up, {microcenter_search_url("graphics card", "029"):
                         write_text(f"microcenter/synthetic_documented_format_search_{stamp}.html",
                                    _microcenter_page(number))}, at),
             "overrides": {"queries": ["graphics card"], "store_id": "029"}},
            {**recording("jd", "synthetic", made_up, {
                jd.url({"sku": sku}): write_text(f"jd/synthetic_documented_format_stock_{sku}_{stamp}.json",
                                                 json.dumps(_jd_stock(sku, base, number), ensure_ascii=False))
                for sku, _, base in JD_ITEMS}, at),
             "overrides": {"items": [{"sku": sku, "gpu": label} for sku, label, _ in JD_ITEMS],
                           "area": "1_72_4137_0"}},
            {**recording("shops", "synthetic", made_up, {
                url: write_text(f"shops/synthetic_documented_format_{path.rsplit('/', 1)[-1]}_{stamp}.html",
                                _shop_page(title, base, availability, url, number))
                for url, (path, title, base, availability) in zip(shop_urls, SHOP_PRODUCTS, strict=True)}, at),
             "overrides": {"products": shop_urls}},
        ]
        day += timedelta(days=1)
    return recordings
