"""GCP committed-use prices from a real excerpt of the public cost calculator's price file (pricing.yml, generated
2024-11-07): its GPU machine types in four regions. Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from conftest import RECORDINGS, raw_document

from scrapers.cloud.gcp_committed_use import PRICING_URL, GcpCommittedUse
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

FILE = RECORDINGS / "gcp-committed-use" / "stale_capture_2024-11-07_pricing_yml_gpu_excerpt.yml"


def parse_text(text: str):
    return GcpCommittedUse().parse([raw_document(text.encode("utf-8"))])


@pytest.fixture(scope="module")
def offers():
    return parse_text(FILE.read_text(encoding="utf-8"))


def test_each_gpu_machine_type_and_region_gives_its_one_and_three_year_price_per_instance_hour(offers):
    by_key = {(o.instance_type, o.region, o.pricing_type): o for o in offers}
    one_year = by_key["a2-highgpu-1g", "us-central1", "reserved_1y"]
    # month_1y 1689.3711392 for a month of 730 hours (the file's `month` is `hour` x 730)
    assert one_year.price == Decimal("2.3142070400")
    assert (one_year.price_unit, one_year.currency, one_year.term_months, one_year.gpu_count) == (
        "instance_hour", "USD", 12, 1)
    assert "1689.3711392" in one_year.title and "2024" in one_year.title
    three_year = by_key["a2-highgpu-1g", "us-central1", "reserved_3y"]
    assert (three_year.price, three_year.term_months) == (Decimal("1.2857083260"), 36)
    eight = by_key["a3-highgpu-8g", "us-central1", "reserved_1y"]
    assert eight.gpu_count == 8 and eight.gpu_id == "h100-sxm5-80gb"
    # 44810.08066464 a month for the machine of 8: 61.3836721433 an hour, 7.672959 per GPU-hour
    assert (eight.price, price_per_unit(eight)) == (Decimal("61.3836721433"), Decimal("7.672959"))
    assert all(o.provider == "gcp" and o.channel == "cloud" and o.url == PRICING_URL for o in offers)
    assert len(offers) == len(by_key)  # one offer per machine type, region and term


def test_gpu_keys_resolve_by_the_gcp_aliases_and_machines_without_a_commitment_are_left_out(offers):
    gpus = Counter(o.gpu_id for o in offers)
    assert set(gpus) == {"a100-sxm4-40gb", "h100-sxm5-80gb", "l4-24gb"}
    # the A2 Ultra (A100 80GB) machines list no month_1y / month_3y in the file: no committed price, never a zero
    assert not [o for o in offers if o.instance_type.startswith("a2-ultragpu")]
    assert all(o.price > 0 for o in offers)
    mega = {o.raw_gpu_name for o in offers if o.instance_type == "a3-megagpu-8g"}
    assert mega == {"h100-80gb-mega"}


def test_a_machine_without_gpus_is_not_read_and_two_gpu_keys_are_refused():
    text = FILE.read_text(encoding="utf-8")
    cpu_only = text.replace("compute:\n  instance:\n", "compute:\n  instance:\n    n2-standard-2:\n      cost:\n"
                            "        us-central1:\n          month_1y: 45.5\n      cpu: 2\n      ram: 8\n", 1)
    assert {o.instance_type for o in parse_text(cpu_only)} == {o.instance_type for o in parse_text(text)}
    two = text.replace("      a100: 1\n", "      a100: 1\n      l4: 1\n", 1)
    with pytest.raises(ParseError, match="more than one GPU key"):
        parse_text(two)


@pytest.mark.parametrize("old, new, message", [
    ("compute:\n  instance:\n", "compute:\n  machines:\n", "no compute.instance"),
    ("          month_1y: 1689.3711392\n", "          month_1y: free\n", "not a number"),
    ("      a100: 1\n", "      a100: one\n", "not a whole number"),
    ("compute:", "compute: [", "not YAML"),
])
def test_a_reshaped_file_is_a_one_line_error(old, new, message):
    text = FILE.read_text(encoding="utf-8")
    assert old in text
    with pytest.raises(ParseError, match=message):
        parse_text(text.replace(old, new, 1))
