"""Novita GPU products parser, on a documented example (the Novita Python SDK's test payload).
Origin: tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.novita import Novita
from scrapers.errors import MissingCredentials, ParseError
from warehouse.ingest.normalize import price_per_unit

EXAMPLE = "novita/documented_example_novita_sdk_python_gpu_products.json"


def payload():
    return json.loads((FIXTURES / EXAMPLE).read_text())


def parse(data):
    return Novita().parse([raw_document(json.dumps(data).encode())])


def test_example_prices_in_hundred_thousandths_of_a_dollar_per_gpu_hour():
    offers = Novita().parse([document(EXAMPLE)])
    assert [(o.instance_type, o.pricing_type, o.price) for o in offers] == [
        ("gpu-a100-80gb", "on_demand", Decimal("3.5")),  # 350000 / 100000; its spotPrice: no spot billing
        ("gpu-a10", "on_demand", Decimal("1.2")),
        ("gpu-a10", "spot", Decimal("0.8")),
    ]
    a100 = offers[0]
    assert (a100.price_unit, a100.gpu_count, a100.currency) == ("gpu_hour", 1, "USD")
    assert (a100.raw_gpu_name, a100.gpu_id) == ("A100 80GB", "a100-80gb-unstated")  # no form factor stated
    assert offers[1].gpu_id == "a10-24gb"
    assert price_per_unit(offers[2]) == Decimal("0.8")
    assert a100.region is None and a100.in_stock is True


def test_one_offer_per_region_and_undeployable_kept_out_of_stock():
    data = payload()
    data["data"][0].update(regions=["US-CA-06 (California)", "EU-GB-01 (United Kingdom)"], availableDeploy=False,
                           price="160000")
    offers = [o for o in parse(data) if o.instance_type == "gpu-a100-80gb"]
    assert [o.region for o in offers] == ["US-CA-06 (California)", "EU-GB-01 (United Kingdom)"]
    assert {o.in_stock for o in offers} == {False} and {o.price for o in offers} == {Decimal("1.6")}


@pytest.mark.parametrize("change", ["no_data", "no_price", "price_text", "regions_text"])
def test_changed_payload_raises_parse_error(change):
    data = payload()
    product = data["data"][0]
    if change == "no_data":
        data = {"products": data["data"]}
    elif change == "no_price":
        del product["price"]
    elif change == "price_text":
        product["price"] = "$3.50"
    else:
        product["regions"] = "US-CA-06"
    with pytest.raises(ParseError):
        parse(data)


def test_fetch_needs_its_key(monkeypatch):
    monkeypatch.delenv("NOVITA_API_KEY", raising=False)
    with pytest.raises(MissingCredentials):
        asyncio.run(Novita().fetch(None))
