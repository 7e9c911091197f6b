"""TensorPool's pricing-page parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.tensorpool import PRICING_URL, TensorPool
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "tensorpool" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"
TP_CELL = '<div class="p-5 text-center text-base font-jetbrains font-medium bg-[#B8E7F5] border-t border-[#e0e0e0]">'
PLAIN_CELL = '<div class="p-5 text-center text-base font-jetbrains font-medium border-t border-[#e0e0e0]">'


@pytest.fixture(scope="module")
def offers():
    return TensorPool().parse([document(PAGE)])


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_the_capture_is_the_whole_stored_file():
    assert len(PAGE.read_text()) == 31_084


def test_only_the_tensorpool_column_per_gpu_hour(offers):
    assert {o.raw_gpu_name: o.price for o in offers} == {
        "B200 SXM": Decimal("4.99"), "H200 SXM": Decimal("2.99"), "B300 SXM": Decimal("5.49"),
        "H100 SXM": Decimal("1.99"), "L40S": Decimal("1.49")}  # CPU $0.015/hr skipped
    assert {(o.currency, o.price_unit, o.gpu_count, o.pricing_type) for o in offers} == {
        ("USD", "gpu_hour", 1, "on_demand")}
    assert {o.url for o in offers} == {PRICING_URL}


def test_competitor_prices_are_never_loaded(offers):
    prices = {o.price for o in offers}
    # Lambda's H100 $3.29 and the 'Traditional Clouds' $18/$10/$14/$3 estimates
    assert not prices & {Decimal("3.29"), Decimal(18), Decimal(10), Decimal(14), Decimal(3)}


def test_gpu_ids_and_interconnect(offers):
    by_name = {o.raw_gpu_name: o for o in offers}
    assert by_name["H200 SXM"].gpu_id == "h200-sxm-141gb" and by_name["B200 SXM"].gpu_id == "b200-180gb"
    assert by_name["B300 SXM"].gpu_id == "b300-288gb" and by_name["L40S"].gpu_id == "l40s-48gb"
    assert by_name["H100 SXM"].gpu_id == "h100-sxm5-80gb"  # the datasheet's product name: the 80 GB part
    assert by_name["H100 SXM"].interconnect == "sxm" and by_name["L40S"].interconnect is None
    assert price_per_unit(by_name["H200 SXM"]) == Decimal("2.99")


def test_an_unpriced_gpu_is_skipped():
    offers = TensorPool().parse([page_with(f"{TP_CELL}$1.49/hr</div>", f"{TP_CELL}N/A</div>")])
    assert "L40S" not in {o.raw_gpu_name for o in offers} and len(offers) == 4


@pytest.mark.parametrize(("old", "new"), [
    ("grid-cols-[200px_200px_1fr_1fr_1fr]", "grid-cols-4"),  # the grid is gone
    # the highlight moved off the TensorPool column onto Lambda's: columns can no longer be told apart
    (f"{PLAIN_CELL}$3.29/hr</div>{TP_CELL}$1.99/hr</div>", f"{TP_CELL}$3.29/hr</div>{PLAIN_CELL}$1.99/hr</div>"),
    (">Lambda Labs</div>", ">TensorPool</div>"),  # two TensorPool headers
    (f"{TP_CELL}$2.99/hr</div>", f"{TP_CELL}\u20ac2.99/hr</div>"),  # another currency
    (f"{TP_CELL}$2.99/hr</div>", f"{TP_CELL}$2.99/mo</div>"),  # another unit
    ('<div class="p-5"></div><div class="p-5 text-base font-jetbrains border-t border-[#e0e0e0]">L40S',
     '<div class="p-5">RESERVED</div><div class="p-5 text-base font-jetbrains border-t border-[#e0e0e0]">L40S'),
])
def test_changed_page_raises_parse_error(old, new):
    with pytest.raises(ParseError):
        TensorPool().parse([page_with(old, new)])


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        TensorPool().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
