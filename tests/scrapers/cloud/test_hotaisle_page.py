"""Hot Aisle's pricing-page parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.hotaisle.page import PRICING_URL, HotAislePage
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "hotaisle-page" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


@pytest.fixture(scope="module")
def offers():
    return HotAislePage().parse([document(PAGE)])


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_the_saved_page_is_the_whole_stored_capture():
    assert len(PAGE.read_text()) == 15059


def test_one_offer_per_vm_size_of_the_two_vm_cards(offers):
    # Small (1x) and Medium ("2x & 4x"): three VM sizes; the bare-metal card (one-month minimum) is not loaded
    assert [(o.instance_type, o.gpu_count) for o in offers] == [
        ("VM Small 1x", 1), ("VM Medium 2x", 2), ("VM Medium 4x", 4)]
    assert len({o.offer_id for o in offers}) == 3
    assert {o.pricing_type for o in offers} == {"on_demand"} and {o.term_months for o in offers} == {None}
    assert {o.currency for o in offers} == {"USD"} and {o.price_unit for o in offers} == {"gpu_hour"}
    assert {o.price for o in offers} == {Decimal("2.99")}
    assert {o.url for o in offers} == {PRICING_URL}


def test_mi300x_resolves_and_the_price_is_already_per_gpu(offers):
    assert {(o.raw_gpu_name, o.gpu_id) for o in offers} == {("MI300x", "mi300x-192gb")}
    four = next(o for o in offers if o.gpu_count == 4)
    assert price_per_unit(four) == Decimal("2.99")  # per GPU-hour, never divided by the VM's 4 GPUs
    assert four.title == "VM Medium: 4x MI300x ($2.99/GPU/hr)"
    assert all(o.region is None and o.in_stock is None and o.interconnect is None and o.cluster_network is None
               for o in offers)


def test_lookalike_prices_are_never_read(offers):
    html = PAGE.read_text()
    # bare metal (one-month minimum), the hero repeats and the existing customers' grandfathered rate are all there
    assert "$3.39/GPU/hr" in html and "$1.99/GPU/hr" in html and "MI355X" in html
    assert {o.price for o in offers} == {Decimal("2.99")}
    assert not any(o.gpu_count == 8 or "355" in o.raw_gpu_name for o in offers)


def test_a_bare_metal_card_without_its_term_is_a_parse_error_not_on_demand():
    with pytest.raises(ParseError, match="one-month minimum"):
        HotAislePage().parse([page_with("bare metal, one-month minimum</span>", "bare metal</span>")])


@pytest.mark.parametrize(("old", "new", "count"), [
    ("<h2 ", "<h3 ", -1),  # the plan headings are gone: no plan card left
    ('uppercase tracking-wide">VM</p>', 'uppercase tracking-wide">Spot VM</p>', 1),  # a plan kind not known
    ('<p class="mb-2 font-bold text-hot-orange-contrast text-sm uppercase tracking-wide">VM</p>', "<div>VM</div>",
     -1),  # the VM cards reshaped: only the bare-metal card left, no on-demand price
    ('foreground">$2.99/GPU/hr</p>', 'foreground">$2.99/hr</p>', 1),  # the per-GPU unit is gone
    ('foreground">$2.99/GPU/hr</p>', 'foreground">\u20ac2.99/GPU/hr</p>', 1),  # another currency
    ("<span>2x &amp; 4x</span>", "<span>2 to 4</span>", 1),  # the GPU counts are not 'Nx & Mx'
    ("<span>1x</span>", "<span>0x</span>", 1),  # no GPU
    ('<p class="text-muted-foreground text-sm">Ideal', '<p class="text-muted-foreground text-sm">$1.99/GPU/hr Ideal',
     1),  # a second price print in one card
])
def test_changed_page_raises_parse_error(old, new, count):
    with pytest.raises(ParseError):
        HotAislePage().parse([page_with(old, new, count)])


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        HotAislePage().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
