"""GMI Cloud's pricing-page parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.gmicloud import GmiCloud
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "gmicloud" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


def page_with(old: str, new: str):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, 1).encode())


def test_one_offer_per_priced_card_per_gpu_hour():
    offers = GmiCloud().parse([document(PAGE)])
    assert {o.raw_gpu_name: o.price for o in offers} == {
        "NVIDIA GB200": Decimal("8.00"), "NVIDIA H100 GPU": Decimal("2.00"), "NVIDIA H200": Decimal("2.60"),
        "NVIDIA B200 GPU": Decimal("4.00")}  # GB300 'Pre order' has no price
    assert {(o.currency, o.price_unit, o.gpu_count, o.pricing_type) for o in offers} == {
        ("USD", "gpu_hour", 1, "on_demand")}
    by_name = {o.raw_gpu_name: o for o in offers}
    assert by_name["NVIDIA H200"].gpu_id == "h200-sxm-141gb" and by_name["NVIDIA B200 GPU"].gpu_id == "b200-180gb"
    assert by_name["NVIDIA H100 GPU"].gpu_id == "h100-unstated"  # no form factor or memory stated: never guessed
    assert by_name["NVIDIA GB200"].gpu_id == "gb200-186gb"  # a Grace Blackwell GPU, not a B200 (a GMI alias)
    assert price_per_unit(by_name["NVIDIA H200"]) == Decimal("2.60")
    assert by_name["NVIDIA H200"].in_stock is True and by_name["NVIDIA B200 GPU"].in_stock is None


def test_the_dollar_noise_outside_the_cards_is_never_read():
    body = PAGE.read_text()
    assert body.count("from $2.00") >= 4
    offers = GmiCloud().parse([document(PAGE)])
    assert [o.price for o in offers].count(Decimal("2.00")) == 1


@pytest.mark.parametrize(("old", "new"), [
    (">from $2.60<", ">from \u20ac2.60<"),  # another currency
    (">from $2.60<", ">$2.60 per hour<"),  # another format
    (">NVIDIA H200</h3>", ">H200</h3>"),  # a price no NVIDIA card owns
    (">from $4.00</span>", ">from $4.00</span><span>from $9.00</span><span>/GPU-hour</span>"),  # two prices
])
def test_changed_page_raises_parse_error(old, new):
    with pytest.raises(ParseError):
        GmiCloud().parse([page_with(old, new)])


def test_page_without_price_cards_raises_parse_error():
    with pytest.raises(ParseError):
        GmiCloud().parse([raw_document(b"<html><h3>Pricing</h3><p>Contact sales</p></html>")])
    unpriced = b"<div><h3>NVIDIA H100 GPU</h3><div><span>Contact sales</span><span>/GPU-hour</span></div></div>"
    with pytest.raises(ParseError):
        GmiCloud().parse([raw_document(unpriced)])
