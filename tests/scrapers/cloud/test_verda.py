"""Verda's instance-types and availability parser on gpuhunt's fixtures (tests/fixtures/verda)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import by_id, fixture_json, json_document

from scrapers.cloud.verda import Verda
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit


def test_verda_instance_types_with_availability():
    fixture = fixture_json("verda/gpuhunt_verda_fixtures.json")
    documents = [
        json_document(fixture["fixture:raw_instance_types"], "https://api.verda.com/v1/instance-types"),
        json_document(fixture["fixture:availabilities"], "https://api.verda.com/v1/instance-availability"),
    ]
    offers = by_id(Verda().parse(documents))
    assert not any("CPU" in offer_id for offer_id, _ in offers)
    a6000 = offers[("2A6000.20V|FIN-01", "on_demand")]
    assert a6000.price == Decimal("1.98") and a6000.gpu_count == 2 and a6000.in_stock is True
    assert price_per_unit(a6000) == Decimal("0.99")
    assert offers[("2A6000.20V|FIN-01", "spot")].price == Decimal("0.70")
    h100 = offers[("1H100.80S.30V|none", "on_demand")]  # available nowhere now: still a price
    assert h100.in_stock is False and h100.gpu_id == "h100-sxm5-80gb" and h100.price == Decimal("3.95")
    with pytest.raises(ParseError, match="instance-types"):
        Verda().parse(documents[1:])
