"""DigitalOcean's docs pricing-page parser on gpu-index's real capture (2026-08-22). Origin:
tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.digitalocean.page import PRICING_URL, DigitalOceanPage, split_label
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "digitalocean-page" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


@pytest.fixture(scope="module")
def offers():
    return DigitalOceanPage().parse([document(PAGE)])


def test_the_saved_page_is_the_whole_stored_capture():
    assert len(PAGE.read_text()) == 64007


def test_every_row_of_the_on_demand_and_spot_tables(offers):
    assert len(offers) == 19
    assert Counter(o.pricing_type for o in offers) == {"on_demand": 11, "spot": 8}
    assert len({o.offer_id for o in offers}) == 19
    assert {o.currency for o in offers} == {"USD"} and {o.price_unit for o in offers} == {"instance_hour"}
    assert Counter(o.gpu_count for o in offers) == {1: 11, 8: 8}
    assert {o.url for o in offers} == {PRICING_URL} and {o.term_months for o in offers} == {None}
    assert all(o.region is None and o.in_stock is None and o.interconnect is None and o.cluster_network is None
               for o in offers)


def test_prices_and_gpu_counts_as_the_page_states_them(offers):
    by = {(o.instance_type, o.pricing_type): o for o in offers}
    h200 = by["NVIDIA H200 (8x)", "on_demand"]
    assert (h200.price, h200.gpu_count, h200.raw_gpu_name) == (Decimal("35.76"), 8, "NVIDIA H200")
    assert price_per_unit(h200) == Decimal("4.47") == by["NVIDIA H200", "on_demand"].price
    mi300x = by["AMD MI300X", "on_demand"]
    assert (mi300x.price, mi300x.gpu_count, mi300x.gpu_id) == (Decimal("2.59"), 1, "mi300x-192gb")
    assert by["NVIDIA RTX 4000", "on_demand"].price == Decimal("0.76")
    b300 = by["NVIDIA B300, air-cooled (8x)", "spot"]
    assert (b300.price, b300.gpu_id, price_per_unit(b300)) == (Decimal("89.52"), "b300-288gb", Decimal("11.19"))
    assert by["AMD MI355X (8x)", "spot"].price == Decimal("36.00")
    assert by["AMD MI350X", "spot"].price == Decimal("4.00")


def test_gpu_names_resolve_only_where_the_label_says_enough(offers):
    ids = {o.raw_gpu_name: o.gpu_id for o in offers}
    assert ids == {
        "AMD MI300X": "mi300x-192gb", "AMD MI325X": "mi325x-256gb", "AMD MI350X": "mi350x-288gb",
        "AMD MI355X": "mi355x-288gb", "NVIDIA L40s": "l40s-48gb", "NVIDIA H200": "h200-sxm-141gb",
        "NVIDIA B300, air-cooled": "b300-288gb", "NVIDIA B300, liquid-cooled": "b300-288gb",
        # no form factor on this page: the unstated H100; the Ada generation from DigitalOcean's own API names
        # (nvidia_rtx_4000_ada, nvidia_rtx_6000_ada), as DigitalOcean-scoped aliases, never read into the page
        "NVIDIA H100": "h100-unstated", "NVIDIA RTX 4000": "rtx-4000-ada-20gb", "NVIDIA RTX 6000": "rtx-6000-ada-48gb",
    }
    assert resolve_gpu_id("NVIDIA RTX 6000") != "rtx-6000-ada-48gb"  # elsewhere the name is not read as Ada


def test_spot_only_and_on_demand_only_gpus_stay_in_their_section(offers):
    spot = {o.raw_gpu_name for o in offers if o.pricing_type == "spot"}
    on_demand = {o.raw_gpu_name for o in offers if o.pricing_type == "on_demand"}
    assert spot == {"AMD MI350X", "AMD MI355X", "NVIDIA B300, air-cooled", "NVIDIA B300, liquid-cooled"}
    assert not spot & on_demand


def test_contract_cpu_and_bandwidth_lookalikes_are_never_read(offers):
    html = PAGE.read_text()
    assert "Per contract after" in html and "$0.01 per GiB" in html and 'id="cpu-droplet-pricing"' in html
    assert "NVIDIA B300" not in {o.instance_type for o in offers}  # the bare label is the contract table's only
    assert not any("contract" in (o.title or "").lower() for o in offers)
    assert min(o.price for o in offers) == Decimal("0.76")  # no $0.01 charge leaks in


def test_split_label():
    assert split_label("NVIDIA B300, liquid-cooled (8x)") == ("NVIDIA B300, liquid-cooled", 8)
    assert split_label("AMD MI300X") == ("AMD MI300X", 1)
    assert split_label("NVIDIA H200 (8x) SXM") is None and split_label("NVIDIA H200 (8x)*") is None


@pytest.mark.parametrize("changes", [
    [('<h2 id="spot-gpu-droplet-pricing">', "<h2>")],  # a section heading gone
    [('<h2 id="on-demand-gpu-droplet-pricing">', '<h2 id="gpu-droplet-pricing">')],  # a section renamed
    [("<th>GPU</th>", "<th>Chip</th>")],  # column meaning changed
    [("<td>$4.41 per hour</td>", "<td>\u20ac4.41 per hour</td>")],  # another currency
    [("<td>$4.41 per hour</td>", "<td>$4.41 per month</td>")],  # another unit
    [("<td>NVIDIA H200 (8x)</td>", "<td>NVIDIA H200 (8x)*</td>")],  # a count that no longer ends the label
    [("<td>$4.41 per hour</td>", "<td>$4.41 per hour</td><td>new</td>")],  # a third cell
    # the headings after the spot table turned into divs: the section's end (and the contract table) unsure
    [('<h3 id="spot-gpu-droplet-billing">', "<div>"), ('<h2 id="contract-gpu-droplet-pricing">', "<div>")],
    # a second table in the on-demand section
    [("<p>If you are a newer", "<table><tr><th>GPU</th><th>Price</th></tr></table><p>If you are a newer")],
])
def test_changed_page_raises_parse_error(changes):
    html = PAGE.read_text()
    for old, new in changes:
        assert old in html
        html = html.replace(old, new, 1)
    with pytest.raises(ParseError):
        DigitalOceanPage().parse([raw_document(html.encode())])


def test_a_section_whose_rows_all_lost_their_price_is_a_parse_error():
    html = PAGE.read_text()
    spot = html.index('<h2 id="spot-gpu-droplet-pricing">')
    end = html.index('<h3 id="spot-gpu-droplet-billing">')
    section = html[spot:end]
    for price in ("$4.00", "$32.00", "$4.50", "$36.00", "$11.19", "$89.52"):
        section = section.replace(f"{price} per hour", "Sold out")
    with pytest.raises(ParseError, match="no price"):
        DigitalOceanPage().parse([raw_document((html[:spot] + section + html[end:]).encode())])


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        DigitalOceanPage().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
