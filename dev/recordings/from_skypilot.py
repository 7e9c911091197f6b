"""Recordings made from the bundled SkyPilot catalogs: the catalogs themselves (the `skypilot-*` sources) and the API
answers rebuilt from their real prices for the direct sources that have no real capture (Azure, GCP, Lambda). The
sources name these functions in their `offline` declaration; build_bundle.py calls each with the source id.

- skypilot/<cloud>_<date>.csv are REAL captures: GPU rows (plus GCP's GPU-family VM rows) of `<cloud>/vms.csv` in
  the public repo anycloud-sh/catalog at the commit listed in skypilot/MANIFEST.csv, verbatim.
- skypilot/v8/<cloud>/vms.csv are REAL captures of skypilot-org/skypilot-catalog (commit per file in
  skypilot/v8/MANIFEST.csv, dates unknown: served on every day as stale captures), with the catalog README the
  source reads to find the newest schema version (skypilot/v8/README.md).
- azure/reconstructed_<date>/page-NNN.json are NOT captures: no real Azure Retail Prices API response with GPU
  items exists in our samples. They are built in the API's documented envelope and item format (see
  scrapers/cloud/azure.py) from the real on-demand and spot prices of the SkyPilot Azure catalog of that date
  (SkyPilot itself reads them from this API). Every row loaded from them is flagged is_synthetic.
- lambda/ and gcp/ reconstructed answers: the same, from the Lambda and GCP catalogs (GCP's first page is a real SKU
  page, tests/fixtures/gcp).
"""

from __future__ import annotations

import ast
import csv
import json
import uuid
from collections import defaultdict
from decimal import Decimal

from dev.recordings.common import RECORDINGS, REPLAY_START, fixture_json, recording, write_json, write_text
from scrapers.cloud import gcp
from scrapers.cloud.azure import FIRST_PAGE_URL
from scrapers.cloud.lambda_cloud import API_URL as LAMBDA_URL
from scrapers.cloud.skypilot import CATALOG_README_URL, CATALOG_URL, KNOWN_SCHEMA_VERSION

REPO = "anycloud-sh/catalog"
AZURE_PAGE_SIZE = 100
GCP_PAGE_SIZE = 200


def _dated_catalogs(cloud: str) -> list[tuple[dict, str, str]]:
    """(manifest row, catalog date, recorded_at) of every dated catalog of `cloud` (skypilot/MANIFEST.csv)."""
    found = []
    for entry in csv.DictReader((RECORDINGS / "skypilot" / "MANIFEST.csv").open(newline="")):
        entry_cloud, date = entry["file"].removesuffix(".csv").split("_", 1)
        if entry_cloud == cloud:
            found.append((entry, date, entry["commit_date"].replace(" ", "T") + "+00:00"))
    return found


def _rows(entry: dict) -> list[dict]:
    return list(csv.DictReader((RECORDINGS / "skypilot" / entry["file"]).open(newline="")))


def catalog_recordings(source_id: str) -> list[dict]:
    """`skypilot-<cloud>`: its dated catalogs, pinned at their commit URLs (captured), and its v8 catalog served where
    the live source looks for it after reading the catalog README (no pinned URL: the replay runs the schema
    discovery; undated, a stale capture from the first day)."""
    cloud = source_id.removeprefix("skypilot-")
    recordings = []
    for entry, _date, recorded_at in _dated_catalogs(cloud):
        url = f"https://raw.githubusercontent.com/{REPO}/{entry['commit']}/{entry['source_path']}"
        recordings.append(recording(source_id, "captured",
                                    f"{REPO}@{entry['commit']} {entry['source_path']}: header + GPU rows, verbatim",
                                    {url: f"skypilot/{entry['file']}"}, recorded_at, {"catalog_url": url}))
    for entry in csv.DictReader((RECORDINGS / "skypilot" / "v8" / "MANIFEST.csv").open(newline="")):
        if entry["cloud"] != cloud or entry["replayed"] != "yes":
            continue
        recordings.append(recording(
            source_id, "stale_capture",
            f"{entry['source_repo']}@{entry['commit']} {entry['source_path']}, verbatim; commit date unknown, served "
            "on every day; found through the catalog README (schema discovery)",
            {CATALOG_README_URL: "skypilot/v8/skypilot-catalog_README.md",
             CATALOG_URL.format(version=KNOWN_SCHEMA_VERSION, cloud=cloud): f"skypilot/v8/{cloud}/vms.csv"},
            REPLAY_START,
        ))
    return recordings


def _azure_items(rows: list[list[str]]) -> list[dict]:
    header, items = rows[0], []
    for fields in rows[1:]:
        row = dict(zip(header[:-1], fields[: len(header) - 1], strict=True))
        sku, region = row["InstanceType"], row["Region"]
        short = sku.removeprefix("Standard_").replace("_", " ")
        for suffix, price in (("", row["Price"]), (" Spot", row["SpotPrice"])):
            if not price:
                continue
            meter = f"{short}{suffix}"
            items.append(
                {
                    "currencyCode": "USD",
                    "tierMinimumUnits": 0.0,
                    "retailPrice": float(price),
                    "unitPrice": float(price),
                    "armRegionName": region,
                    "location": region,
                    "effectiveStartDate": "2026-04-01T00:00:00Z",
                    "meterId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sku}/{region}/{meter}")),
                    "meterName": meter,
                    "productId": "RECONSTRUCTED",
                    "skuId": f"RECONSTRUCTED/{sku}",
                    "productName": "Virtual Machines N Series (reconstructed from the SkyPilot Azure catalog)",
                    "skuName": meter,
                    "serviceName": "Virtual Machines",
                    "serviceId": "DZH313Z7MMC8",
                    "serviceFamily": "Compute",
                    "unitOfMeasure": "1 Hour",
                    "type": "Consumption",
                    "isPrimaryMeterRegion": True,
                    "armSkuName": sku,
                }
            )
    return items


def azure_price_pages(source_id: str) -> list[dict]:
    """`azure`: Retail Prices API pages (100 items each, NextPageLink) rebuilt from each dated Azure catalog."""
    recordings = []
    for entry, date, recorded_at in _dated_catalogs("azure"):
        # Azure's catalog rows have an unquoted field too many (Generation): read as lists, cut to the header
        items = _azure_items(list(csv.reader((RECORDINGS / "skypilot" / entry["file"]).open(newline=""))))
        routes = {}
        for page_number, start in enumerate(range(0, len(items), AZURE_PAGE_SIZE), start=1):
            page_url = FIRST_PAGE_URL if start == 0 else f"{FIRST_PAGE_URL}&$skip={start}"
            following = start + AZURE_PAGE_SIZE
            page = {
                "BillingCurrency": "USD",
                "CustomerEntityId": "Default",
                "CustomerEntityType": "Retail",
                "Items": items[start:following],
                "NextPageLink": f"{FIRST_PAGE_URL}&$skip={following}" if following < len(items) else None,
                "Count": len(items[start:following]),
            }
            routes[page_url] = write_text(f"azure/reconstructed_{date}/page-{page_number:03d}.json", json.dumps(page))
        recordings.append(recording(
            source_id, "reconstructed",
            f"NOT a capture: Azure Retail Prices API pages rebuilt from {entry['file']} (real prices)", routes,
            recorded_at))
    return recordings


def lambda_instance_types(source_id: str) -> list[dict]:
    """`lambda`: one /instance-types answer per dated Lambda catalog."""
    recordings = []
    for entry, date, recorded_at in _dated_catalogs("lambda"):
        data = {}
        for row in _rows(entry):
            name = row["InstanceType"]
            if name in data:
                continue  # SkyPilot repeats each type for a hard-coded region list at the same price
            info = ast.literal_eval(row["GpuInfo"])
            memory_gib = round(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] / 1024)
            count = int(float(row["AcceleratorCount"]))
            cents = Decimal(row["Price"]) * 100
            assert cents == cents.to_integral_value(), f"{name}: {row['Price']} is not whole cents"
            data[name] = {
                "instance_type": {
                    "name": name, "description": f"{count}x {row['AcceleratorName']} ({memory_gib} GB)",
                    "gpu_description": f"{row['AcceleratorName']} ({memory_gib} GB)",
                    "price_cents_per_hour": int(cents),
                    "specs": {"vcpus": int(float(row["vCPUs"])), "memory_gib": int(float(row["MemoryGiB"])),
                              "storage_gib": 0, "gpus": count},
                },
                "regions_with_capacity_available": [],  # the catalog says nothing about capacity
            }
        relative = write_json(f"lambda/reconstructed_{date}_instance_types.json", {"data": data})
        recordings.append(recording(
            source_id, "reconstructed", f"NOT a capture: /instance-types rebuilt from {entry['file']} (real prices; "
            "storage_gib unknown = 0; capacity unknown = [])", {LAMBDA_URL: relative}, recorded_at))
    return recordings


# SkyPilot GPU names -> the GPU part of Google's SKU descriptions ("Nvidia <this> GPU running in ...").
_GCP_SKU_GPU = {"A100": "Tesla A100", "A100-80GB": "Tesla A100 80GB", "H100": "H100 80GB",
                "H100-MEGA": "H100 80GB Mega", "H200": "H200 141GB", "B200": "B200", "L4": "L4", "T4": "Tesla T4",
                "P100": "Tesla P100", "P4": "Tesla P4", "V100": "Tesla V100"}


def gcp_sku_pages(source_id: str) -> list[dict]:
    """`gcp`: per dated GCP catalog, the real opencost SKU page as page 1, then GPU SKU pages rebuilt from the
    catalog's per-GPU prices (its GPU-only rows)."""
    return [_gcp_recording(source_id, _rows(entry), date, recorded_at, entry["file"])
            for entry, date, recorded_at in _dated_catalogs("gcp")]


def _gcp_recording(source_id, rows, date, recorded_at, catalog_file) -> dict:
    per_gpu: dict[tuple, Decimal] = {}
    for row in sorted(rows, key=lambda r: (r["AvailabilityZone"], float(r["AcceleratorCount"] or 0))):
        if row["InstanceType"] or not row["AcceleratorName"]:
            continue  # VM rows: their parts are not in the catalog
        count = Decimal(row["AcceleratorCount"])
        for usage, column in (("OnDemand", "Price"), ("Preemptible", "SpotPrice")):
            if row[column] and Decimal(row[column]) > 0:
                per_gpu.setdefault((row["AcceleratorName"], usage, row["Region"]), Decimal(row[column]) / count)
    by_price: dict[tuple, list[str]] = defaultdict(list)
    for (name, usage, region), price in sorted(per_gpu.items()):
        by_price[(name, usage, price.quantize(Decimal("0.000001")))].append(region)
    skus = []
    for number, ((name, usage, price), regions) in enumerate(sorted(by_price.items())):
        prefix = "Spot Preemptible " if usage == "Preemptible" else ""
        units, nanos = int(price), int((price - int(price)) * 1_000_000_000)
        skus.append({
            "name": f"services/6F81-5844-456A/skus/RECONSTRUCTED-{number:04d}", "skuId": f"RECONSTRUCTED-{number:04d}",
            "description": f"{prefix}Nvidia {_GCP_SKU_GPU[name]} GPU running in {', '.join(regions)}",
            "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Compute", "resourceGroup": "GPU",
                         "usageType": usage},
            "serviceRegions": regions,
            "pricingInfo": [{"summary": "", "pricingExpression": {
                "usageUnit": "h", "displayQuantity": 1, "usageUnitDescription": "hour", "baseUnit": "s",
                "tieredRates": [{"startUsageAmount": 0, "unitPrice": {
                    "currencyCode": "USD", "units": str(units), "nanos": nanos}}]},
                "currencyConversionRate": 1, "effectiveTime": recorded_at}],
            "serviceProviderName": "Google",
        })
    real_page = fixture_json("gcp/opencost_cloudbilling_skus_page.json")
    routes = {gcp.SERVICE_URL: write_json(f"gcp/stale_capture_{date}_page-001.json", real_page)}
    token = real_page["nextPageToken"]
    for page_number, start in enumerate(range(0, len(skus), GCP_PAGE_SIZE), start=2):
        following = start + GCP_PAGE_SIZE
        next_token = f"reconstructed-{date}-{page_number + 1}" if following < len(skus) else ""
        page = {"skus": skus[start:following], "nextPageToken": next_token}
        routes[f"{gcp.SERVICE_URL}&pageToken={token}"] = write_json(
            f"gcp/reconstructed_{date}_page-{page_number:03d}.json", page)
        token = next_token
    return recording(source_id, "reconstructed", f"page 1: the real opencost SKU page (2023); pages 2+: NOT captures, "
                     f"GPU SKUs rebuilt from {catalog_file} (real per-GPU prices)", routes, recorded_at)
