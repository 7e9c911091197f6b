"""Vast's parser on REAL bundles answers of 2026-08-22, saved by getcomputable/gpu-index, and on the real two-offer
capture of 2025-07-26 (the offline recording's).

They answer gpu-index's FILTERED search (one gpu_name, rentable only, cheapest first by dph_total, a small limit),
not our whole-marketplace search: same endpoint, same offer objects, a slice of the book. Upstream replaced the
identifiers (offer/machine/host/bundle ids, IPs, geocodes) with stand-ins; prices, counts, names, places are as
served. Capture time: every offer's end_date - duration is the server's clock, 2026-08-22T18:14:42Z.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from conftest import FIXTURES, by_id, document, fixture_json, json_document, raw_document

from scrapers.cloud.vast import VastMarketplace
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

H100 = "vast/vast_bundles_capture_2026-08-22_gpu_index_h100_sxm_asc.json"
B300 = "vast/vast_bundles_capture_2026-08-22_gpu_index_b300_asc.json"


def payload(path: str) -> dict:
    return json.loads((FIXTURES / path).read_text())


@pytest.fixture(scope="module")
def offers():
    return {(o.offer_id, o.pricing_type): o for o in VastMarketplace().parse([document(H100), document(B300)])}


def test_the_answers_are_a_filtered_slice_captured_on_2026_08_22():
    for path, gpu_name, count in ((H100, "H100 SXM", 8), (B300, "B300", 2)):
        answer = payload(path)
        assert set(answer) == {"offers"} and len(answer["offers"]) == count
        assert {o["gpu_name"] for o in answer["offers"]} == {gpu_name}
        assert all(o["rentable"] is True and o["is_bid"] is False for o in answer["offers"])
        totals = [o["dph_total"] for o in answer["offers"]]
        assert totals == sorted(totals)  # order dph_total asc
        clocks = {round(o["end_date"] - o["duration"]) for o in answer["offers"]}
        assert {datetime.fromtimestamp(c, UTC).date().isoformat() for c in clocks} == {"2026-08-22"}


def test_every_offer_gives_an_on_demand_ask_and_a_min_bid(offers):
    assert len(offers) == 20  # (8 H100 SXM + 2 B300 offers) x (on-demand, spot)
    assert {o.price_unit for o in offers.values()} == {"instance_hour"}
    assert {o.currency for o in offers.values()} == {"USD"}
    assert all(o.in_stock for o in offers.values())
    assert {o.document_index for o in offers.values()} == {0, 1}


def test_cheapest_h100_sxm_ask_exact(offers):
    cheapest = offers[("700031", "on_demand")]
    assert cheapest.price == Decimal("1.3867407407407408")  # search.totalHour == dph_total, float repr kept
    assert cheapest.gpu_id == "h100-sxm5-80gb" and cheapest.raw_gpu_name == "H100 SXM 80GB"  # name + gpu_ram class
    assert cheapest.gpu_count == 1 and price_per_unit(cheapest) == Decimal("1.386741")
    assert cheapest.region == ", US" and cheapest.instance_type == "machine 900027"
    assert offers[("700031", "spot")].price == Decimal("0.39999999999999997")
    h100 = [o for o in offers.values() if o.gpu_id == "h100-sxm5-80gb"]
    assert len(h100) == 16 and {o.gpu_count for o in h100} == {1}


def test_min_bid_can_be_above_the_ask_and_is_kept_as_stated(offers):
    # A 1/8 slice of an 8-GPU machine: the ask (storage included) is below its interruptible floor.
    assert offers[("700034", "on_demand")].price == Decimal("1.9348161481481483")
    assert offers[("700034", "spot")].price == Decimal("2.4")


def test_verification_is_read_from_the_string_field(offers):
    # The 2026 answers carry `verification` ("verified"/"unverified") and no boolean `verified` at all.
    assert all("verified" not in o for o in payload(H100)["offers"] + payload(B300)["offers"])
    verified = {k[0] for k, o in offers.items() if o.seller_type == "host_verified"}
    assert verified == {"700006", "700015", "700017"}
    assert offers[("700006", "on_demand")].title == "1x H100 SXM 80GB (verified, host, host 800013)"
    assert offers[("700031", "on_demand")].seller_type == "host_unverified"
    deverified = payload(H100)
    deverified["offers"][0]["verification"] = "deverified"
    first = VastMarketplace().parse([raw_document(json.dumps(deverified).encode())])[0]
    assert first.seller_type == "host_deverified"


def test_multi_gpu_b300_offers_divide_per_gpu(offers):
    four = offers[("700017", "on_demand")]
    assert four.price == Decimal("30.00208333333334") and four.gpu_count == 4
    assert four.gpu_id == "b300-288gb" and four.raw_gpu_name == "B300"
    assert price_per_unit(four) == Decimal("7.500521")
    two = offers[("700015", "on_demand")]
    assert two.gpu_count == 2 and price_per_unit(two) == Decimal("7.501042")
    assert offers[("700017", "spot")].price == Decimal("22.5")
    assert four.instance_type == two.instance_type == "machine 900017"  # one machine, two slice sizes
    assert four.region == "Utah, US"


def test_a_changed_offer_is_a_parse_error():
    broken = payload(B300)
    del broken["offers"][1]["gpu_name"]
    with pytest.raises(ParseError, match="gpu_name"):
        VastMarketplace().parse([raw_document(json.dumps(broken).encode())])
    broken = payload(B300)
    broken["offers"][0]["verification"] = 1
    with pytest.raises(ParseError, match="verification"):
        VastMarketplace().parse([raw_document(json.dumps(broken).encode())])
    broken = payload(H100)
    broken["offers"][0]["search"]["totalHour"] = "about 1.4"
    with pytest.raises(ParseError, match="totalHour"):
        VastMarketplace().parse([raw_document(json.dumps(broken).encode())])


def test_vast_real_capture_keeps_every_offer_with_exact_prices():
    offers = VastMarketplace().parse([document("vast/vast_offers_capture_2025-07-26_2offers.json")])
    assert len(offers) == 4  # 2 offers x (on-demand ask, interruptible min bid)
    first = by_id(offers)[("21348645", "on_demand")]
    assert first.price == Decimal("0.11570370370370371")  # search.totalHour, float repr kept exactly
    assert by_id(offers)[("21348645", "spot")].price == Decimal("0.1053333")  # min_bid
    assert first.gpu_id == "rtx-5090-32gb" and first.gpu_count == 1 and first.region == "Ontario, CA"
    assert first.in_stock is False  # rentable: false in the capture
    assert first.seller_type == "host_unverified"


def test_vast_rejects_an_offer_without_a_gpu_count():
    payload = fixture_json("vast/vast_offers_capture_2025-07-26_2offers.json")
    payload["offers"][0]["num_gpus"] = None
    with pytest.raises(ParseError, match="num_gpus"):
        VastMarketplace().parse([json_document(payload)])


def test_host_reliability_is_reliability2_as_published_on_both_asks(offers):
    answer = {str(o["id"]): o["reliability2"] for o in payload(H100)["offers"]}
    for (offer_id, _), offer in offers.items():
        if offer_id in answer:
            assert offer.host_reliability == Decimal(str(answer[offer_id])).quantize(Decimal("0.000001"))
    assert offers[("700031", "spot")].host_reliability == offers[("700031", "on_demand")].host_reliability
    assert {o.host_reliability for o in offers.values()} >= {Decimal("0.908971"), Decimal("0.889270")}


@pytest.mark.parametrize("value", [1.5, -0.1, "0.99", True])
def test_a_reliability_outside_a_share_is_a_parse_error(value):
    broken = payload(B300)
    broken["offers"][0]["reliability2"] = value
    with pytest.raises(ParseError, match="reliability2"):
        VastMarketplace().parse([raw_document(json.dumps(broken).encode())])


def test_no_reliability2_is_no_figure():
    answer = payload(B300)
    del answer["offers"][0]["reliability2"]
    offers = VastMarketplace().parse([raw_document(json.dumps(answer).encode())])
    assert {o.host_reliability is None for o in offers} == {True, False}
