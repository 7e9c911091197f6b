"""Lambda 1-Click Clusters parser on gpu-index's real capture of lambda.ai/pricing (2026-08-22): the "1-Click Clusters
pricing" section, byte for byte. Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.lambda_clusters import PRICING_URL, LambdaClusters
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real section lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "lambda-clusters" / "stale_capture_2026-08-22_pricing_page_gpu_index.html"


@pytest.fixture(scope="module")
def offers():
    return LambdaClusters().parse([document(PAGE)])


def parse_text(text: str):
    return LambdaClusters().parse([raw_document(text.encode("utf-8"))])


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_every_priced_row_is_a_one_year_reservation_per_gpu_hour_at_its_cluster_size(offers):
    # 8 rows: 3 priced per GPU (B200, H100) at 16, 64 and 256(+) GPUs; the "1 year+" rows print an em dash
    assert {(o.instance_type, o.gpu_count): o.price for o in offers} == {
        ("NVIDIA HGX B200", 16): Decimal("9.86"), ("NVIDIA HGX B200", 64): Decimal("9.36"),
        ("NVIDIA HGX B200", 256): Decimal("8.87"),
        ("NVIDIA H100", 16): Decimal("6.16"), ("NVIDIA H100", 64): Decimal("5.85"),
        ("NVIDIA H100", 256): Decimal("5.54"),
    }
    assert {(o.pricing_type, o.term_months, o.currency, o.price_unit) for o in offers} == {
        ("reserved_1y", 12, "USD", "gpu_hour")}
    assert all(o.provider == "lambda" and o.source == "lambda-clusters" and o.channel == "cloud" for o in offers)
    assert all(o.url == PRICING_URL and o.region is None and o.in_stock is None for o in offers)
    # the price is per GPU-hour whatever the cluster's size: a 256-GPU rate is that rate per GPU
    big = next(o for o in offers if o.gpu_count == 256 and o.instance_type == "NVIDIA HGX B200")
    assert price_per_unit(big) == Decimal("8.87")
    assert "2 weeks \u2013 1 year" in big.title and "256+" in big.title


def test_hgx_b200_read_as_sxm_and_h100_form_factor_never_guessed(offers):
    b200 = {o.gpu_id for o in offers if o.instance_type == "NVIDIA HGX B200"}
    assert b200 == {"b200-180gb"}
    h100 = [o for o in offers if o.instance_type == "NVIDIA H100"]
    # neither SXM nor memory is printed: the H100 whose form factor the offer does not say (gpu_aliases.csv, lambda)
    assert {(o.raw_gpu_name, o.gpu_id, o.interconnect) for o in h100} == {("H100", "h100-unstated", None)}


def test_the_hydration_copy_of_the_tables_never_doubles_a_price(offers):
    script = ('<script>var newIslands = [{"contentHtml":"<table><tbody><tr><th>NVIDIA HGX B200</th>'
              '<td>2 weeks \u2013 1 year</td><td>16</td><td>$9.86</td></tr></tbody></table>"}];</script>')
    again = parse_text(page_text() + script)
    assert len(again) == len(offers) == len({o.offer_id for o in offers})


@pytest.mark.parametrize("old, new, message", [
    ("<h2 class=\"h2\">1-Click Clusters<br>pricing</h2>", "<h2 class=\"h2\">Clusters</h2>", "sections titled"),
    (">DURATION<", ">TERM<", "columns"),
    ("2 weeks \u2013 1 year</td><td data-label=\"GPU COUNT\">16</td>",
     "3 months</td><td data-label=\"GPU COUNT\">16</td>", "unknown duration"),
    (">$9.86<", ">\u20ac9.86<", "is not '.D.DD'"),
    (">$9.86<", ">$0.00<", "not positive"),
    (">256+<", ">many<", "GPU count"),
])
def test_a_reshaped_page_is_a_one_line_error_never_a_guess(old, new, message):
    text = page_text()
    assert old in text
    with pytest.raises(ParseError, match=message):
        parse_text(text.replace(old, new, 1))


def test_a_price_in_an_unpriced_duration_row_is_refused():
    text = page_text()
    unpriced = "1 year+</td><td data-label=\"GPU COUNT\">16+</td><td data-label=\"PRICE/GPU/HR*\">\u2014<"
    assert text.count(unpriced) == 2
    with pytest.raises(ParseError, match="unpriced"):
        parse_text(text.replace(unpriced, unpriced.replace("\u2014<", "$4.00<"), 1))
