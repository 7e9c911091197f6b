"""eBay: search pages (real s-card and s-item pages, the real bot challenge) and the Browse API (`ebay-api`)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import FIXTURES, raw_document

from scrapers.errors import BlockedError, ParseError

RETAIL = FIXTURES / "retail"


def ebay_offers():
    from scrapers.retail.ebay import EbaySearch

    page = (RETAIL / "ebay" / "ebay_com_search_kitchen_accessories_scard_2026.html").read_bytes()
    return EbaySearch(queries=[]).parse([raw_document(page, "https://www.ebay.com/sch/i.html?_nkw=x")])


def test_ebay_de_prices_are_euro_even_when_the_page_is_read_as_ebay_com():
    from scrapers.retail.ebay import EbaySearch

    page = (RETAIL / "ebay" / "ebay_de_search_apple_2022.html").read_bytes()
    for url in ("https://www.ebay.com/sch/i.html?_nkw=apple", "https://www.ebay.example/sch/i.html?_nkw=apple"):
        offers = EbaySearch(queries=[]).parse([raw_document(page, url)])
        assert len(offers) == 64 and {o.currency for o in offers} == {"EUR"}, url


def test_ebay_com_dollar_prices_stay_usd_and_an_unknown_site_without_a_written_currency_gives_nothing():
    from scrapers.retail.ebay import EbaySearch

    page = (RETAIL / "ebay" / "ebay_com_search_kitchen_accessories_scard_2026.html").read_bytes()
    offers = EbaySearch(queries=[]).parse([raw_document(page, "https://www.ebay.com/sch/i.html?_nkw=kitchen")])
    assert offers and {o.currency for o in offers} == {"USD"}
    bare = page.replace(b"$", b"")  # the same cards with bare numbers, on a site whose currency we do not know
    assert EbaySearch(queries=[]).parse([raw_document(bare, "https://www.ebay.example/sch/i.html")]) == []
    assert {o.currency for o in EbaySearch(queries=[]).parse(
        [raw_document(bare, "https://www.ebay.co.uk/sch/i.html")])} == {"GBP"}


def test_ebay_scard_page_drops_the_ghost_card_and_keeps_clean_titles():
    offers = ebay_offers()
    assert len(offers) == 60  # 62 cards, the "Shop on eBay" ghost twice
    assert not any(o.offer_id == "2500219655424533" or o.title == "Shop on eBay" for o in offers)
    assert not any("Opens in a new window" in o.title for o in offers)
    wok = next(o for o in offers if o.offer_id == "277612251032")
    assert wok.price == Decimal("3.15") and wok.url == "https://www.ebay.com/itm/277612251032"  # "$3.15$3.42"
    assert {o.condition for o in offers} <= {"new", "used", "refurbished", "open_box", "for_parts"}
    # kitchen racks are not GPU cards: every row set aside with a reason, none loaded as a price
    assert all(o.reject_reason for o in offers) and {o.seller_type for o in offers} == {"marketplace"}


def test_ebay_bot_challenge_is_blocked_not_empty():
    from scrapers.retail.ebay import EbaySearch

    page = (RETAIL / "ebay" / "ebay_antibot_challenge_pardon_our_interruption_2026.html").read_bytes()
    with pytest.raises(BlockedError):
        EbaySearch(queries=[]).parse([raw_document(page)])
    with pytest.raises(ParseError, match="layout changed"):
        EbaySearch(queries=[]).parse([raw_document(b"<html><ul class='results'></ul></html>")])


def test_ebay_legacy_layout_on_ebay_de_is_euro_with_conditions_and_no_ghost():
    from scrapers.retail.ebay import EbaySearch

    page = (RETAIL / "ebay" / "ebay_de_search_apple_2022.html").read_bytes()
    offers = EbaySearch(queries=[]).parse([raw_document(page, "https://www.ebay.de/sch/i.html?_nkw=apple")])
    assert len(offers) == 64 and {o.currency for o in offers} == {"EUR"}
    assert not any(o.title == "Shop on eBay" or o.offer_id == "123456" for o in offers)
    cable = next(o for o in offers if o.offer_id == "144278067683")
    assert (cable.price, cable.condition, cable.url) == (Decimal("10.79"), "new",
                                                         "https://www.ebay.de/itm/144278067683")
    assert next(o for o in offers if o.offer_id == "185076426382").condition == "refurbished"  # "Sehr gut - Refurbished"


def test_ebay_browse_api_keeps_the_sellers_currency_and_keys_condition_on_the_id(monkeypatch):
    from scrapers.errors import MissingCredentials
    from scrapers.retail.ebay import EbayBrowseApi

    by_price = (RETAIL / "ebay" / "browse_api_item_summary_search_iphone_sort_price_100.DERIVED.json").read_bytes()
    offers = EbayBrowseApi(queries=[]).parse([raw_document(by_price, "https://api.ebay.com/buy/browse/v1/x")])
    selling = [o for o in offers if o.price_role == "selling"]
    assert len(selling) == 100 and {o.currency for o in selling} == {"CAD"}  # 0.99 CAD, not eBay's "0.75" USD
    assert selling[0].price == Decimal("0.99") and selling[0].url == "https://www.ebay.com/itm/385462201428"
    assert sum(o.condition is None for o in selling) == 3  # no conditionId: unknown, not guessed
    assert sum(o.condition == "used" for o in selling) == 1  # conditionId 2750 "Like New" is used
    best = (RETAIL / "ebay" / "browse_api_item_summary_search_iphone_best_match_100.DERIVED.json").read_bytes()
    conditions = {o.condition for o in EbayBrowseApi(queries=[]).parse([raw_document(best)])}
    assert conditions == {"new", "used", "refurbished", "open_box"}
    with pytest.raises(ParseError, match="not JSON"):  # a truncated answer
        EbayBrowseApi(queries=[]).parse([raw_document(best[:5000])])
    with pytest.raises(ParseError, match="without total"):  # an error object instead of results
        EbayBrowseApi(queries=[]).parse([raw_document(b'{"errors": [{"errorId": 1001}]}')])
    assert EbayBrowseApi(queries=[]).parse([raw_document(b'{"href": "x", "total": 0, "limit": 200}')]) == []
    monkeypatch.delenv("EBAY_CLIENT_SECRET", raising=False)
    with pytest.raises(MissingCredentials, match="EBAY_CLIENT_SECRET"):
        EbayBrowseApi(queries=["rtx 4090"]).require_key()
