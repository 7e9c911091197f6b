"""AWS EC2 offer-file parser on the real offer-file structure (lyft/awspricing's fixture, tests/fixtures/aws)."""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest
from conftest import fixture_json, json_document

from scrapers.cloud.aws import AwsEc2
from scrapers.errors import ParseError
from scrapers.http import RawDocument


def _aws_offer_file(entries):
    """The real bulk offer-file layout (products by sku, terms by type then sku) from lyft's per-sku entries."""
    offer_file = {"products": {}, "terms": {"OnDemand": {}, "Reserved": {}}}
    for sku, entry in entries.items():
        offer_file["products"][sku] = entry["product"]
        for term_type, terms in entry["terms"].items():
            offer_file["terms"][term_type][sku] = terms
    return offer_file


def test_aws_offer_file_non_gpu_rows_skipped_and_reserved_term_totals():
    entries = fixture_json("aws/lyft_awspricing_ec2_offer_fixtures.json")["BASIC_EC2_OFFER_DATA"]
    assert AwsEc2().parse([json_document(_aws_offer_file(entries))]) == []  # c4.large is no GPU instance
    gpu_entries = copy.deepcopy(entries)
    attributes = gpu_entries["4C7N4APU9GEUZ6H6"]["product"]["attributes"]
    attributes.update(instanceType="g5.xlarge", gpu="1")
    windows = copy.deepcopy(gpu_entries["4C7N4APU9GEUZ6H6"])
    windows["product"]["attributes"]["operatingSystem"] = "Windows"
    gpu_entries["WINDOWSTWIN"] = windows
    offers = AwsEc2().parse([json_document(_aws_offer_file(gpu_entries))])
    assert {o.offer_id.split("|")[0] for o in offers} == {"4C7N4APU9GEUZ6H6"}  # the Windows twin is dropped
    by_type = {}
    for offer in offers:
        by_type.setdefault(offer.pricing_type, []).append(offer)
    [on_demand] = by_type["on_demand"]
    assert (on_demand.price, on_demand.gpu_id) == (Decimal("0.1000000000"), "a10g-24gb")
    one_year = {o.price for o in by_type["reserved_1y"]}
    assert Decimal("263") + Decimal("0.03") * 8760 in one_year  # upfront + hourly x 8760 h, the whole term
    assert all(o.price_unit == "instance_term" for o in by_type["reserved_1y"] + by_type["reserved_3y"])
    assert not any(o.offer_id.endswith("R5XV2EPZQZ") for o in offers)  # the convertible 3yr term is skipped
    assert Decimal("539") + Decimal("0.021") * 26280 in {o.price for o in by_type["reserved_3y"]}


def test_aws_gpu_instance_without_gpu_count_is_a_parse_error():
    entries = copy.deepcopy(fixture_json("aws/lyft_awspricing_ec2_offer_fixtures.json")["BASIC_EC2_OFFER_DATA"])
    entries["4C7N4APU9GEUZ6H6"]["product"]["attributes"]["instanceType"] = "p5.48xlarge"
    with pytest.raises(ParseError, match="gpu"):
        AwsEc2().parse([json_document(_aws_offer_file(entries))])


def test_aws_offer_file_is_read_streaming_and_a_truncated_one_is_a_parse_error(tmp_path):
    entries = copy.deepcopy(fixture_json("aws/lyft_awspricing_ec2_offer_fixtures.json")["BASIC_EC2_OFFER_DATA"])
    entries["4C7N4APU9GEUZ6H6"]["product"]["attributes"].update(instanceType="g5.xlarge", gpu="1")
    body = json.dumps(_aws_offer_file(entries)).encode()
    spool = tmp_path / "offer.json"
    spool.write_bytes(body)
    spooled = RawDocument(url="https://pricing.us-east-1.amazonaws.com/x", status=200, body=b"",
                          fetched_at=json_document({}).fetched_at, spool=spool)
    assert AwsEc2().parse([spooled]) == AwsEc2().parse([json_document(_aws_offer_file(entries))])
    spool.write_bytes(body[: len(body) * 2 // 3])
    with pytest.raises(ParseError, match="not a complete offer file"):
        AwsEc2().parse([spooled])
    spool.write_bytes(b'{"formatVersion": "v1.0", "offers": {}}')
    with pytest.raises(ParseError, match="no products"):
        AwsEc2().parse([spooled])
