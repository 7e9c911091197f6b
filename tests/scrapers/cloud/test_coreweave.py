"""CoreWeave: the real pricing page saved by getcomputable/gpu-index on 2026-08-22 (the GPU section with both region
tables, and the head of the CPU section below it). Origin: PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.coreweave import CoreWeave
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "coreweave" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def parse_text(text: str):
    return CoreWeave().parse([raw_document(text.encode("utf-8"))])


def one(offers, product, region, pricing_type):
    found = [o for o in offers if o.offer_id == f"{product}|{region}" and o.pricing_type == pricing_type]
    assert len(found) == 1, (product, region, pricing_type, found)
    return found[0]


def test_both_region_tables_give_every_labelled_price():
    offers = CoreWeave().parse([document(PAGE)])
    assert len(offers) == 32
    assert sum(o.region == "north-america" for o in offers) == 17
    assert sum(o.region == "europe" for o in offers) == 15
    assert {o.pricing_type for o in offers} == {"on_demand", "spot"}
    assert {(o.currency, o.price_unit, o.channel) for o in offers} == {("USD", "instance_hour", "cloud")}
    assert len({(o.offer_id, o.pricing_type) for o in offers}) == 32


def test_b200_is_an_eight_gpu_instance_price_divided_per_gpu():
    offers = CoreWeave().parse([document(PAGE)])
    b200 = one(offers, "nvidia-b200", "north-america", "on_demand")
    assert (b200.price, b200.gpu_count, b200.gpu_id) == (Decimal("68.80"), 8, "b200-180gb")
    assert price_per_unit(b200) == Decimal("8.6")
    assert b200.raw_gpu_name == "B200 SXM 180GB" and b200.interconnect == "sxm"
    assert b200.title == "NVIDIA HGX B200" and b200.instance_type == "nvidia-b200"
    assert one(offers, "nvidia-b200", "europe", "spot").price == Decimal("34.87")
    h100 = one(offers, "hgx-h100", "north-america", "on_demand")
    assert (h100.price, h100.gpu_id, price_per_unit(h100)) == (Decimal("49.24"), "h100-sxm5-80gb", Decimal("6.155"))
    assert one(offers, "hgx-h200", "europe", "spot").gpu_id == "h200-sxm-141gb"


def test_nvl72_footnote_count_and_single_gpu_gh200():
    offers = CoreWeave().parse([document(PAGE)])
    gb200 = one(offers, "nvidia-gb200-nvl72", "europe", "on_demand")
    assert gb200.gpu_count == 4  # "4^1": 2 superchips x 2 GPUs
    assert price_per_unit(gb200) == Decimal("10.5")
    assert gb200.interconnect == "nvlink" and gb200.raw_gpu_name == "GB200 NVL72 186GB"
    gh200 = one(offers, "nvidia-gh200", "north-america", "on_demand")
    assert (gh200.gpu_count, gh200.price, gh200.gpu_id) == (1, Decimal("6.50"), "gh200-96gb")


def test_not_offered_tiers_contact_sales_and_inference_prices_give_no_offer():
    offers = CoreWeave().parse([document(PAGE)])
    assert not [o for o in offers if o.offer_id.startswith("nvidia-gb300-nvl72")]  # "Contact sales"
    assert {o.pricing_type for o in offers if o.offer_id.startswith("nvidia-b300")} == {"spot"}  # on-demand empty
    assert not [o for o in offers if o.offer_id.startswith("nvidia-gh200") and o.pricing_type == "spot"]  # N/A
    assert not [o for o in offers if o.region == "europe" and o.offer_id.startswith("nvidia-l40")
                and o.pricing_type == "spot"]
    # the inference platform's per-GPU figures are another product
    prices = {o.price for o in offers}
    assert Decimal("8.60") not in prices and Decimal("6.16") not in prices and Decimal("10.50") not in prices


def test_cpu_section_below_is_never_read():
    text = page_text()
    assert "AMD Genoa" in text and text.count("REGION: NORTH AMERICA") == 2
    offers = parse_text(text)
    assert not [o for o in offers if "Genoa" in o.title] and Decimal("6.42") not in {o.price for o in offers}


def test_form_factor_never_guessed():
    offers = CoreWeave().parse([document(PAGE)])
    a100 = one(offers, "nvidia-a100", "north-america", "on_demand")
    assert (a100.raw_gpu_name, a100.gpu_id, a100.interconnect) == ("A100 80GB", "a100-80gb-unstated", None)


@pytest.mark.parametrize("change", [
    "no_gpu_section", "no_region", "renamed_on_demand_label", "new_tier_span", "euro_price", "no_count", "no_rows",
])
def test_changed_page_raises_parse_error(change):
    text = page_text()
    if change == "no_gpu_section":
        text = text.replace("On-demand GPU instances", "GPU instances")
    elif change == "no_region":
        text = text.replace("REGION: EUROPE", "EUROPE")
    elif change == "renamed_on_demand_label":
        text = text.replace("On-Demand Price: <span", "On Demand: <span")
    elif change == "new_tier_span":
        text = text.replace('<span class="spot-price">', '<span class="reserved-price">', 1)
    elif change == "euro_price":
        text = text.replace('<span class="item-value">$68.80</span>', '<span class="item-value">€68.80</span>', 1)
    elif change == "no_count":
        text = text.replace("<div>GPU Count</div>", "<div>GPUs</div>")
    elif change == "no_rows":
        text = text.replace('role="listitem"', 'role="row"')
    with pytest.raises(ParseError):
        parse_text(text)


def test_a_page_without_the_price_table_is_a_parse_error_not_zero_offers():
    with pytest.raises(ParseError):
        parse_text("<html><body><h1>Pricing</h1><p>Contact sales</p></body></html>")
