"""Linode (Akamai Cloud) instance types: a real recording from linodego's cassettes. Origin: PROVENANCE.md."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.linode import Linode, gpu_raw_name, page_url
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

CAPTURE = "linode/linode_types_capture_undated_linodego_example_list_types.json"


def payload():
    return json.loads((FIXTURES / CAPTURE).read_text())


def as_document(data):
    return raw_document(json.dumps(data).encode())


def gpu_type(data, type_id):
    return next(t for t in data["data"] if t["id"] == type_id)


def test_real_capture_gpu_types_only_instance_hour_per_gpu():
    offers = Linode().parse([document(CAPTURE)])
    assert len(offers) == 4  # 28 types, 4 with GPUs; the 24 CPU plans are skipped
    assert [o.instance_type for o in offers] == [f"g1-gpu-rtx6000-{n}" for n in (1, 2, 3, 4)]
    assert {o.gpu_id for o in offers} == {"quadro-rtx-6000-24gb"}
    assert {o.raw_gpu_name for o in offers} == {"Quadro RTX 6000"}
    two = offers[1]
    assert (two.price, two.price_unit, two.currency, two.gpu_count) == (Decimal("3.0"), "instance_hour", "USD", 2)
    assert two.title == "Dedicated 64GB + RTX6000 GPU x2"
    assert two.region is None and two.in_stock is None  # the default price names no region, the list no stock
    assert {price_per_unit(o) for o in offers} == {Decimal("1.5")}
    assert len({o.offer_id for o in offers}) == 4


def test_region_prices_add_one_offer_per_region_and_a_zero_base_is_no_price():
    data = payload()
    rtx = gpu_type(data, "g1-gpu-rtx6000-2")
    rtx["price"]["hourly"] = 0  # what the public catalogue answers for the GPU class since 2026
    rtx["region_prices"] = [{"id": "id-cgk", "hourly": 3.6, "monthly": 2400.0},
                            {"id": "br-gru", "hourly": 0, "monthly": 0}]
    offers = [o for o in Linode().parse([as_document(data)]) if o.instance_type == "g1-gpu-rtx6000-2"]
    assert [(o.region, o.price, o.offer_id) for o in offers] == [("id-cgk", Decimal("3.6"), "g1-gpu-rtx6000-2|id-cgk")]
    assert price_per_unit(offers[0]) == Decimal("1.8")


def test_gpu_families_and_unknown_family_keeps_label():
    assert gpu_raw_name("g2-gpu-rtx4000a1-s", "RTX4000 Ada x1 Small") == "RTX 4000 Ada"
    data = payload()
    rtx = gpu_type(data, "g1-gpu-rtx6000-1")
    rtx.update(id="g9-gpu-x1", label="Mystery GPU x1")
    offer = next(o for o in Linode().parse([as_document(data)]) if o.instance_type == "g9-gpu-x1")
    assert offer.raw_gpu_name == "Mystery GPU x1" and offer.gpu_id is None
    ada = gpu_type(data, "g1-gpu-rtx6000-2")
    ada.update(id="g2-gpu-rtx4000a2-s", label="RTX4000 Ada x2 Small")
    offer = next(o for o in Linode().parse([as_document(data)]) if o.instance_type == "g2-gpu-rtx4000a2-s")
    assert offer.gpu_id == "rtx-4000-ada-20gb" and offer.gpu_count == 2


def test_pages_follow_the_page_query():
    assert page_url(1) == "https://api.linode.com/v4/linode/types?page_size=500"
    assert page_url(2) == "https://api.linode.com/v4/linode/types?page_size=500&page=2"


@pytest.mark.parametrize("change", ["no_data", "no_price", "price_text", "gpus_text", "region_prices_object"])
def test_changed_payload_raises_parse_error(change):
    data = payload()
    rtx = gpu_type(data, "g1-gpu-rtx6000-1")
    if change == "no_data":
        data = {"types": data["data"]}
    elif change == "no_price":
        del rtx["price"]
    elif change == "price_text":
        rtx["price"]["hourly"] = "1,50"
    elif change == "gpus_text":
        rtx["gpus"] = "1"
    else:
        rtx["region_prices"] = {"id-cgk": 1.8}
    with pytest.raises(ParseError):
        Linode().parse([as_document(data)])


def test_needs_no_key():
    assert Linode.api_key_env is None
