"""Parsers of the direct cloud sources, on the real samples (or documented-format fixtures) in tests/fixtures."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from fractions import Fraction

import pytest
from conftest import FIXTURES, document, raw_document

from scrapers.cloud.aws import AwsEc2
from scrapers.cloud.cudo import CudoCompute
from scrapers.cloud.gcp import GoogleCloud
from scrapers.cloud.jarvislabs import Jarvislabs
from scrapers.cloud.lambda_cloud import LambdaCloud
from scrapers.cloud.oci import OracleCloud
from scrapers.cloud.runpod import RunPod
from scrapers.cloud.seeweb import Seeweb
from scrapers.cloud.tensordock import TensorDock
from scrapers.cloud.vast import VastMarketplace
from scrapers.cloud.verda import Verda
from scrapers.cloud.vultr import Vultr
from scrapers.errors import ParseError
from scrapers.http import RawDocument
from warehouse.normalize import price_per_unit


def fixture_json(path: str):
    return json.loads((FIXTURES / path).read_text())


def as_document(payload, url="https://example.test/doc"):
    return raw_document(json.dumps(payload).encode(), url)


def by_id(offers):
    return {(o.offer_id, o.pricing_type): o for o in offers}


def test_lambda_documented_example_cents_per_instance_hour():
    schema = fixture_json("lambda/lambda_openapi_instance_types_schema.json")
    example = schema["components.schemas"]["InstanceTypes"]["example"]
    cpu_only = {"instance_type": {"name": "cpu_4x_general", "description": "CPU", "gpu_description": "",
                                  "price_cents_per_hour": 10, "specs": {"vcpus": 4, "memory_gib": 16,
                                                                        "storage_gib": 0, "gpus": 0}},
                "regions_with_capacity_available": []}
    offers = LambdaCloud().parse([as_document({"data": {**example, "cpu_4x_general": cpu_only}})])
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
    [offer] = LambdaCloud().parse([as_document(payload)])
    assert offer.gpu_id == "h100-sxm5-80gb" and offer.in_stock is False and offer.region is None
    assert price_per_unit(offer) == Decimal("2.99")
    with pytest.raises(ParseError, match="data"):
        LambdaCloud().parse([as_document({"error": {"code": "global/invalid-api-key"}})])


def test_runpod_documented_output_secure_community_and_spot():
    gpu = fixture_json("runpod/runpod_docs_get_gpu_full_output.json")
    offers = by_id(RunPod().parse([as_document({"data": {"gpuTypes": [gpu]}})]))
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
        RunPod().parse([as_document({"errors": [{"message": "Unauthorized"}], "data": None})])


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
        VastMarketplace().parse([as_document(payload)])


def test_cudo_sums_components_into_a_machine_price_and_keeps_the_gpu_part():
    machine_types = fixture_json("cudo/gpuhunt_cudo_machine_types_fixture.json")["fixture:machine_types"]
    offers = by_id(CudoCompute().parse([as_document({"machineTypes": machine_types})]))
    gpu_only = offers[("no-luster-1/epyc-rome-rtx-a5000|gpu", "on_demand")]
    assert (gpu_only.price, gpu_only.includes_host_vm, gpu_only.price_unit) == (Decimal("0.520000"), False, "gpu_hour")
    machine = offers[("no-luster-1/epyc-rome-rtx-a5000|1gpu-1vcpu-1gib", "on_demand")]
    # 0.52 GPU + 1 vCPU x 0.0021 + 1 GiB x 0.0034, all decimal strings, summed exactly
    assert machine.price == Decimal("0.525500") and machine.includes_host_vm is True
    assert machine.gpu_id == "rtx-a5000-24gb"
    rtx3080 = offers[("br-saopaulo-1/cascade-lake|gpu", "on_demand")]
    assert (rtx3080.gpu_id, rtx3080.raw_gpu_name) == ("rtx-3080-10gb", "RTX 3080")  # one alias for clouds and shops


def test_verda_instance_types_with_availability():
    fixture = fixture_json("verda/gpuhunt_verda_fixtures.json")
    documents = [
        as_document(fixture["fixture:raw_instance_types"], "https://api.verda.com/v1/instance-types"),
        as_document(fixture["fixture:availabilities"], "https://api.verda.com/v1/instance-availability"),
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


def test_jarvislabs_per_gpu_prices_and_null_spot():
    meta = fixture_json("jarvislabs/gpuhunt_server_meta_fixture.json")["SERVER_META_RESPONSE"]
    offers = Jarvislabs().parse([as_document(meta)])
    assert sum(o.pricing_type == "on_demand" for o in offers) == 7
    assert sum(o.pricing_type == "spot" for o in offers) == 4  # three rows have spot_price null
    pro = by_id(offers)[("RTX-PRO6000|india-chennai-01|vm", "spot")]
    assert pro.price == Decimal("1.19") and pro.gpu_id == "rtx-pro-6000-96gb" and pro.price_unit == "gpu_hour"


def test_tensordock_gpu_part_and_reference_vm():
    specs = fixture_json("tensordock/gpuhunt_tensordock_hostnode_specs_fixture.json")["fixture:specs"]
    payload = {"hostnodes": {"node-a": {"location": {"city": "Dallas", "country": "United States"}, "specs": specs}}}
    offers = by_id(TensorDock().parse([as_document(payload)]))
    gpu = offers[("node-a|l40-pcie-48gb|gpu", "on_demand")]
    assert gpu.price == Decimal("1.05") and gpu.gpu_id == "l40-48gb" and gpu.includes_host_vm is False
    vm = offers[("node-a|l40-pcie-48gb|vm-1gpu", "on_demand")]
    # 1.05 + 8 vCPU x 0.003 + 32 GB x 0.002 + 100 GB x 0.00005
    assert vm.price == Decimal("1.143") and vm.region == "Dallas, United States"


def test_seeweb_prices_are_eur_and_get_no_usd_figure():
    payload = fixture_json("seeweb/gpuhunt_seeweb_plans_fixture.json")["fixture:plans_payload"]
    offers = by_id(Seeweb().parse([as_document(payload)]))
    assert ("eCS4|it-fr2", "on_demand") not in offers  # the CPU plan
    l40s = offers[("ECS1GPU7|it-mi2", "on_demand")]
    assert (l40s.currency, l40s.price, l40s.gpu_id) == ("EUR", Decimal("0.85"), "l40s-48gb")
    assert price_per_unit(l40s) == l40s.price and l40s.currency == "EUR"  # per GPU-hour in EUR: USD in the models
    with pytest.raises(ParseError, match="status"):
        Seeweb().parse([as_document({"status": "error", "plans": []})])


def test_vultr_fractional_cloud_gpus_and_bare_metal_spot():
    fixture = fixture_json("vultr/gpuhunt_vultr_plans_fixture.json")
    offers = by_id(Vultr().parse([as_document(fixture["vm_instances"]), as_document(fixture["bare_metal"])]))
    slice_ = offers[("vcg-a100-1c-6g-4vram|ewr", "on_demand")]
    assert slice_.gpu_count == Fraction(1, 20)  # 4 GB of an 80 GB A100
    assert price_per_unit(slice_) == Decimal("2.46")
    h100 = offers[("vbm-112c-2048gb-8-h100-gpu|sea", "spot")]
    assert (h100.price, h100.gpu_count, h100.gpu_id) == (Decimal("18.4"), 8, "h100-sxm5-80gb")
    assert price_per_unit(h100) == Decimal("2.3")


def test_oci_real_price_list_gpu_shapes():
    offers = by_id(OracleCloud().parse([document("oci/opencost_oci_pricelist_products_usd.json")]))
    h100 = offers[("BM.GPU.H100.8|B98415", "on_demand")]
    assert (h100.price, h100.price_unit, h100.gpu_count, h100.gpu_id) == (Decimal("10"), "gpu_hour", 8,
                                                                          "h100-sxm5-80gb")
    assert offers[("BM.GPU4.8|B92740", "on_demand")].price == Decimal("3.05")
    assert not any(key[0].startswith("BM.GPU.L40S") for key in offers)  # its part is not in this list
    with pytest.raises(ParseError, match="GPU Per Hour"):
        OracleCloud().parse([as_document({"items": [{"partNumber": "B1", "metricName": "OCPU Per Hour"}]})])


def test_gcp_real_page_gpu_only_and_bundled_a2_machine():
    offers = by_id(GoogleCloud().parse([document("gcp/opencost_cloudbilling_skus_page.json")]))
    gpu = offers[("039F-D0DA-4055|us-central1", "on_demand")]
    assert (gpu.price, gpu.includes_host_vm, gpu.gpu_id) == (Decimal("2.933908"), False, "a100-sxm4-40gb")
    machine = offers[("a2-highgpu-1g|us-east1", "on_demand")]
    # GPU 2.933908 + 12 vCPU x 0.031611 + 85 GiB x 0.004237 (A2 core and RAM SKUs of the same page)
    assert machine.price == Decimal("3.673385") and machine.includes_host_vm is True and machine.gpu_count == 1
    assert offers[("a2-highgpu-8g|us-west1", "on_demand")].gpu_count == 8
    assert all(o.currency == "USD" for o in offers.values())  # the IDR T2D/E2 SKUs are not GPU parts


def _sku(sku_id, description, group, usage, units, nanos, regions, unit="h"):
    return {"skuId": sku_id, "description": description,
            "category": {"resourceFamily": "Compute", "resourceGroup": group, "usageType": usage},
            "serviceRegions": regions, "pricingInfo": [{"pricingExpression": {"usageUnit": unit, "tieredRates": [
                {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": units, "nanos": nanos}}]}}]}


def test_gcp_commitments_spot_by_description_and_skipped_skus():
    """A page written by us in the documented SKU format (made-up prices)."""
    synthetic_documented_skus = {"skus": [
        _sku("C1", "Commitment v1: Nvidia Tesla A100 GPU in Americas for 1 Year", "GPU", "Commit1Yr", "1", 850000000,
             ["us-central1"]),
        _sku("B2", "Spot Preemptible Nvidia B200 GPU running in Americas", "GPU", "OnDemand", "3", 0, ["us-east1"]),
        _sku("W1", "Nvidia Tesla T4 Virtual Workstation GPU running in Americas", "GPU", "OnDemand", "0", 2e8,
             ["us-central1"]),
        _sku("L4", "Nvidia L4 GPU running in Americas", "GPU", "OnDemand", "0", 560000000, ["us-central1"]),
        _sku("G2C", "G2 Instance Core running in Americas", "CPU", "OnDemand", "0", 24000000, ["us-central1"]),
        _sku("G2R", "G2 Instance Ram running in Americas", "RAM", "OnDemand", "0", 3000000, ["us-central1"],
             "GiBy.h"),
    ], "nextPageToken": ""}
    offers = by_id(GoogleCloud().parse([as_document(synthetic_documented_skus)]))
    commit = offers[("C1|us-central1", "reserved_1y")]
    assert (commit.price, commit.term_months, commit.price_unit) == (Decimal("1.85"), 12, "gpu_hour")
    assert offers[("B2|us-east1", "spot")].gpu_id == "b200-180gb"  # description wins over usageType
    assert not any(key[0].startswith("W1") for key in offers)
    g2 = offers[("g2-standard-4|us-central1", "on_demand")]
    assert g2.price == Decimal("0.56") + 4 * Decimal("0.024") + 16 * Decimal("0.003")


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
    assert AwsEc2().parse([as_document(_aws_offer_file(entries))]) == []  # c4.large is no GPU instance
    gpu_entries = copy.deepcopy(entries)
    attributes = gpu_entries["4C7N4APU9GEUZ6H6"]["product"]["attributes"]
    attributes.update(instanceType="g5.xlarge", gpu="1")
    windows = copy.deepcopy(gpu_entries["4C7N4APU9GEUZ6H6"])
    windows["product"]["attributes"]["operatingSystem"] = "Windows"
    gpu_entries["WINDOWSTWIN"] = windows
    offers = AwsEc2().parse([as_document(_aws_offer_file(gpu_entries))])
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
        AwsEc2().parse([as_document(_aws_offer_file(entries))])


def _recorded_documents():
    """Each direct source's bundled recordings (recordings/), as the documents its fetch would receive."""
    from scrapers.replay import BUNDLE_DIR, load_recordings

    for recording in load_recordings():
        if recording["source"].startswith("skypilot-"):
            continue
        documents = [
            raw_document((BUNDLE_DIR / relative).read_bytes(), f"https://{route}")
            for route, relative in recording["routes"].items()
            if not route.endswith("/oauth2/token")  # a credential response: never landed
        ]
        yield recording["source"], recording["recorded_at"], documents, recording["overrides"]


def test_every_bundled_recording_parses_passes_integrity_and_keeps_names_dbt_can_resolve():
    from scrapers.gpu_names import resolve_gpu_id
    from scrapers.registry import all_sources
    from warehouse.landing import LandedRun
    from warehouse.pipeline import RECORD_KINDS

    seen = set()
    for source_id, recorded_at, documents, overrides in _recorded_documents():
        source = all_sources({source_id: overrides})[source_id]  # configured as the offline run configures it
        records = source.parse(documents)
        assert records, source_id
        if source.kind == "offers":
            for offer in records:
                if offer.reject_reason:
                    continue  # quarantined, never stored: its raw name is the whole title, and no GPU is claimed
                # dbt resolves gpu_id again from (raw_gpu_name, provider): the parser must store the name it resolved
                assert resolve_gpu_id(offer.raw_gpu_name, offer.provider) == offer.gpu_id, (source_id, offer.raw_gpu_name)
        kind = RECORD_KINDS[source.kind]  # the pipeline's own normalize and check for this kind of record
        run = LandedRun(source_id, "r", recorded_at, "synthetic", FIXTURES, documents, ["d"] * len(documents))
        frame = kind.normalize(records, run, source.parser_version)
        result = kind.check(frame, source.expectations)
        assert frame.height == len(records) and result.passed, (source_id, recorded_at, result.result_reasons)
        seen.add(source_id)
    sources = all_sources()
    assert len({sources[s].provider for s in seen if sources[s].channel == "cloud"}) >= 12
    assert {s for s in seen if sources[s].channel == "retail"} == {
        "newegg", "bestbuy", "amazon", "ebay", "microcenter", "jd", "shops"}


def test_aws_offer_file_is_read_streaming_and_a_truncated_one_is_a_parse_error(tmp_path):
    entries = copy.deepcopy(fixture_json("aws/lyft_awspricing_ec2_offer_fixtures.json")["BASIC_EC2_OFFER_DATA"])
    entries["4C7N4APU9GEUZ6H6"]["product"]["attributes"].update(instanceType="g5.xlarge", gpu="1")
    body = json.dumps(_aws_offer_file(entries)).encode()
    spool = tmp_path / "offer.json"
    spool.write_bytes(body)
    spooled = RawDocument(url="https://pricing.us-east-1.amazonaws.com/x", status=200, body=b"",
                          fetched_at=as_document({}).fetched_at, spool=spool)
    assert AwsEc2().parse([spooled]) == AwsEc2().parse([as_document(_aws_offer_file(entries))])
    spool.write_bytes(body[: len(body) * 2 // 3])
    with pytest.raises(ParseError, match="not a complete offer file"):
        AwsEc2().parse([spooled])
    spool.write_bytes(b'{"formatVersion": "v1.0", "offers": {}}')
    with pytest.raises(ParseError, match="no products"):
        AwsEc2().parse([spooled])
