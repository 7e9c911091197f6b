"""Sesterce's homepage parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.sesterce import HOMEPAGE_URL, Sesterce, form_factors
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "sesterce" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


@pytest.fixture(scope="module")
def offers():
    return Sesterce().parse([document(PAGE)])


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_the_capture_is_the_whole_stored_file():
    assert len(PAGE.read_text()) == 19_670


def test_one_from_price_per_model_of_the_live_table(offers):
    assert {o.offer_id: o.price for o in offers} == {
        "B300": Decimal("8.48"), "B200": Decimal("4.11"), "H200": Decimal("2.48"), "H100": Decimal("1.83"),
        "A100": Decimal("1.49"), "L40S": Decimal("0.76")}
    assert {(o.currency, o.price_unit, o.gpu_count, o.pricing_type) for o in offers} == {
        ("USD", "gpu_hour", 1, "on_demand")}
    assert {o.url for o in offers} == {HOMEPAGE_URL}
    h200 = next(o for o in offers if o.offer_id == "H200")
    assert price_per_unit(h200) == Decimal("2.48") and h200.in_stock is True


def test_a_price_over_sxm_and_pcie_gets_no_form_factor(offers):
    by_model = {o.offer_id: o for o in offers}
    for model in ("H100", "A100"):
        offer = by_model[model]
        assert offer.raw_gpu_name == model and offer.interconnect is None
        assert offer.gpu_id is None or offer.gpu_id.endswith("-unstated")  # never an SXM or PCIe id
    assert (by_model["H200"].raw_gpu_name, by_model["H200"].gpu_id, by_model["H200"].interconnect) == (
        "H200 SXM", "h200-sxm-141gb", "sxm")
    assert (by_model["L40S"].gpu_id, by_model["L40S"].interconnect) == ("l40s-48gb", "pcie")
    assert by_model["B300"].gpu_id == "b300-288gb" and by_model["B200"].gpu_id == "b200-180gb"
    assert by_model["B200"].in_stock is None  # "Limited": not said


def test_form_factors_of_a_vendor_line():
    assert form_factors("NVIDIA Hopper \u00b7 SXM5 / PCIe") == ["SXM", "PCIe"]
    assert form_factors("NVIDIA Blackwell \u00b7 SXM6") == ["SXM"]
    assert form_factors("NVIDIA Ada \u00b7 PCIe") == ["PCIe"]
    assert form_factors("") == []


def test_the_ticker_flight_payload_and_cli_strip_are_never_read(offers):
    assert len(offers) == 6  # the ticker repeats each price twice, the flight payload once more
    # the CLI section's static capacity strip: $4.50 B200, $2.25 H200, $1.66 H100, $1.24 A100
    assert not {o.price for o in offers} & {Decimal("4.50"), Decimal("2.25"), Decimal("1.66"), Decimal("1.24")}


def test_a_ticker_price_change_does_not_move_the_table_price():
    offers = Sesterce().parse([page_with("<!-- -->$8.48<!-- -->", "<!-- -->$1.00<!-- -->", -1)])
    assert next(o for o in offers if o.offer_id == "B300").price == Decimal("8.48")


@pytest.mark.parametrize(("old", "new"), [
    ('id="pricing"', 'id="offers"'),  # the section is gone
    ("USD \u00b7 ON-DEMAND \u00b7 CACHED", "EUR \u00b7 ON-DEMAND \u00b7 CACHED"),  # another currency
    ("USD \u00b7 ON-DEMAND \u00b7 CACHED", "USD \u00b7 RESERVED \u00b7 CACHED"),  # another pricing type
    ('<th scope="col">From / GPU / hr</th>', '<th scope="col">From / hr</th>'),  # column meaning changed
    ('<span class="bbg-price">$1.83</span>', '<span class="bbg-price">\u20ac1.83</span>'),  # a price in euros
    ('<span class="bbg-price">$1.83</span>', '<span class="bbg-price">$1.83/mo</span>'),  # another unit
])
def test_changed_page_raises_parse_error(old, new):
    with pytest.raises(ParseError):
        Sesterce().parse([page_with(old, new)])


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        Sesterce().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
