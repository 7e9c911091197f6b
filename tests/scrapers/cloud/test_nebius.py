"""Nebius: a real excerpt of nebius.com/prices saved by getcomputable/gpu-index on 2026-08-22 (the escaped-JSON GPU
table and the CPU, storage and other-services tables beside it). Origin: PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.nebius import Nebius, unescape_string
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from warehouse.ingest.normalize import price_per_unit

# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "nebius" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def parse_text(text: str):
    return Nebius().parse([raw_document(text.encode("utf-8"))])


def by_tier(offers):
    return {(o.offer_id, o.pricing_type): o for o in offers}


def test_every_priced_gpu_row_gives_on_demand_and_preemptible_per_gpu_hour():
    offers = Nebius().parse([document(PAGE)])
    assert len(offers) == 14  # 7 priced rows x 2 tiers
    assert {(o.currency, o.price_unit, o.gpu_count) for o in offers} == {("USD", "gpu_hour", 1)}
    tiers = by_tier(offers)
    b300 = tiers[("NVIDIA HGX B300", "on_demand")]
    assert (b300.price, price_per_unit(b300)) == (Decimal("7.85"), Decimal("7.85"))
    assert tiers[("NVIDIA HGX B300", "spot")].price == Decimal("4.30")  # "Preemptible, GPU-hour"
    assert tiers[("NVIDIA HGX H100", "on_demand")].price == Decimal("3.85")
    assert tiers[("NVIDIA HGX H100", "spot")].price == Decimal("2.15")
    h200 = tiers[("NVIDIA HGX H200", "on_demand")]
    assert (h200.raw_gpu_name, h200.gpu_id, h200.interconnect) == ("H200 SXM", "h200-sxm-141gb", "sxm")
    assert tiers[("NVIDIA HGX B200", "on_demand")].gpu_id == "b200-180gb"
    assert tiers[("NVIDIA RTX PRO 6000", "on_demand")].price == Decimal("1.80")
    assert {o.region for o in offers} == {None}


def test_the_h100_sxm_is_the_datasheets_80_gb_part():
    h100 = by_tier(Nebius().parse([document(PAGE)]))[("NVIDIA HGX H100", "on_demand")]
    # 80 GB is not on the page: "H100 SXM" is NVIDIA's datasheet product name, the 80 GB part (as Nebius's catalog's
    # 81,920 MiB per GPU confirms); the catalogue alone would not pick among its 64/80/94/96 GB SXM5 boards
    assert (h100.raw_gpu_name, h100.gpu_id) == ("H100 SXM", "h100-sxm5-80gb")
    assert resolve_gpu_id("H100 SXM 94GB") == "h100-sxm5-94gb" and resolve_gpu_id("A100 SXM") is None


def test_from_prices_are_the_smallest_size_and_say_so():
    tiers = by_tier(Nebius().parse([document(PAGE)]))
    intel = tiers[("NVIDIA L40S with Intel CPU", "on_demand")]
    assert (intel.price, intel.gpu_id) == (Decimal("1.82"), "l40s-48gb")
    assert "from" in intel.title
    assert tiers[("NVIDIA L40S with AMD CPU", "spot")].price == Decimal("0.74")
    assert "from" not in tiers[("NVIDIA HGX B200", "on_demand")].title


def test_contact_us_rows_and_other_tables_give_no_offer():
    offers = Nebius().parse([document(PAGE)])
    assert not [o for o in offers if "NVL72" in o.offer_id]
    assert not [o for o in offers if "Genoa" in o.offer_id or "Ice Lake" in o.offer_id]  # CPU-only "Price per hour"
    assert Decimal("0.0800") not in {o.price for o in offers}  # storage


def test_the_same_tables_in_plain_json_parse_alike():
    plain = page_text().replace('\\"', '"')
    assert [(o.offer_id, o.pricing_type, o.price) for o in parse_text(plain)] == [
        (o.offer_id, o.pricing_type, o.price) for o in Nebius().parse([document(PAGE)])]


def test_unescape_stops_at_the_end_of_the_enclosing_string():
    assert unescape_string('{\\"a\\":\\"x\\\\y \\u00e9\\"}", next', 0) == '{"a":"x\\y é"}'


@pytest.mark.parametrize("change", [
    "unknown_tier_column", "no_gpu_table", "price_without_dollar", "bad_thousands", "extra_cell", "broken_json",
])
def test_changed_page_raises_parse_error(change):
    text = page_text()
    if change == "unknown_tier_column":
        text = text.replace("Preemptible, GPU-hour", "Reserved 12 months, GPU-hour")
    elif change == "no_gpu_table":
        text = text.replace(", GPU-hour", " per hour")
    elif change == "price_without_dollar":
        text = text.replace("$7.85", "7.85")
    elif change == "bad_thousands":
        text = text.replace("$7.85", "$1,23.45")
    elif change == "extra_cell":
        text = text.replace('\\"$3.85\\"]', '\\"$3.85\\",\\"$9.99\\"]')
    elif change == "broken_json":
        text = text.replace('\\"customColumnWidth\\":[4,2,2,2]', '\\"customColumnWidth\\":[4,2,')
    with pytest.raises(ParseError):
        parse_text(text)


def test_a_page_without_the_price_tables_is_a_parse_error_not_zero_offers():
    with pytest.raises(ParseError):
        parse_text("<html><body><h1>Prices</h1><p>Contact us</p></body></html>")
