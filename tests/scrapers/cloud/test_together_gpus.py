"""Together AI GPU Clusters parser on gpu-index's real capture of the pricing page (2026-08-22, trimmed by that
project to the Dedicated Inference -> Sandbox sections). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.together_gpus import PRICING_URL, TogetherGpus, gpu_raw_name
from scrapers.errors import ParseError
from warehouse.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "together-gpus" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"
VISIBLE_TABLE = "On-demand hourly rates and reserved capacity"


@pytest.fixture(scope="module")
def offers():
    return TogetherGpus().parse([document(PAGE)])


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def parse_text(text: str):
    return TogetherGpus().parse([raw_document(text.encode("utf-8"))])


def after_visible_heading(old: str, new: str, count: int = 1) -> str:
    """The page with a change made only in the visible GPU Clusters table (the lookalike rows before it kept)."""
    text = page_text()
    start = text.index(VISIBLE_TABLE)
    assert old in text[start:]
    return text[:start] + text[start:].replace(old, new, count)


def test_one_on_demand_offer_per_priced_gpu_per_gpu_hour(offers):
    # 6 rows: H100, H200, B200 priced; GB200/GB300 NVL72 and HGX B300 are an em-dash (no price)
    assert {o.offer_id: o.price for o in offers} == {
        "NVIDIA HGX H100|on_demand": Decimal("3.99"),
        "NVIDIA HGX H200|on_demand": Decimal("5.99"),
        "NVIDIA HGX B200|on_demand": Decimal("8.19"),
    }
    assert {(o.pricing_type, o.term_months, o.currency, o.price_unit, o.gpu_count) for o in offers} == {
        ("on_demand", None, "USD", "gpu_hour", 1)}
    assert all(o.provider == "together" and o.source == "together-gpus" for o in offers)
    assert all(o.url == PRICING_URL and o.cluster_network is None and o.region is None for o in offers)


def test_gpu_ids_hgx_read_as_sxm_and_h100_memory_never_guessed(offers):
    by_label = {o.instance_type: o for o in offers}
    b200 = by_label["NVIDIA HGX B200"]
    assert (b200.raw_gpu_name, b200.gpu_id, b200.interconnect) == ("B200 SXM", "b200-180gb", "sxm")
    assert price_per_unit(b200) == Decimal("8.19")
    assert by_label["NVIDIA HGX H200"].gpu_id == "h200-sxm-141gb"
    h100 = by_label["NVIDIA HGX H100"]
    assert (h100.raw_gpu_name, h100.gpu_id, h100.interconnect) == ("H100 SXM", "h100-unstated", "sxm")  # memory unsaid
    assert gpu_raw_name("NVIDIA GB200 NVL72") == ("GB200 NVL72", "nvlink")


def test_lookalike_tables_and_short_reserved_terms_never_loaded(offers):
    text = page_text()
    assert text.count("$8.99") == 1 and text.count("$5.49") == 1  # Dedicated Inference lookalike rows are there
    assert text.count('<div class="hide">') == 1  # and the hidden duplicate on-demand table
    prices = {o.price for o in offers}
    assert not prices & {Decimal("8.99"), Decimal("5.49")}
    # the 7-30 / 31-90 / 91-180 day reserved prices fit no pricing type: skipped, never relabelled
    assert not prices & {Decimal(p) for p in ("3.69", "3.45", "3.19", "4.99", "4.15", "7.99", "7.79", "6.79")}
    assert len(offers) == len({o.offer_id for o in offers}) == 3  # the hidden copy never doubles a price


def test_expectations_hold_on_the_capture(offers):
    expected = TogetherGpus.expectations
    assert expected.expected_gpu_ids <= {o.gpu_id for o in offers}
    assert len(offers) >= expected.min_offers


@pytest.mark.parametrize("text", [
    page_text().replace('id="gpu-clusters"', 'id="gpu-cluster"'),  # the section is gone
    page_text().replace(">GPU Clusters</h2>", ">Clusters</h2>"),  # another section under that anchor
    page_text().replace("All prices are per GPU per hour.", "All prices are per node per hour."),  # unit changed
    page_text().replace('<div class="hide">', "<div>"),  # a second visible table: which one is ambiguous
    after_visible_heading('<p class="caption-m">31-90 days</p>', '<p class="caption-m">1 year</p>'),  # columns
    after_visible_heading("$8.19", "8.19 EUR"),  # another currency or format
    after_visible_heading('colspan="4" class="text-align-center"', 'colspan="3" class="text-align-center"'),
    after_visible_heading('<td class="is-right-border">', "<td>"),  # on-demand column binding lost
])
def test_changed_page_raises_parse_error(text):
    assert text != page_text()
    with pytest.raises(ParseError):
        parse_text(text)


def test_no_priced_row_left_raises_parse_error():
    text = page_text()
    start = text.index(VISIBLE_TABLE)
    tail = text[start:]
    for price in ("$3.99", "$5.99", "$8.19"):
        tail = tail.replace(f">{price}</p></div></td><td><div", ">\u2014</p></div></td><td><div", 1)
    with pytest.raises(ParseError):
        parse_text(text[:start] + tail)


def test_not_the_pricing_page_raises_parse_error():
    with pytest.raises(ParseError):
        TogetherGpus().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
