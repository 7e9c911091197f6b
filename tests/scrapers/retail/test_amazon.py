"""Amazon's product pages (2019, 2021, recent layouts), search pages, captcha and changed layouts."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import FIXTURES, raw_document

from scrapers.errors import BlockedError, ParseError

RETAIL = FIXTURES / "retail"


def amazon_offers(name: str, url: str):
    from scrapers.retail.amazon import AmazonPages

    page = (RETAIL / "amazon" / name).read_bytes()
    return AmazonPages(products=[], queries=[]).parse([raw_document(page, url)])


def test_amazon_prices_written_in_euro_are_euro_on_any_storefront():
    de_page_on_com = amazon_offers("amazon_de_search_katzenfutter_2022.html", "https://www.amazon.com/s?k=katzenfutter")
    assert de_page_on_com and {o.currency for o in de_page_on_com} == {"EUR"}


@pytest.mark.parametrize(("page", "asin", "price", "list_price", "seller_type"), [
    ("amazon_com_product_B07G2L3JMM_2019.html", "B07G2L3JMM", "29.99", None, "marketplace"),  # not "1 New from"
    ("amazon_com_product_B00N150YS4_2021.html", "B00N150YS4", "12.48", None, "retailer"),
    ("amazon_com_product_B0DR8G428S_recent.html", "B0DR8G428S", "35.99", "45.99", "marketplace"),
])
def test_amazon_product_pages_in_all_three_layouts(page, asin, price, list_price, seller_type):
    offers = {o.price_role: o for o in amazon_offers(page, f"https://www.amazon.com/dp/{asin}")}
    selling = offers["selling"]
    assert (selling.offer_id, selling.price, selling.currency) == (asin, Decimal(price), "USD")
    assert selling.in_stock is True and selling.seller_type == seller_type
    assert selling.url == f"https://www.amazon.com/dp/{asin}"
    assert (offers["list"].price if "list" in offers else None) == (Decimal(list_price) if list_price else None)
    assert selling.reject_reason == "no GPU model in the title"  # none of the saved pages sells a GPU


def test_amazon_search_pages_price_and_strike_per_asin_in_the_storefront_currency():
    com = amazon_offers("amazon_com_search_portable_charger_recent.html", "https://www.amazon.com/s?k=portable+charger")
    selling = [o for o in com if o.price_role == "selling"]
    assert len(selling) == len({o.offer_id for o in selling}) == 22  # one row per ASIN, sponsored cards included
    first = next(o for o in com if o.offer_id == "B0FQVG4RWW")
    assert first.price == Decimal("25.18") and first.url == "https://www.amazon.com/dp/B0FQVG4RWW"
    assert next(o for o in com if o.offer_id == "B0FQVG4RWW:list").price == Decimal("34.99")
    de = amazon_offers("amazon_de_search_katzenfutter_2022.html", "https://www.amazon.de/s?k=katzenfutter")
    assert {o.currency for o in de} == {"EUR"}
    assert next(o for o in de if o.offer_id == "B013JF5F0C").price == Decimal("2.95")


def test_amazon_captcha_and_changed_layout():
    from scrapers.retail.amazon import AmazonPages

    # made-up minimal body with the captcha text Amazon serves (no real captcha capture exists)
    captcha = b"<html><body><h4>Enter the characters you see below</h4><form action='/errors/validateCaptcha'>"
    with pytest.raises(BlockedError, match="Amazon captcha"):
        AmazonPages(products=[], queries=[]).parse([raw_document(captcha, "https://www.amazon.com/dp/B0TEST0000")])
    with pytest.raises(ParseError, match="layout changed"):
        AmazonPages(products=[], queries=[]).parse([raw_document(b"<html><div id='dp'></div></html>",
                                                                 "https://www.amazon.com/dp/B0TEST0000")])
    with pytest.raises(ParseError, match="storefront"):
        AmazonPages(products=[], queries=[]).parse([raw_document(b"<html></html>", "https://www.amazon.example/dp/x")])
