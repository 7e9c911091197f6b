"""Together AI GPU Clusters parser on gpu-index's real capture of the pricing page (2026-08-22, trimmed by that
project to the Dedicated Inference -> Sandbox sections). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.together_gpus import PRICING_URL, TogetherGpus
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

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
    on_demand = [o for o in offers if o.pricing_type == "on_demand"]
    assert {o.offer_id: o.price for o in on_demand} == {
        "NVIDIA HGX H100|on_demand": Decimal("3.99"),
        "NVIDIA HGX H200|on_demand": Decimal("5.99"),
        "NVIDIA HGX B200|on_demand": Decimal("8.19"),
    }
    assert {(o.pricing_type, o.term_months, o.currency, o.price_unit, o.gpu_count) for o in on_demand} == {
        ("on_demand", None, "USD", "gpu_hour", 1)}
    assert all(o.provider == "together" and o.source == "together-gpus" for o in offers)
    assert all(o.url == PRICING_URL and o.cluster_network is None and o.region is None for o in offers)


def test_gpu_ids_hgx_read_as_sxm_and_h100_memory_never_guessed(offers):
    by_label = {o.instance_type: o for o in offers if o.pricing_type == "on_demand"}
    b200 = by_label["NVIDIA HGX B200"]
    assert (b200.raw_gpu_name, b200.gpu_id, b200.interconnect) == ("B200 SXM", "b200-180gb", "sxm")
    assert price_per_unit(b200) == Decimal("8.19")
    assert by_label["NVIDIA HGX H200"].gpu_id == "h200-sxm-141gb"
    h100 = by_label["NVIDIA HGX H100"]
    assert (h100.raw_gpu_name, h100.gpu_id, h100.interconnect) == ("H100 SXM", "h100-sxm5-80gb", "sxm")  # datasheet name


def test_lookalike_tables_never_loaded(offers):
    text = page_text()
    assert text.count("$8.99") == 1 and text.count("$5.49") == 1  # Dedicated Inference lookalike rows are there
    assert text.count('<div class="hide">') == 1  # and the hidden duplicate on-demand table
    prices = {o.price for o in offers}
    assert not prices & {Decimal("8.99"), Decimal("5.49")}
    assert len(offers) == len({o.offer_id for o in offers}) == 12  # the hidden copy never doubles a price


def test_reserved_tiers_are_reserved_with_their_longest_term_in_months(offers):
    reserved = {(o.instance_type, o.term_months): o.price for o in offers if o.pricing_type == "reserved"}
    # 7-30 days -> 1 month, 31-90 -> 3, 91-180 -> 6; "181+ days" is "Contact us"; NVL72 and B300 rows span all four
    assert reserved == {
        ("NVIDIA HGX H100", 1): Decimal("3.69"), ("NVIDIA HGX H100", 3): Decimal("3.45"),
        ("NVIDIA HGX H100", 6): Decimal("3.19"),
        ("NVIDIA HGX H200", 1): Decimal("4.99"), ("NVIDIA HGX H200", 3): Decimal("4.15"),
        ("NVIDIA HGX H200", 6): Decimal("3.99"),
        ("NVIDIA HGX B200", 1): Decimal("7.99"), ("NVIDIA HGX B200", 3): Decimal("7.79"),
        ("NVIDIA HGX B200", 6): Decimal("6.79"),
    }
    h200 = next(o for o in offers if o.offer_id == "NVIDIA HGX H200|reserved|31-90 days")
    assert (h200.price_unit, h200.gpu_count, h200.gpu_id, h200.title) == (
        "gpu_hour", 1, "h200-sxm-141gb", "NVIDIA HGX H200 (GPU Clusters, 31-90 days)")
    assert price_per_unit(h200) == Decimal("4.15")


def test_a_price_in_the_contact_us_tier_raises_parse_error():
    text = after_visible_heading(">Contact us</p>", ">$2.99</p>")
    with pytest.raises(ParseError):
        parse_text(text)


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
    tail = re.sub(r">\s*\$\d+\.\d\d\s*<", ">\u2014<", text[start:])  # every on-demand and reserved price gone
    with pytest.raises(ParseError):
        parse_text(text[:start] + tail)


def test_not_the_pricing_page_raises_parse_error():
    with pytest.raises(ParseError):
        TogetherGpus().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
