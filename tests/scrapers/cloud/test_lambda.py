"""Lambda Cloud's instance-types parser on the documented OpenAPI example."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import fixture_json, json_document

from scrapers.cloud.lambda_cloud import LambdaCloud
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit


def test_lambda_documented_example_cents_per_instance_hour():
    schema = fixture_json("lambda/lambda_openapi_instance_types_schema.json")
    example = schema["components.schemas"]["InstanceTypes"]["example"]
    cpu_only = {"instance_type": {"name": "cpu_4x_general", "description": "CPU", "gpu_description": "",
                                  "price_cents_per_hour": 10, "specs": {"vcpus": 4, "memory_gib": 16,
                                                                        "storage_gib": 0, "gpus": 0}},
                "regions_with_capacity_available": []}
    offers = LambdaCloud().parse([json_document({"data": {**example, "cpu_4x_general": cpu_only}})])
    assert len(offers) == 1
    offer = offers[0]
    assert (offer.price, offer.price_unit, offer.gpu_count) == (Decimal("15.92"), "instance_hour", 8)
    assert offer.region == "us-west-1" and offer.in_stock is True
    assert price_per_unit(offer) == Decimal("1.99")


def test_lambda_type_without_capacity_is_kept_out_of_stock_and_names_resolve():
    payload = {"data": {"gpu_8x_h100_sxm5": {"instance_type": {
        "name": "gpu_8x_h100_sxm5", "description": "8x H100 (80 GB SXM5)", "gpu_description": "H100 (80 GB SXM5)",
        "price_cents_per_hour": 2392, "specs": {"vcpus": 208, "memory_gib": 1800, "storage_gib": 24780, "gpus": 8}},
        "regions_with_capacity_available": []}}}
    [offer] = LambdaCloud().parse([json_document(payload)])
    assert offer.gpu_id == "h100-sxm5-80gb" and offer.in_stock is False and offer.region is None
    assert price_per_unit(offer) == Decimal("2.99")
    with pytest.raises(ParseError, match="data"):
        LambdaCloud().parse([json_document({"error": {"code": "global/invalid-api-key"}})])
