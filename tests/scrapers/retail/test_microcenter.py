"""Micro Center's search page per store, on a real recent page."""

from __future__ import annotations

from decimal import Decimal

from conftest import FIXTURES, raw_document

RETAIL = FIXTURES / "retail"


def test_microcenter_search_reads_the_selling_price_per_store():
    from scrapers.retail.microcenter import MicroCenterSearch

    page = (RETAIL / "microcenter" / "microcenter_search_mechanical_keyboard_recent.html").read_bytes()
    offers = {o.offer_id: o for o in MicroCenterSearch(queries=[], store_id="029").parse([raw_document(page)])}
    assert len(offers) == 24
    galleon = offers["706154@029"]  # "Original price $349.99 Save $50.00 Our price $299.99"
    assert (galleon.price, galleon.region, galleon.seller_type) == (Decimal("299.99"), "store-029", "retailer")
    assert galleon.url == "https://www.microcenter.com/product/706154/corsair-galleon-100-sd-stream-deck-integrated-mechanical-keyboard-black"
    assert all(o.reject_reason for o in offers.values())  # keyboards are set aside, not loaded as GPU prices
