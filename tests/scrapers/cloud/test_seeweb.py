"""Seeweb's plans parser on gpuhunt's fixture (tests/fixtures/seeweb)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import by_id, fixture_json, json_document

from scrapers.cloud.seeweb import Seeweb
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit


def test_seeweb_prices_are_eur_and_get_no_usd_figure():
    payload = fixture_json("seeweb/gpuhunt_seeweb_plans_fixture.json")["fixture:plans_payload"]
    offers = by_id(Seeweb().parse([json_document(payload)]))
    assert ("eCS4|it-fr2", "on_demand") not in offers  # the CPU plan
    l40s = offers[("ECS1GPU7|it-mi2", "on_demand")]
    assert (l40s.currency, l40s.price, l40s.gpu_id) == ("EUR", Decimal("0.85"), "l40s-48gb")
    assert price_per_unit(l40s) == l40s.price and l40s.currency == "EUR"  # per GPU-hour in EUR: USD in the models
    with pytest.raises(ParseError, match="status"):
        Seeweb().parse([json_document({"status": "error", "plans": []})])
