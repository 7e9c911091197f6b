"""Builds recordings/index.json (and the reconstructed Azure pages) from the bundled SkyPilot catalogs.

Run from the project root: `uv run python recordings/build_bundle.py`. Reads only files in this folder.

- skypilot/<cloud>_<date>.csv are REAL captures: GPU rows (plus GCP's GPU-family VM rows) of `<cloud>/vms.csv`
  in the public repo anycloud-sh/catalog at the commit listed in skypilot/MANIFEST.csv, verbatim.
- skypilot/v8/<cloud>/vms.csv are REAL captures of skypilot-org/skypilot-catalog (commit per file in
  skypilot/v8/MANIFEST.csv, dates unknown: served on every day as stale captures), with the catalog README the
  source reads to find the newest schema version (skypilot/v8/README.md).
- azure/reconstructed_<date>/page-NNN.json are NOT captures: no real Azure Retail Prices API response with GPU
  items exists in our samples. They are built in the API's documented envelope and item format (see
  scrapers/azure.py) from the real on-demand and spot prices of the SkyPilot Azure catalog of that date
  (SkyPilot itself reads them from this API). Every row loaded from them is flagged is_synthetic.
"""

from __future__ import annotations

import csv
import json
import uuid
from pathlib import Path

from dev.recordings.build_providers import (
    api_price_recordings,
    ecb_recordings,
    fixture_recordings,
    skypilot_reconstructions,
)
from dev.recordings.build_retail import retail_recordings
from dev.recordings.common import RECORDINGS as HERE
from dev.recordings.common import REPLAY_START, recording, route_key
from scrapers.cloud.azure import FIRST_PAGE_URL
from scrapers.cloud.skypilot import (
    CATALOG_README_URL,
    CATALOG_URL,
    KNOWN_SCHEMA_VERSION,
)

REPO = "anycloud-sh/catalog"
PAGE_SIZE = 100


def _azure_items(catalog: Path) -> list[dict]:
    rows = list(csv.reader(catalog.open(newline="")))
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


def skypilot_v8_recordings() -> list[dict]:
    """The bundled v8 catalogs, served where the live source looks for them (after reading the catalog README):
    no pinned URL, so the replay runs the schema discovery."""
    recordings = []
    for entry in csv.DictReader((HERE / "skypilot" / "v8" / "MANIFEST.csv").open(newline="")):
        if entry["replayed"] != "yes":
            continue
        cloud = entry["cloud"]
        recordings.append(recording(
            f"skypilot-{cloud}", "stale_capture",
            f"{entry['source_repo']}@{entry['commit']} {entry['source_path']}, verbatim; commit date unknown, served "
            "on every day; found through the catalog README (schema discovery)",
            {CATALOG_README_URL: "skypilot/v8/skypilot-catalog_README.md",
             CATALOG_URL.format(version=KNOWN_SCHEMA_VERSION, cloud=cloud): f"skypilot/v8/{cloud}/vms.csv"},
            REPLAY_START,
        ))
    return recordings


def main() -> None:

    recordings = []
    for entry in csv.DictReader((HERE / "skypilot" / "MANIFEST.csv").open(newline="")):
        cloud = entry["file"].split("_", 1)[0]
        recorded_at = entry["commit_date"].replace(" ", "T") + "+00:00"
        url = f"https://raw.githubusercontent.com/{REPO}/{entry['commit']}/{entry['source_path']}"
        recordings.append(
            {
                "source": f"skypilot-{cloud}",
                "recorded_at": recorded_at,
                "data_origin": "captured",
                "note": f"{REPO}@{entry['commit']} {entry['source_path']}: header + GPU rows, verbatim",
                "overrides": {"catalog_url": url},
                "routes": {route_key(url): f"skypilot/{entry['file']}"},
            }
        )
        if cloud == "azure":
            date = entry["file"].removesuffix(".csv").split("_", 1)[1]
            folder = HERE / "azure" / f"reconstructed_{date}"
            folder.mkdir(parents=True, exist_ok=True)
            items = _azure_items(HERE / "skypilot" / entry["file"])
            routes = {}
            for page_number, start in enumerate(range(0, len(items), PAGE_SIZE), start=1):
                page_url = FIRST_PAGE_URL if start == 0 else f"{FIRST_PAGE_URL}&$skip={start}"
                following = start + PAGE_SIZE
                page = {
                    "BillingCurrency": "USD",
                    "CustomerEntityId": "Default",
                    "CustomerEntityType": "Retail",
                    "Items": items[start:following],
                    "NextPageLink": f"{FIRST_PAGE_URL}&$skip={following}" if following < len(items) else None,
                    "Count": len(items[start:following]),
                }
                name = f"page-{page_number:03d}.json"
                (folder / name).write_text(json.dumps(page))
                routes[route_key(page_url)] = f"azure/{folder.name}/{name}"
            recordings.append(
                {
                    "source": "azure",
                    "recorded_at": recorded_at,
                    "data_origin": "reconstructed",
                    "note": f"NOT a capture: Azure Retail Prices API pages rebuilt from {entry['file']} (real prices)",
                    "overrides": {},
                    "routes": routes,
                }
            )

    recordings.extend(skypilot_reconstructions(list(csv.DictReader((HERE / "skypilot" / "MANIFEST.csv").open(newline="")))))
    recordings.extend(skypilot_v8_recordings())
    recordings.extend(fixture_recordings())
    recordings.extend(ecb_recordings())
    recordings.extend(api_price_recordings())

    recordings.extend(retail_recordings(recording))
    recordings.sort(key=lambda r: (r["recorded_at"], r["source"]))
    (HERE / "index.json").write_text(json.dumps({"recordings": recordings}, indent=1))
    print(f"{len(recordings)} recordings")


if __name__ == "__main__":
    main()
