"""Hyperstack's pricing-page parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.hyperstack.page import PRICING_URL, HyperstackPage
from scrapers.errors import ParseError

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "hyperstack-page" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"
# figures of the reservation, CPU, storage and AI Studio tables (each absent from the GPU tables read)
LOOKALIKE_PRICES = {"2.79", "2.72", "1.82", "1.75", "1.36", "1.30", "0.98", "0.95", "0.70", "0.11", "5.10",
                    "0.65", "1.90", "3.74", "0.20", "0.10", "0.063"}


@pytest.fixture(scope="module")
def offers():
    return HyperstackPage().parse([document(PAGE)])


def by_type(offers, pricing_type):
    return {o.title.split(" (")[0].split(",")[0]: o for o in offers if o.pricing_type == pricing_type}


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_every_gpu_row_of_the_on_demand_and_spot_tables(offers):
    assert len(offers) == 18
    assert Counter(o.pricing_type for o in offers) == {"on_demand": 13, "spot": 5}
    assert {o.currency for o in offers} == {"USD"} and {o.price_unit for o in offers} == {"gpu_hour"}
    assert {o.gpu_count for o in offers} == {1}
    assert len({o.offer_id for o in offers}) == 18
    assert {o.url for o in offers} == {PRICING_URL} and {o.region for o in offers} == {None}
    assert {o.term_months for o in offers} == {None}


def test_on_demand_prices_names_and_ids(offers):
    on_demand = by_type(offers, "on_demand")
    assert {label: (o.price, o.raw_gpu_name, o.gpu_id, o.interconnect) for label, o in on_demand.items()} == {
        "NVIDIA H200 SXM": (Decimal("3.99"), "H200 SXM 141GB", "h200-sxm-141gb", "sxm"),
        "NVIDIA H100 SXM": (Decimal("3.20"), "H100 SXM 80GB", "h100-sxm5-80gb", "sxm"),
        # Hyperstack-scoped aliases, from its own catalog's names (H100-80G-PCIe-NVLink, RTX-A6000...)
        "NVIDIA H100 NVLink": (Decimal("2.60"), "H100 NVLink 80GB", "h100-pcie-80gb", "nvlink"),
        "NVIDIA H100": (Decimal("2.50"), "H100 80GB", "h100-80gb-unstated", None),
        "NVIDIA RTX Pro 6000 SE": (Decimal("1.85"), "RTX Pro 6000 SE 96GB", "rtx-pro-6000-96gb", None),
        "NVIDIA A100 SXM": (Decimal("1.60"), "A100 SXM 80GB", "a100-sxm4-80gb", "sxm"),
        "NVIDIA A100 NVLink": (Decimal("1.40"), "A100 NVLink 80GB", "a100-pcie-80gb", "nvlink"),
        "NVIDIA A100": (Decimal("1.35"), "A100 80GB", "a100-80gb-unstated", None),
        "NVIDIA L40": (Decimal("1.00"), "L40 48GB", "l40-48gb", None),
        "NVIDIA A6000": (Decimal("0.50"), "A6000 48GB", "rtx-a6000-48gb", None),
        "NVIDIA A4000": (Decimal("0.15"), "A4000 16GB", "rtx-a4000-16gb", None),
        "NVIDIA B200": (Decimal("6.00"), "B200 192GB", "b200-180gb", None),
        "NVIDIA B300": (Decimal("7.40"), "B300 288GB", "b300-288gb", None),
    }
    assert on_demand["NVIDIA H200 SXM"].title.startswith("NVIDIA H200 SXM, 141 GB, up to 22 pCPUs and 225 GB RAM")


def test_spot_prices_state_no_memory(offers):
    spot = by_type(offers, "spot")
    assert {label: (o.price, o.raw_gpu_name, o.interconnect) for label, o in spot.items()} == {
        "NVIDIA H100 PCIe": (Decimal("2.00"), "H100 PCIe", "pcie"),
        "NVIDIA RTX Pro 6000 SE": (Decimal("1.48"), "RTX Pro 6000 SE", None),
        "NVIDIA A100": (Decimal("1.08"), "A100", None),
        "NVIDIA L40": (Decimal("0.80"), "L40", None),  # printed " $0.80"
        "NVIDIA A6000": (Decimal("0.40"), "A6000", None),
    }
    # 40 or 80 GB, SXM or PCIe: not said in the spot table, never borrowed from the on-demand one
    assert spot["NVIDIA A100"].gpu_id == "a100-unstated"
    assert spot["NVIDIA H100 PCIe"].gpu_id == "h100-pcie-80gb"  # made only with 80 GB
    assert spot["NVIDIA L40"].gpu_id == "l40-48gb"


def test_reservation_cpu_studio_and_nav_lookalikes_are_never_read(offers):
    assert not {str(o.price) for o in offers} & LOOKALIKE_PRICES
    assert not [o for o in offers if o.pricing_type.startswith("reserved")]
    names = " ".join(o.title for o in offers)
    for fragment in ("NVL72", "GB200", "GB300", "HGX", "cpu", "Llama", "SSV", "Public IP"):
        assert fragment not in names
    # B300 is priced on-demand only: the reservation table has no B300 row and none is invented
    assert [o.pricing_type for o in offers if o.raw_gpu_name.startswith("B300")] == ["on_demand"]


@pytest.mark.parametrize(("old", "new", "count"), [
    ('<div id="cloud-pricing"', '<div id="ai-cloud"', 1),  # the AI Cloud section fence is gone
    ("<h3><span>On-Demand GPU</span> Pricing</h3>", "<h3><span>GPU</span> Pricing</h3>", 1),  # card renamed
    ("<span>Spot VM</span> Pricing</h3>", "<span>Preemptible VM</span> Pricing</h3>", 1),  # spot card renamed
    ("<span>Pricing Per Hour</span>", "<span>Pricing Per Month</span>", 1),  # the GPU price column's meaning
    ("<span>Max pCPUs per GPU</span>", "<span>pCPUs</span>", 1),  # a column reshaped
    ("<span>$3.99</span>", "<span>\u00a33.99</span>", 1),  # another currency
    ("<span>$3.20</span>", "<span>$3.20/hr</span>", 1),  # another price format
    ("<span>141</span>", "<span>141 GB HBM3e</span>", 1),  # the VRAM cell is no longer a number
    ("<span>NVIDIA H100 PCIe</span>", "<span>1x H100 PCIe</span>", 1),  # the GPU label no longer names a vendor
    ('<div class="page-price_card_row_item_col page-price_card_row_item_col2">\n                    \n'
     "                      <span>288</span>", "<div><span>288</span>", 1),  # a row lost a cell
])
def test_changed_page_raises_parse_error(old, new, count):
    with pytest.raises(ParseError):
        HyperstackPage().parse([page_with(old, new, count)])


def test_a_second_render_of_a_price_table_raises_parse_error():
    html = PAGE.read_text()
    start = html.index('<div class="page-price_card df sb">')
    end = html.index('<div class="page-price_card df sb">', start + 1)
    doubled = html[:end] + html[start:end] + html[end:]  # the on-demand card twice: every price would count twice
    with pytest.raises(ParseError, match="2 'On-Demand GPU Pricing' tables"):
        HyperstackPage().parse([raw_document(doubled.encode())])


def test_a_spot_table_without_prices_raises_parse_error():
    html = PAGE.read_text()
    for price in ("$2.00", "$1.48", "$1.08", " $0.80", "$0.40"):
        html = html.replace(f"<span>{price}</span>", "<span>Contact us</span>", 1)
    with pytest.raises(ParseError, match="no priced GPU row"):
        HyperstackPage().parse([raw_document(html.encode())])


def test_a_no_price_mark_skips_the_row_never_a_zero():
    offers = HyperstackPage().parse([page_with("<span>$7.40</span>", "<span>Coming soon</span>")])
    assert len(offers) == 17 and not [o for o in offers if o.raw_gpu_name.startswith("B300")]


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        HyperstackPage().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
