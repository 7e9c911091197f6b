"""Newegg's product and search pages: the real 2020 pages (kept once, in recordings/) and a changed layout."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import FIXTURES, raw_document, retail_page

from scrapers.errors import ParseError
from scrapers.retail.newegg import NeweggProducts

RETAIL = FIXTURES / "retail"


def newegg_offers(name: str):
    page = retail_page("newegg", name).read_bytes()
    return NeweggProducts(products=[]).parse([raw_document(page, "https://www.newegg.com/p/N82E16814137609")])


def test_newegg_sold_out_card_keeps_its_item_price_and_shipping_apart():
    offers = {o.price_role: o for o in newegg_offers("newegg_product_msi_rtx3080_suprimx_soldout_2020.html")}
    card, shipping = offers["selling"], offers["shipping"]
    assert (card.price, card.currency, card.price_unit, card.in_stock) == (Decimal("899.99"), "USD", "card", False)
    assert shipping.price == Decimal("9.99") and card.reject_reason is None  # FinalPrice 909.98 is never the price
    assert card.raw_gpu_name.startswith("RTX 3080")


def test_newegg_prebuilt_pc_and_combo_are_set_aside_with_a_reason():
    prebuilt = newegg_offers("newegg_product_prebuilt_rtx3080_instock_2020.html")
    assert {o.reject_reason for o in prebuilt} == {"prebuilt PC"}
    combo = newegg_offers("newegg_combo_rtx3080_plus_ram_2020.html")
    assert combo[0].reject_reason.startswith("bundle")


def test_newegg_changed_layout_is_a_parse_error():
    with pytest.raises(ParseError, match="__initialState__"):
        NeweggProducts(products=[]).parse([raw_document(b"<html><body>New look</body></html>")])


def test_newegg_search_page_reads_every_cell_and_sets_combos_and_prebuilts_aside():
    page = retail_page("newegg", "newegg_search_rtx3080_2020.html").read_bytes()
    offers = NeweggProducts(products=[], queries=[]).parse([raw_document(page, "https://www.newegg.com/p/pl?d=rtx+3080")])
    cards = [o for o in offers if o.reject_reason is None and o.price_role == "selling"]
    assert len(cards) == 23 and {o.gpu_id for o in cards} == {"rtx-3080-10gb"}
    suprim = next(o for o in cards if o.offer_id == "14-137-609")
    assert (suprim.price, suprim.in_stock, suprim.url) == (Decimal("899.99"), False,
                                                           "https://www.newegg.com/p/N82E16814137609")
    assert next(o for o in offers if o.offer_id == "14-137-609:shipping").price == Decimal("9.99")
    reasons = [o.reject_reason for o in offers if o.reject_reason and o.price_role == "selling"]
    assert reasons.count("bundle (combo: a GPU priced with other parts)") == 16
    assert set(reasons) == {"bundle (combo: a GPU priced with other parts)", "prebuilt PC"}
    assert reasons.count("prebuilt PC") == 8  # the ABS / MSI gaming PCs (items 83-...)


def test_listings_set_aside_are_quarantined_not_counted_as_a_broken_page():
    from datetime import UTC, datetime

    from scrapers.base import Expectations
    from warehouse.ingest.integrity import check
    from warehouse.store.landing import LandedRun
    from warehouse.ingest.normalize import normalize

    offers = (newegg_offers("newegg_product_prebuilt_rtx3080_instock_2020.html")
              + newegg_offers("newegg_product_msi_rtx3080_suprimx_soldout_2020.html"))
    run = LandedRun("newegg", "r", datetime(2026, 4, 2, tzinfo=UTC), "stale_capture", RETAIL, [raw_document(b"")], ["d"])
    frame = normalize(offers, run, 1)
    result = check(frame, Expectations(frozenset(), min_offers=1))
    assert result.passed  # two of four rows set aside: a search page full of PCs is not a changed layout
    assert set(result.rejected.get_column("reason").to_list()) == {"prebuilt PC"}
    assert "reject_reason" not in result.accepted.columns  # never stored in raw.offers


def test_card_prices_outside_their_band_are_quarantined_in_their_own_currency():
    from dataclasses import replace
    from datetime import UTC, datetime

    from scrapers.base import Expectations
    from warehouse.ingest.integrity import check
    from warehouse.store.landing import LandedRun
    from warehouse.ingest.normalize import normalize

    suprim = next(o for o in newegg_offers("newegg_product_msi_rtx3080_suprimx_soldout_2020.html")
                  if o.price_role == "selling")
    offers = [
        suprim,                                                          # $899.99 RTX 3080: a market price
        replace(suprim, offer_id="box", price=Decimal("25.00")),         # a "$25 RTX 3080": not a card price
        replace(suprim, offer_id="cny", price=Decimal("5499.00"), currency="CNY"),  # ¥5,499: inside the CNY band
        replace(suprim, offer_id="cny-typo", price=Decimal("54.99"), currency="CNY"),
        replace(suprim, offer_id="ship", price=Decimal("9.99"), price_role="shipping"),  # shipping: no card band
    ]
    run = LandedRun("newegg", "r", datetime(2026, 4, 2, tzinfo=UTC), "stale_capture", RETAIL, [raw_document(b"")], ["d"])
    frame = normalize(offers, run, 1)
    result = check(frame, Expectations(frozenset(), min_offers=1, max_rejected_share=0.5))
    assert sorted(result.accepted.get_column("offer_id").to_list()) == ["14-137-609", "cny", "ship"]
    assert dict(zip(result.rejected.get_column("offer_id"), result.rejected.get_column("reason"), strict=True)) == {
        "box": "card_price_out_of_band", "cny-typo": "card_price_out_of_band"}
