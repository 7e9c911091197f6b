"""Massed Compute's pricing-page parser on gpu-index's real capture (2026-08-22, an excerpt of the RSC data).
Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.massedcompute.page import PRICING_URL, MassedComputePage, unescape
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "massedcompute-page" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"
# a price print as the page escapes it: ["$$52.80",["$","small",null,{...,"children":"/hr"}]]
PRICE_PRINT = re.compile(r'\[\\"\$\$[\d.]+\\",\[\\"\$\\",\\"small\\",null,\{[^{}]*\\"children\\":\\"/hr\\"\}\]\]')


@pytest.fixture(scope="module")
def offers():
    return MassedComputePage().parse([document(PAGE)])


def by_instance(offers):
    return {o.instance_type: o for o in offers}


def page_with(old: str, new: str, count: int = 1):
    html = PAGE.read_text()
    assert old in html
    return raw_document(html.replace(old, new, count).encode())


def test_one_offer_per_priced_row_of_the_excerpt(offers):
    assert len(offers) == 23
    assert len({o.offer_id for o in offers}) == 23  # the mobile card and table row of a VM give one offer
    assert Counter(o.pricing_type for o in offers) == {"on_demand": 23}
    assert {o.currency for o in offers} == {"USD"} and {o.price_unit for o in offers} == {"instance_hour"}
    assert {o.url for o in offers} == {PRICING_URL} and {o.region for o in offers} == {None}
    assert Counter(o.gpu_count for o in offers) == {1: 16, 2: 2, 4: 1, 8: 4}


def test_node_prices_divide_by_the_stated_qty(offers):
    rows = by_instance(offers)
    b300 = rows["B300 SXM6 x8"]
    assert (b300.price, b300.gpu_count, b300.gpu_id, b300.interconnect) == (Decimal("52.80"), 8, "b300-288gb", "sxm")
    assert price_per_unit(b300) == Decimal("6.60")
    h200 = rows["H200 NVL (141GB) NVLink x4"]
    assert (h200.price, h200.raw_gpu_name, h200.gpu_id, h200.interconnect) == (
        Decimal("15.28"), "H200 NVL 141GB", "h200-nvl-141gb", "pcie_nvlink")
    assert rows["H200 NVL (141GB) x1"].price == Decimal("3.62")
    assert rows["A30 (24GB) x1"].price == Decimal("0.35")


def test_a_deferred_table_cell_falls_back_to_the_mobile_card(offers):
    # the desktop B200 and H100 SXM5 rows defer their price to chunks ($L31, $L83) the excerpt does not hold
    rows = by_instance(offers)
    assert rows["B200 SXM6 x8"].price == Decimal("43.46") and rows["B200 SXM6 x8"].gpu_id == "b200-180gb"
    assert rows["H100 SXM5 (80GB) x8"].price == Decimal("25.12")
    assert rows["H100 SXM5 (80GB) x8"].gpu_id == "h100-sxm5-80gb"


def test_request_rows_give_no_offer_and_never_steal_a_deferred_price(offers):
    rows = by_instance(offers)
    assert "H100 (80GB) x8" not in rows and "L40 (48GB) x8" not in rows  # "Request": contact us
    # gpu-index's trap: chunk 7d ($23.36 of the NVLink x8 VM) lies inside the H100 x8 row's text
    text = unescape(PAGE.read_text())
    start = text.index('"H100 (80GB)-x 8-3"')
    assert "$$23.36" in text[start:text.index('"L40 (48GB)-mobile-x 8-3"')]
    assert rows["H100 (80GB) x1"].price == Decimal("2.73")
    assert rows["H100 NVL (94GB) NVLink x8"].price == Decimal("23.36")  # its card resolves $L7d, its row is inline
    assert rows["H100 NVL (94GB) NVLink x8"].gpu_count == 8


def test_lookalike_names_stay_apart(offers):
    ids = {o.instance_type: o.gpu_id for o in offers}
    assert ids["L40S (48GB) x1"] == "l40s-48gb" and ids["L40 (48GB) x1"] == "l40-48gb"
    assert ids["RTX 6000 ADA (48GB) x1"] == "rtx-6000-ada-48gb" and ids["RTX A6000 (48GB) x1"] == "rtx-a6000-48gb"
    a6000 = {o.instance_type: o.price for o in offers if o.raw_gpu_name == "RTX A6000 48GB"}
    assert a6000 == {"RTX A6000 (48GB) x1": Decimal("0.57"), "RTX A6000 (48GB) [ALT Config] x1": Decimal("0.55"),
                     "RTX A6000 (48GB) [Premium] x1": Decimal("0.57"), "RTX A6000 (48GB) NVLink x2": Decimal("1.24")}
    assert ids["A100 (80GB) x1"] == "a100-80gb-unstated" and ids["A100 SXM4 (80GB) x1"] == "a100-sxm4-80gb"
    assert ids["DGX A100 (80GB) x1"] == "a100-sxm4-80gb"  # a DGX A100 is built on SXM4 boards (a scoped alias)


@pytest.mark.parametrize(("old", "new", "count"), [
    ('\\"th\\",\\"Price\\"', '\\"th\\",\\"Cost\\"', -1),  # the price column renamed
    ('\\"$\\",\\"thead\\"', '\\"$\\",\\"caption\\"', -1),  # no table header left
    ("$$52.80", "\u20ac52.80", -1),  # another currency
    ('\\"children\\":\\"/hr\\"}]]}]]}],[\\"$\\",\\"dl', '\\"children\\":\\"/mo\\"}]]}]]}],[\\"$\\",\\"dl', 1),  # unit
    ("$$52.80", "$$50.00", 1),  # the card and the table row of one VM disagree
    ('[\\"×\\",\\"8\\"]', '[\\"×\\",\\"4\\"]', 1),  # the Qty is not the key's GPU count
    ('\\"B300 SXM6-x 8-0\\",{\\"className', '\\"B300 SXM6-x 8-0\\",{className', 1),  # not JSON any more
    ('\\"children\\":[[\\"$\\",\\"td\\",null,{\\"className\\":\\"px-4 py-3 md:px-6\\"',
     '\\"children\\":[[\\"$\\",\\"td\\",null,{}],[\\"$\\",\\"td\\",null,{\\"className\\":\\"px-4 py-3 md:px-6\\"', 1),
])  # the last: a table row with a seventh cell
def test_changed_page_raises_parse_error(old, new, count):
    with pytest.raises(ParseError):
        MassedComputePage().parse([page_with(old, new, count)])


def test_a_page_with_only_request_rows_raises_parse_error():
    request = '[\\"$\\",\\"span\\",null,{\\"className\\":\\"text-pricing-ink-400\\",\\"children\\":\\"Request\\"}]'
    html, prints = PRICE_PRINT.subn(lambda _: request, PAGE.read_text())
    assert prints == PAGE.read_text().count("$$") == 44  # every price print, chunk 7d's included
    with pytest.raises(ParseError, match="not one price"):
        MassedComputePage().parse([raw_document(html.encode())])


def test_not_the_pricing_page_raises_parse_error():
    with pytest.raises(ParseError):
        MassedComputePage().parse([raw_document(b"<html><body>Sign in to Massed Compute</body></html>")])
