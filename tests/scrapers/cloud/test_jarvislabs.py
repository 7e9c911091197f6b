"""Jarvislabs' server_meta parser on gpuhunt's fixture (tests/fixtures/jarvislabs)."""

from __future__ import annotations

from decimal import Decimal

from conftest import by_id, fixture_json, json_document

from scrapers.cloud.jarvislabs import Jarvislabs


def test_jarvislabs_per_gpu_prices_and_null_spot():
    meta = fixture_json("jarvislabs/gpuhunt_server_meta_fixture.json")["SERVER_META_RESPONSE"]
    offers = Jarvislabs().parse([json_document(meta)])
    assert sum(o.pricing_type == "on_demand" for o in offers) == 7
    assert sum(o.pricing_type == "spot" for o in offers) == 4  # three rows have spot_price null
    pro = by_id(offers)[("RTX-PRO6000|india-chennai-01|vm", "spot")]
    assert pro.price == Decimal("1.19") and pro.gpu_id == "rtx-pro-6000-96gb" and pro.price_unit == "gpu_hour"
