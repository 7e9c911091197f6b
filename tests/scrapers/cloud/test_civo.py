"""Civo's pricing-page parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.civo import PRICING_URL, Civo
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "civo" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"
PRICE_6M, PRICE_24M = Decimal("3.29"), Decimal("3.09")  # H200 SXM Small, as the page prints them


@pytest.fixture(scope="module")
def offers():
    return Civo().parse([document(PAGE)])


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_every_gpu_row_and_term_of_the_six_tables(offers):
    # 17 rows: 16 on-demand (B200 is N/A) + 17 at 12 months + 17 at 36 months + the 6-month terms (B200's N/A)
    # and the 24-month terms as `reserved`
    assert len(offers) == 83
    assert Counter(o.pricing_type for o in offers) == {"on_demand": 16, "reserved_1y": 17, "reserved_3y": 17,
                                                       "reserved": 33}
    assert {o.term_months for o in offers if o.pricing_type == "reserved_1y"} == {12}
    assert {o.term_months for o in offers if o.pricing_type == "reserved_3y"} == {36}
    assert Counter(o.term_months for o in offers if o.pricing_type == "reserved") == {6: 16, 24: 17}
    assert {o.currency for o in offers} == {"USD"} and {o.price_unit for o in offers} == {"instance_hour"}
    assert {o.gpu_id for o in offers} == {"l40s-48gb", "a100-40gb-unstated", "a100-80gb-unstated",
                                           "h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb"}
    assert len({o.offer_id for o in offers}) == 83
    assert all(o.price > 0 for o in offers)  # the CPU and object-store tables outside the section never leak in


def test_instance_price_divides_by_the_stated_gpu_count(offers):
    xl = next(o for o in offers if o.instance_type == "L40S 48GB Extra Large" and o.pricing_type == "on_demand")
    assert (xl.price, xl.gpu_count, xl.raw_gpu_name) == (Decimal("10.32"), 8, "L40S 48GB")
    assert price_per_unit(xl) == Decimal("1.29")
    h200 = {(o.pricing_type, o.term_months): o for o in offers if o.instance_type == "H200 SXM Small"}
    assert {k: o.price for k, o in h200.items()} == {
        ("on_demand", None): Decimal("3.49"), ("reserved", 6): PRICE_6M, ("reserved_1y", 12): Decimal("3.19"),
        ("reserved", 24): PRICE_24M, ("reserved_3y", 36): Decimal("2.99")}
    h200 = {k[0]: o for k, o in h200.items()}
    assert h200["on_demand"].raw_gpu_name == "H200 SXM 141GB" and h200["on_demand"].interconnect == "sxm"
    assert h200["on_demand"].url == PRICING_URL


def test_b200_is_commitment_only_never_on_demand(offers):
    b200 = [o for o in offers if o.gpu_id == "b200-180gb"]
    assert {(o.pricing_type, o.term_months, o.price) for o in b200} == {
        ("reserved_1y", 12, Decimal("35.92")), ("reserved", 24, Decimal("31.92")), ("reserved_3y", 36, Decimal("30.32"))}
    assert price_per_unit(next(o for o in b200 if o.term_months == 36)) == Decimal("3.79")


def test_a100_memory_lookalikes_stay_apart_and_unstated(offers):
    small = {o.raw_gpu_name: o.price for o in offers
             if o.instance_type.startswith("A100") and o.instance_type.endswith("Small")
             and o.pricing_type == "on_demand"}
    assert small == {"A100 40GB": Decimal("1.09"), "A100 80GB": Decimal("1.79")}
    h100 = next(o for o in offers if o.instance_type == "H100 SXM Small" and o.pricing_type == "on_demand")
    assert (h100.raw_gpu_name, h100.gpu_id, h100.price) == ("H100 SXM 80GB", "h100-sxm5-80gb", Decimal("2.99"))


@pytest.mark.parametrize(("old", "new", "count"), [
    ('<section class="pricing-product" id="nvidia-gpus">', '<div class="pricing-product">', 1),  # fence gone
    ("GPU pricing</caption>", "pricing</caption>", -1),  # no GPU table left
    (">$1.29<span>per hour", ">\u00a31.29<span>per hour", 1),  # another currency
    ("1 x NVIDIA A100 - 40GB", "1 x NVIDIA A100 - 80GB", 1),  # row under the wrong caption
    ('<div class="product-detail">2 x NVIDIA L40S - 48GB</div>', "", 1),  # a priced row without its GPU count
    (">On-demand</th>", ">Hourly</th>", 1),  # column meaning changed
])
def test_changed_page_raises_parse_error(old, new, count):
    with pytest.raises(ParseError):
        Civo().parse([page_with(old, new, count)])


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        Civo().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
