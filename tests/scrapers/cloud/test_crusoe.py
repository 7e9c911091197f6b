"""Crusoe Cloud: the real pricing page saved by getcomputable/gpu-index on 2026-08-22 (the GPU instances section and
every lookalike table below it: CPU, storage, fine-tuning, inference, self-serve deployments). Origin: PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.crusoe import Crusoe
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "crusoe" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"
ON_DEMAND = {
    "NVIDIA H200 141GB HGX": ("h200-sxm-141gb", Decimal("4.29"), "sxm"),
    "NVIDIA H100 80GB HGX": ("h100-sxm5-80gb", Decimal("3.90"), "sxm"),
    "NVIDIA A100 80GB SXM": ("a100-sxm4-80gb", Decimal("2.30"), "sxm"),
    "NVIDIA A100 80GB PCIe": ("a100-pcie-80gb", Decimal("2.00"), "pcie"),
    "NVIDIA L40S 48GB": ("l40s-48gb", Decimal("1.50"), None),
    "AMD MI300X 192GB": ("mi300x-192gb", Decimal("3.45"), None),
}


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def parse_text(text: str):
    return Crusoe().parse([raw_document(text.encode("utf-8"))])


def test_exactly_the_six_priced_gpus_per_gpu_hour():
    offers = Crusoe().parse([document(PAGE)])
    assert {o.offer_id: (o.gpu_id, o.price, o.interconnect) for o in offers} == ON_DEMAND
    assert {(o.pricing_type, o.currency, o.price_unit, o.gpu_count) for o in offers} == {
        ("on_demand", "USD", "gpu_hour", 1)}
    h100 = next(o for o in offers if o.offer_id == "NVIDIA H100 80GB HGX")
    assert h100.raw_gpu_name == "H100 SXM 80GB" and price_per_unit(h100) == Decimal("3.90")
    assert {o.region for o in offers} == {None} and {o.in_stock for o in offers} == {None}


def test_contact_sales_rows_and_lookalike_tables_give_no_offer():
    offers = Crusoe().parse([document(PAGE)])
    names = " ".join(o.offer_id for o in offers)
    assert "GB200" not in names and "B200" not in names and "MI355X" not in names  # "Contact sales"
    assert not [o for o in offers if o.pricing_type == "spot"]  # every "Current spot" cell is "Contact sales"
    prices = {o.price for o in offers}
    # self-serve deployments ($5.50 H100, $6.00 H200), CPU $0.04/vCPU-hr, inference $ per M tokens
    assert not prices & {Decimal("5.50"), Decimal("6.00"), Decimal("0.04"), Decimal("0.50")}


def test_a_spot_price_in_the_second_column_is_a_spot_offer():
    text = page_text()
    start = text.index("<p>$4.29/GPU-hr</p></div>") + len("<p>$4.29/GPU-hr</p></div>")
    end = text.index("</div>", start) + len("</div>")  # the H200 row's "Current spot" cell ("Contact sales")
    text = text[:start] + '<div class="pricing-rich w-richtext"><p>$2.10/GPU-hr</p></div>' + text[end:]
    spot = [o for o in parse_text(text) if o.pricing_type == "spot"]
    assert [(o.offer_id, o.price) for o in spot] == [("NVIDIA H200 141GB HGX", Decimal("2.10"))]


@pytest.mark.parametrize("change", [
    "no_gpu_section", "columns_relabelled", "per_hour_not_per_gpu", "qualifier_after_price", "third_cell", "no_rows",
])
def test_changed_page_raises_parse_error(change):
    text = page_text()
    if change == "no_gpu_section":
        text = text.replace("GPU instances pricing", "GPU pricing")
    elif change == "columns_relabelled":
        text = text.replace("Current spot", "Reserved")
    elif change == "per_hour_not_per_gpu":
        text = text.replace("$4.29/GPU-hr", "$4.29/hr")
    elif change == "qualifier_after_price":
        text = text.replace("<p>$4.29/GPU-hr</p>", "<p>$4.29/GPU-hr</p><p>per 8-GPU node</p>")
    elif change == "third_cell":
        text = text.replace("<p>$4.29/GPU-hr</p></div>",
                            '<p>$4.29/GPU-hr</p></div><div class="pricing-rich w-richtext"><p>$3.00/GPU-hr</p></div>')
    elif change == "no_rows":
        text = text.replace('role="listitem"', 'role="row"')
    with pytest.raises(ParseError):
        parse_text(text)


def test_a_page_without_the_price_table_is_a_parse_error_not_zero_offers():
    with pytest.raises(ParseError):
        parse_text("<html><body><h1>Pricing</h1><p>Contact sales</p></body></html>")
