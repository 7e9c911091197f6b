"""E2E Networks' pricing-page parser on gpu-index's real capture (2026-08-22). Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.e2e import PRICING_URL, E2ENetworks
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "e2e" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


@pytest.fixture(scope="module")
def offers():
    return E2ENetworks().parse([document(PAGE)])


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_the_capture_is_the_whole_stored_file():
    assert len(PAGE.read_text()) == 70_000


def test_every_gpu_row_on_demand_and_annual(offers):
    # 10 rows x (hourly on-demand + annual commitment); the monthly column has no pricing type
    assert len(offers) == 20 and len({o.offer_id for o in offers}) == 20
    assert Counter(o.pricing_type for o in offers) == {"on_demand": 10, "reserved_1y": 10}
    assert {o.price_unit for o in offers if o.pricing_type == "on_demand"} == {"gpu_hour"}
    assert {(o.price_unit, o.term_months) for o in offers if o.pricing_type == "reserved_1y"} == {
        ("instance_term", 12)}
    assert {o.currency for o in offers} == {"USD"} and {o.gpu_count for o in offers} == {1}
    assert {o.gpu_id for o in offers} == {
        "b200-180gb", "h200-sxm-141gb", "h100-80gb-unstated", "rtx-pro-6000-96gb", "a100-80gb-unstated",
        "a100-40gb-unstated", "a40-48gb", "l40s-48gb", "a30-pcie-24gb", "l4-24gb"}
    assert {o.interconnect for o in offers} == {None}  # no row says SXM or PCIe
    assert {o.url for o in offers} == {PRICING_URL}


def test_hourly_is_per_gpu_and_the_annual_total_divides_by_a_year(offers):
    h100 = {o.pricing_type: o for o in offers if o.raw_gpu_name == "H100 80GB"}
    assert h100["on_demand"].price == Decimal("3.77") and price_per_unit(h100["on_demand"]) == Decimal("3.77")
    assert h100["reserved_1y"].price == Decimal("23914.80")
    assert price_per_unit(h100["reserved_1y"]) == Decimal("2.730000")  # 23,914.80 / 8760 h
    b200 = next(o for o in offers if o.raw_gpu_name == "B200 192GB" and o.pricing_type == "on_demand")
    # the page states the B200's physical 192 GB (180 GB usable, the id's figure): an E2E alias, not the catalogue
    assert (b200.price, b200.gpu_id) == (Decimal("6.99"), "b200-180gb")
    assert resolve_gpu_id("B200 192GB") is None


def test_the_two_a100_rows_stay_apart_by_their_vram(offers):
    a100 = {o.raw_gpu_name: o.price for o in offers if o.raw_gpu_name.startswith("A100")
            and o.pricing_type == "on_demand"}
    assert a100 == {"A100 80GB": Decimal("2.10"), "A100 40GB": Decimal("1.98")}


def test_the_inr_json_ld_catalog_is_never_read(offers):
    assert Decimal(671) not in {o.price for o in offers}  # the catalog's INR B200 list price
    assert all(o.price < 100 for o in offers if o.pricing_type == "on_demand")


def test_a_rupee_price_is_loaded_in_inr():
    offers = E2ENetworks().parse([page_with(">$0.57</span>", ">\u20b949</span>")])
    l4 = next(o for o in offers if o.raw_gpu_name == "L4 24GB" and o.pricing_type == "on_demand")
    assert (l4.price, l4.currency) == (Decimal(49), "INR")


def test_a_cell_without_a_figure_is_no_price():
    offers = E2ENetworks().parse([page_with(">$55,089.45</span>", ">Contact us</span>")])
    assert {o.pricing_type for o in offers if o.raw_gpu_name == "B200 192GB"} == {"on_demand"}


@pytest.mark.parametrize(("old", "new", "count"), [
    ("Prices are per GPU-hour", "Prices are per hour", 1),  # unit no longer stated: unknown unit
    (">Hourly/On-Demand</th>", ">Hourly</th>", 1),  # column meaning changed: no table has the header
    (">Monthly</th>", ">Annually</th>", 1),  # columns reordered
    (">$0.57</span>", ">\u20ac0.57</span>", 1),  # another currency
    (">$3.77</span>", ">$2,363.01</span>", 1),  # hourly and monthly swapped: annual no longer a discount
    (">80</td>", ">80 GB</td>", 1),  # a spec cell that is not an integer
    (('<td class="jsx-c2a50f1f0af953b px-6 py-4 text-center"><span class="jsx-c2a50f1f0af953b text-sm font-medium '
      'text-gray-900 dark:text-white">$6.99</span></td>'), "", 1),  # a row lost a cell
])
def test_changed_page_raises_parse_error(old, new, count):
    with pytest.raises(ParseError):
        E2ENetworks().parse([page_with(old, new, count)])


def test_not_html_of_the_page_raises_parse_error():
    with pytest.raises(ParseError):
        E2ENetworks().parse([raw_document(b"<html><body>Just a moment...</body></html>")])
