"""Any shop's product page (`shops`): the offer its JSON-LD, OpenGraph or microdata declares, on real pages."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import FIXTURES, raw_document

RETAIL = FIXTURES / "retail"


@pytest.mark.parametrize(("page", "price", "currency", "list_price", "in_stock"), [
    ("rejuvenation_sale_jsonld_list_vs_og_sale.html", "120.00", "USD", "150.00", True),  # OG sale under JSON-LD list
    ("etsy_es_listing_og_price_decimal_comma.html", "43.90", "EUR", None, True),  # OG in another currency: ignored
    ("overstock_jsonld_availability_no_prefix.html", "31.49", "USD", None, True),
    ("costco_product_og_price.html", "329.99", "USD", None, True),  # OpenGraph only
    ("jossandmain_jsonld_price_number.html", "98.99", "USD", None, True),  # JSON-LD number, OG equal: one price
])
def test_shop_pages_take_the_declared_offer(page, price, currency, list_price, in_stock):
    from scrapers.retail.shop_pages import ShopProductPages

    document = raw_document((RETAIL / "generic_jsonld_og" / page).read_bytes(), "https://www.shop.example/p/1")
    offers = {o.price_role: o for o in ShopProductPages(products=[]).parse([document])}
    selling = offers["selling"]
    assert (selling.price, selling.currency, selling.in_stock) == (Decimal(price), currency, in_stock)
    assert (offers["list"].price if "list" in offers else None) == (Decimal(list_price) if list_price else None)
    assert selling.provider == "shop.example" and selling.reject_reason  # home goods are not GPU cards


def test_a_shop_page_without_a_declared_price_is_no_observation():
    from scrapers.retail.shop_pages import ShopProductPages

    for page in ("potterybarn_unavailable_jsonld_price_empty_object.html", "globalindustrial_no_price.html"):
        document = raw_document((RETAIL / "generic_jsonld_og" / page).read_bytes(), "https://www.shop.example/p/2")
        assert ShopProductPages(products=[]).parse([document]) == []
