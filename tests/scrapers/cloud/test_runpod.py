"""RunPod's parser on a REAL `gpuTypes` answer (2026-08-25), saved by getcomputable/gpu-index, and on RunPod's
documented get_gpu output (tests/fixtures/runpod).

The answer was trimmed upstream to 9 of its 48 GPU types (and 8 of 50 data centers); the rows are whole. It
answers a query asking for more than ours (stock probes `lp8`/`lp1s`, `dataCenters`), which the parser ignores.
"""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal

import pytest
from conftest import RECORDINGS, by_id, document, fixture_json, json_document, raw_document

from scrapers.cloud.runpod import QUERY, RunPod
from scrapers.errors import ParseError
from warehouse.ingest.normalize import price_per_unit

# the real answer lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
CAPTURE = RECORDINGS / "runpod" / "stale_capture_2026-08-25_gpu_types.json"


def capture() -> dict:
    return json.loads(CAPTURE.read_text())


@pytest.fixture(scope="module")
def offers():
    return {(o.offer_id, o.pricing_type): o for o in RunPod().parse([document(CAPTURE)])}


def test_every_priced_cloud_of_the_nine_gpu_types_is_an_offer(offers):
    assert len(capture()["data"]["gpuTypes"]) == 9
    # 6 GPU types on both clouds x (on-demand, spot) + MI300X secure only + A100 SXM 40GB and RTX 3070 community only
    assert len(offers) == 30
    assert {o.price_unit for o in offers.values()} == {"gpu_hour"}
    assert {o.currency for o in offers.values()} == {"USD"}
    assert {o.gpu_count for o in offers.values()} == {1}


def test_h100_sxm_secure_on_demand_price_per_gpu_hour(offers):
    h100 = offers[("NVIDIA H100 80GB HBM3|secure_cloud", "on_demand")]
    assert h100.price == Decimal("3.29") and price_per_unit(h100) == Decimal("3.29")
    assert h100.gpu_id == "h100-sxm5-80gb" and h100.title == "H100 SXM"
    assert h100.seller_type == "secure_cloud" and h100.channel == "cloud"
    assert offers[("NVIDIA H100 80GB HBM3|community_cloud", "on_demand")].price == Decimal("2.69")


def test_every_gpu_type_resolves_to_a_catalogue_gpu(offers):
    assert {o.raw_gpu_name: o.gpu_id for o in offers.values()} == {
        "AMD Instinct MI300X OAM": "mi300x-192gb",
        "NVIDIA A100-SXM4-40GB": "a100-sxm4-40gb",
        "NVIDIA B200": "b200-180gb",
        "NVIDIA B300 SXM6 AC": "b300-288gb",
        "NVIDIA GeForce RTX 3070": "rtx-3070-8gb",
        "NVIDIA GeForce RTX 4090": "rtx-4090-24gb",
        "NVIDIA H100 80GB HBM3": "h100-sxm5-80gb",
        "NVIDIA H200": "h200-sxm-141gb",
        "NVIDIA L40S": "l40s-48gb",
    }


def test_community_rows_and_a_price_quoted_for_a_cloud_that_is_off(offers):
    community = {o.raw_gpu_name for o in offers.values() if o.seller_type == "community_cloud"}
    assert len(community) == 8 and "AMD Instinct MI300X OAM" not in community
    # The answer quotes MI300X communityPrice 0.5 beside communityCloud false: no community offer is made.
    mi300x = next(g for g in capture()["data"]["gpuTypes"] if g["displayName"] == "MI300X")
    assert (mi300x["communityPrice"], mi300x["communityCloud"]) == (0.5, False)
    assert {k for k in offers if k[0].startswith("AMD")} == {
        ("AMD Instinct MI300X OAM|secure_cloud", "on_demand"),
        ("AMD Instinct MI300X OAM|secure_cloud", "spot"),
    }
    assert offers[("AMD Instinct MI300X OAM|secure_cloud", "on_demand")].price == Decimal("2.39")
    assert offers[("NVIDIA GeForce RTX 3070|community_cloud", "on_demand")].price == Decimal("0.13")


def test_a_zero_price_is_not_offered_never_a_free_gpu(offers):
    # The real answer writes "not offered" as 0 (beside secureCloud false), where the documented example had null.
    a100 = next(g for g in capture()["data"]["gpuTypes"] if g["id"] == "NVIDIA A100-SXM4-40GB")
    assert (a100["securePrice"], a100["secureSpotPrice"], a100["secureCloud"]) == (0, 0, False)
    assert {k for k in offers if k[0].startswith("NVIDIA A100")} == {
        ("NVIDIA A100-SXM4-40GB|community_cloud", "on_demand"),
        ("NVIDIA A100-SXM4-40GB|community_cloud", "spot"),
    }
    assert all(o.price > 0 for o in offers.values())
    # A 0 price stays "not offered" even when the cloud flag says the cloud carries the GPU.
    payload = capture()
    payload["data"]["gpuTypes"][1]["secureCloud"] = True
    changed = RunPod().parse([raw_document(json.dumps(payload).encode())])
    assert len(changed) == 30 and all(o.price > 0 for o in changed)


def test_spot_is_kept_as_stated_and_equals_on_demand_in_this_answer(offers):
    spot = {k[0]: o.price for k, o in offers.items() if k[1] == "spot"}
    on_demand = {k[0]: o.price for k, o in offers.items() if k[1] == "on_demand"}
    assert len(spot) == 15 and spot == on_demand
    assert spot["NVIDIA H100 80GB HBM3|community_cloud"] == Decimal("2.69")
    assert spot["NVIDIA B200|secure_cloud"] == Decimal("6.79")


def test_our_query_asks_only_for_fields_the_real_answer_holds():
    selection = QUERY[QUERY.index("gpuTypes {") + len("gpuTypes {"):]
    selection = re.sub(r"\(input:[^)]*\)", "", selection)
    asked = set(re.findall(r"[A-Za-z]+", selection))
    row = capture()["data"]["gpuTypes"][0]
    held = set(row) | set(row["lowestPrice"])
    assert asked - {"lowestPrice"} <= held, asked - held
    assert {"securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice"} <= asked


def test_a_row_without_its_id_is_a_parse_error():
    payload = capture()
    broken = copy.deepcopy(payload)
    del broken["data"]["gpuTypes"][0]["id"]
    with pytest.raises(ParseError, match="'id'"):
        RunPod().parse([raw_document(json.dumps(broken).encode())])
    payload["data"]["gpuTypes"][0]["securePrice"] = "n/a"
    with pytest.raises(ParseError, match="securePrice"):
        RunPod().parse([raw_document(json.dumps(payload).encode())])


def test_runpod_documented_output_secure_community_and_spot():
    gpu = fixture_json("runpod/runpod_docs_get_gpu_full_output.json")
    offers = by_id(RunPod().parse([json_document({"data": {"gpuTypes": [gpu]}})]))
    assert set(offers) == {
        ("NVIDIA A100 80GB PCIe|secure_cloud", "on_demand"),
        ("NVIDIA A100 80GB PCIe|community_cloud", "on_demand"),
        ("NVIDIA A100 80GB PCIe|community_cloud", "spot"),  # secureSpotPrice is null: no secure spot offer
    }
    assert offers[("NVIDIA A100 80GB PCIe|secure_cloud", "on_demand")].price == Decimal("1.89")
    assert offers[("NVIDIA A100 80GB PCIe|community_cloud", "spot")].price == Decimal("0.89")
    assert {o.gpu_id for o in offers.values()} == {"a100-pcie-80gb"}
    assert {o.price_unit for o in offers.values()} == {"gpu_hour"}


def test_runpod_graphql_errors_are_a_parse_error_not_an_empty_catalog():
    with pytest.raises(ParseError, match="GraphQL errors"):
        RunPod().parse([json_document({"errors": [{"message": "Unauthorized"}], "data": None})])
