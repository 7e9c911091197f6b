"""Google Cloud's Billing Catalog parser on a real SKU page and a documented-format page written here."""

from __future__ import annotations

from decimal import Decimal

from conftest import by_id, document, json_document

from scrapers.cloud.gcp import GoogleCloud


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
    offers = by_id(GoogleCloud().parse([json_document(synthetic_documented_skus)]))
    commit = offers[("C1|us-central1", "reserved_1y")]
    assert (commit.price, commit.term_months, commit.price_unit) == (Decimal("1.85"), 12, "gpu_hour")
    assert offers[("B2|us-east1", "spot")].gpu_id == "b200-180gb"  # description wins over usageType
    assert not any(key[0].startswith("W1") for key in offers)
    g2 = offers[("g2-standard-4|us-central1", "on_demand")]
    assert g2.price == Decimal("0.56") + 4 * Decimal("0.024") + 16 * Decimal("0.003")
