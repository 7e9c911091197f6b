"""Served documents and recordings of the direct provider sources (issue 3), for the offline replay.

Called by build_bundle.py. Inputs: the verbatim samples in tests/fixtures/<provider>/ and the real SkyPilot
catalogs in recordings/skypilot/. What each served document is, and how honest it is, is in its recording's
`data_origin` and `note`; everything but `captured` loads with is_synthetic = true.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import zipfile
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from dev.recordings.common import FIXTURES, REPLAY_START, recording
from dev.recordings.common import RECORDINGS as HERE
from scrapers.base import PricingPage
from scrapers.cloud import (
    akash,
    aws,
    cudo,
    digitalocean,
    gcp,
    hotaisle,
    hyperstack,
    jarvislabs,
    lambda_cloud,
    latitudesh,
    linode,
    massedcompute,
    novita,
    oci,
    primeintellect,
    runpod,
    scaleway,
    seeweb,
    tensordock,
    thunder,
    vast,
    verda,
    voltagepark,
    vultr,
)
from scrapers.inference_api import deepinfra, openrouter, openrouter_endpoints, together
from scrapers.reference.ecb import DAILY_URL
from scrapers.registry import all_sources
from scrapers.replay import OFFLINE_PLACEHOLDER_KEY


def _write(relative: str, payload: object) -> str:
    path = HERE / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n")
    return relative


def _fixture(provider: str, name: str) -> dict:
    return json.loads((FIXTURES / provider / name).read_text())


def fixture_recordings() -> list[dict]:
    gpuhunt = "shape exact, values may be invented"
    verda_fixture = _fixture("verda", "gpuhunt_verda_fixtures.json")
    vultr_fixture = _fixture("vultr", "gpuhunt_vultr_plans_fixture.json")
    tensordock_specs = _fixture("tensordock", "gpuhunt_tensordock_hostnode_specs_fixture.json")["fixture:specs"]
    return [
        recording("cudo", "synthetic", f"gpuhunt fixture in the machine-types envelope ({gpuhunt})", {
            cudo.API_URL: _write("cudo/gpuhunt_fixture_machine_types.json", {
                "machineTypes": _fixture("cudo", "gpuhunt_cudo_machine_types_fixture.json")["fixture:machine_types"]
            })}),
        recording("verda", "synthetic", f"gpuhunt fixtures ({gpuhunt})", {
            f"{verda.API_BASE}/oauth2/token": _write("verda/synthetic_token_response.json", {
                "access_token": "offline-replay-not-a-token", "token_type": "Bearer", "expires_in": 3600}),
            f"{verda.API_BASE}/instance-types": _write("verda/gpuhunt_fixture_instance_types.json",
                                                       verda_fixture["fixture:raw_instance_types"]),
            f"{verda.API_BASE}/instance-availability": _write("verda/gpuhunt_fixture_instance_availability.json",
                                                              verda_fixture["fixture:availabilities"]),
        }),
        recording("jarvislabs", "synthetic", f"gpuhunt fixture ({gpuhunt})", {
            jarvislabs.API_URL: _write("jarvislabs/gpuhunt_fixture_server_meta.json", _fixture(
                "jarvislabs", "gpuhunt_server_meta_fixture.json")["SERVER_META_RESPONSE"])}),
        recording("tensordock", "synthetic", "gpuhunt hostnode specs fixture in the documented hostnodes envelope "
                   "(location made up)", {
            tensordock.API_URL: _write("tensordock/synthetic_documented_format_hostnodes.json", {
                "hostnodes": {"synthetic-node-1": {"location": {"city": "Example City", "country": "United States"},
                                                   "specs": tensordock_specs}}})}),
        recording("seeweb", "synthetic", f"gpuhunt fixture ({gpuhunt})", {
            seeweb.API_URL: _write("seeweb/gpuhunt_fixture_plans.json", _fixture(
                "seeweb", "gpuhunt_seeweb_plans_fixture.json")["fixture:plans_payload"])}),
        recording("vultr", "synthetic", f"gpuhunt fixture ({gpuhunt})", {
            vultr.VCG_URL: _write("vultr/gpuhunt_fixture_vcg_plans.json", vultr_fixture["vm_instances"]),
            vultr.METAL_URL: _write("vultr/gpuhunt_fixture_metal_plans.json", vultr_fixture["bare_metal"]),
        }),
        recording("runpod", "stale_capture", "getcomputable/gpu-index@5cf4f703 runpod/gputypes.json: a REAL "
                  "gpuTypes answer of 2026-08-25 (9 of 48 GPU types, kept whole), every day", {
                      runpod.API_URL: "runpod/stale_capture_2026-08-25_gpu_types.json"}),  # kept once, here
        recording("vast", "stale_capture", "real vast.ai offers captured 2025-07-26, replayed on every day", {
            vast.API_URL: _write("vast/stale_capture_2025-07-26_2offers.json",
                                 _fixture("vast", "vast_offers_capture_2025-07-26_2offers.json"))}),
        recording("oci", "stale_capture", "real OCI price-list response (opencost test data, date unknown)", {
            oci.API_URL: _write("oci/stale_capture_pricelist_products_usd.json",
                                _fixture("oci", "opencost_oci_pricelist_products_usd.json"))}),
        {**recording("aws", "synthetic", "made-up GPU prices in the real offer-file structure", {
            url: _write(f"aws/synthetic_documented_format_{region}_index.json", offer_file)
            for region, url, offer_file in _aws_offer_files()}),
         "overrides": {"regions": list(_AWS_REGION_FACTOR)}},  # the regions recorded (the source reads them all)
    ] + direct_provider_recordings()


def direct_provider_recordings() -> list[dict]:
    """Issue 19's direct providers: DigitalOcean and Hot Aisle from documented examples, Akash from a real capture."""
    digitalocean_example = _fixture("digitalocean", "documented_example_godo_sizes_list.json")
    hotaisle_example = _fixture("hotaisle", "documented_example_gpuhunt_available_vms.json")
    akash_capture = _fixture("akash", "akash_gpu_prices_capture_2026-09-28_h100.json")
    return [
        recording("digitalocean", "synthetic", "DigitalOcean's Go client (godo) test payload of GET /v2/sizes "
                  "(documented example, values may be invented)", {
                      digitalocean.API_URL: _write("digitalocean/documented_example_godo_sizes_list.json",
                                                   digitalocean_example)}),
        # offline, the team handle is the replay's placeholder credential (scrapers.replay)
        recording("hotaisle", "synthetic", "gpuhunt test payload of the available-VMs list (shape exact, values may "
                  "be invented)", {
                      hotaisle.available_url(OFFLINE_PLACEHOLDER_KEY): _write(
                          "hotaisle/documented_example_gpuhunt_available_vms.json", hotaisle_example)}),
        recording("akash", "stale_capture", "REAL /v1/gpu-prices?debug=true response saved 2026-09-28 (H100 only; "
                  "Rehgud/GWDC2026@d1666ff1 prices/akash-snapshot.json), replayed on every day", {
                      akash.API_URL: _write("akash/stale_capture_2026-09-28_gpu_prices_h100.json", akash_capture)}),
    ] + more_direct_provider_recordings()


PRICING_PAGE_COPY = "stale_capture_2026-08-22_pricing_page_gpu_index.html"


def pricing_page_recordings() -> list[dict]:
    """Every price-page source whose page is a real copy saved by getcomputable/gpu-index on 2026-08-22, kept once in
    recordings/<source>/ (its parser tests read it there): served at the source's own page_url."""
    return [recording(source_id, "stale_capture", f"getcomputable/gpu-index@055204ad: a REAL copy of "
                      f"{source.page_url} (2026-08-22; that project's excerpt holding the price tables), every day",
                      {source.page_url: f"{source_id}/{PRICING_PAGE_COPY}"})
            for source_id, source in sorted(all_sources().items())
            if isinstance(source, PricingPage) and (HERE / source_id / PRICING_PAGE_COPY).exists()]


def more_direct_provider_recordings() -> list[dict]:
    """Issue 19's second batch: Scaleway, Linode, Prime Intellect, Voltage Park from real answers; CoreWeave, Crusoe,
    Nebius, Civo, GMI Cloud, E2E, TensorPool and Sesterce from real copies of their pages; Latitude.sh rebuilt from
    its real page; Hyperstack, Massed Compute, Novita and Thunder Compute from
    documented examples. Origins: tests/fixtures/PROVENANCE.md."""
    scaleway_page = "servers_capture_2026-08-22_fr-par-2_page1_gpu_rows.json"
    prime_capture = _fixture("primeintellect", "availability_gpus_capture_undated_prime_cli_8_of_608.json")
    documented = "documented example, values may be invented"
    return [
        # page 1 of fr-par-2 holds under 100 types, so the source asks for no page 2 (the real page 2 is a test input)
        {**recording("scaleway", "stale_capture", "REAL fr-par-2 server types captured 2026-08-22 "
                     "(getcomputable/gpu-index@055204ad, trimmed there to the GPU and 4 CPU types), every day", {
                         scaleway.servers_url("fr-par-2", 1): _write(f"scaleway/stale_capture_{scaleway_page[16:]}",
                                                                     _fixture("scaleway", scaleway_page))}),
         "overrides": {"zones": ["fr-par-2"]}},
        recording("linode", "stale_capture", "REAL /v4beta/linode/types response (linode/linodego@40e9d24d "
                  "ExampleListTypes_all.yaml, RTX 6000 plans, about 2022), replayed on every day", {
                      linode.page_url(1): _write("linode/stale_capture_linodego_list_types.json", _fixture(
                          "linode", "linode_types_capture_undated_linodego_example_list_types.json"))}),
        recording("primeintellect", "stale_capture", "REAL /availability/gpus page (PrimeIntellect-ai/prime@4f82c668 "
                  "test data: 8 of 608 offers, all RunPod, date unknown); page 2 made up EMPTY to end the paging", {
                      primeintellect.page_url(1): _write("primeintellect/stale_capture_availability_gpus_page1.json",
                                                         prime_capture),
                      primeintellect.page_url(2): _write("primeintellect/synthetic_empty_page2.json", {
                          "items": [], "totalCount": prime_capture["totalCount"]})}),
        recording("voltagepark", "stale_capture", "REAL bare-metal locations (2026-08-22) and instant-deploy presets "
                  "(2026-08-25) answers (getcomputable/gpu-index@055204ad; its ids are stand-ins), every day", {
                      voltagepark.LOCATIONS_URL: _write(
                          "voltagepark/stale_capture_2026-08-22_bare_metal_locations.json",
                          _fixture("voltagepark", "bare_metal_locations_capture_2026-08-22_gpu_index.json")),
                      voltagepark.PRESETS_URL: _write(
                          "voltagepark/stale_capture_2026-08-25_instant_deploy_presets.json",
                          _fixture("voltagepark", "instant_deploy_presets_capture_2026-08-25_gpu_index.json")),
                  }),
        *pricing_page_recordings(),
        recording("latitudesh", "reconstructed", "NOT a capture: /plans rebuilt from the 3 GPU plan objects of a REAL "
                  "copy of latitude.sh/pricing (2026-08-22, getcomputable/gpu-index@055204ad), values verbatim", {
                      latitudesh.API_URL: _write("latitudesh/reconstructed_2026-08-22_plans_from_pricing_page.json",
                                                 _fixture("latitudesh",
                                                          "reconstructed_plans_from_pricing_page_2026-08-22.json"))}),
        recording("hyperstack", "synthetic", f"Hyperstack API docs' pricebook example ({documented}); the flavors "
                  "answer is made up EMPTY (no documented example with a GPU)", {
                      hyperstack.PRICEBOOK_URL: _write("hyperstack/documented_example_hyperstack_docs_pricebook.json",
                                                       _fixture("hyperstack",
                                                                "documented_example_hyperstack_docs_pricebook.json")),
                      hyperstack.FLAVORS_URL: _write("hyperstack/synthetic_empty_flavors.json", {
                          "status": True, "message": "synthetic: no flavors", "data": []})}),
        recording("massedcompute", "synthetic", f"brevdev/cloud test payload of GET /api/v1/gpu-inventory "
                  f"({documented})", {
                      massedcompute.API_URL: _write("massedcompute/documented_example_brevdev_gpu_inventory.json",
                                                    _fixture("massedcompute",
                                                             "documented_example_brevdev_cloud_gpu_inventory.json"))}),
        recording("novita", "synthetic", f"novita-sdk-python test payload of GET /gpu-instance/openapi/v1/products "
                  f"({documented})", {
                      novita.API_URL: _write("novita/documented_example_novita_sdk_gpu_products.json", _fixture(
                          "novita", "documented_example_novita_sdk_python_gpu_products.json"))}),
        recording("thunder", "synthetic", f"thunder-cli test payload of GET /v2/pricing ({documented})", {
            thunder.API_URL: _write("thunder/documented_example_thunder_cli_v2_pricing.json", _fixture(
                "thunder", "documented_example_thunder_cli_v2_pricing.json"))}),
    ]


OPENROUTER_FIXTURE = "openrouter_models_capture_2026-04_cut_28_entries.json"
OPENROUTER_ENDPOINTS_FIXTURE = "openrouter_endpoints_capture_2026-08_cut_6_models.json"
TOGETHER_FIXTURE = "together_models_capture_undated_mch_research_cut_28_entries.json"


def api_price_recordings() -> list[dict]:
    """OpenRouter's model list: 28 whole entries of a real saved response (tests/fixtures/PROVENANCE.md), a `jq -c
    '.data | sort_by(.id)'` snapshot, put back byte for byte into the API's `{"data": ...}` envelope."""
    entries = (FIXTURES / "openrouter" / OPENROUTER_FIXTURE).read_bytes().rstrip(b"\n")
    relative = "openrouter/stale_capture_2026-04_models_28_entries.json"
    (HERE / relative).parent.mkdir(parents=True, exist_ok=True)
    (HERE / relative).write_bytes(b'{"data":' + entries + b"}\n")
    endpoints = json.loads((FIXTURES / "openrouter" / OPENROUTER_ENDPOINTS_FIXTURE).read_text())
    deepinfra_page = "deepinfra/stale_capture_2026-08-22_pricing_table_excerpt.html"  # the real page, kept once here
    return [recording("together", "stale_capture", "LaxmanNandi/MCH-Research@70bc7d5f together_models.json: 28 whole "
                      "entries of a REAL /v1/models answer (fetched on or after 2026-01-09), every day", {
                          together.MODELS_URL: _write("together/stale_capture_models_28_entries.json", json.loads(
                              (FIXTURES / "together" / TOGETHER_FIXTURE).read_text()))}),
            recording("deepinfra", "stale_capture", "getcomputable/gpu-index@055204ad deepinfra/pricing.html: the "
                      "token-price table of a REAL copy of the page fetched 2026-08-22 (3 rows), every day",
                      {deepinfra.PRICING_URL: deepinfra_page}),
            {**recording("openrouter-endpoints", "stale_capture",
                         "UbaJaz/Digital_Minds_Research@09c283e3 openrouter_endpoints.json: 6 REAL per-model "
                         "/endpoints responses (August 2026); the replay asks for those 6 models only, every day", {
                             openrouter_endpoints.endpoints_url(slug): _write(
                                 f"openrouter-endpoints/stale_capture_2026-08_{slug.replace('/', '__')}.json", answer)
                             for slug, answer in endpoints.items()}),
             "overrides": {"model_slugs": list(endpoints)}},
            recording("openrouter", "stale_capture",
                      "skissue/gptel-openrouter-models@0083ca15 openrouter-models.json: 28 whole entries of a REAL "
                      "/api/v1/models snapshot (fetched on or after 2026-04-13) in the API's envelope; every day",
                      {openrouter.MODELS_URL: relative})]


# AWS: no real GPU offer file exists in our samples. These made-up prices (USD per instance-hour, roughly the list
# prices' order of magnitude) go into the real structure; reserved terms are made up as fractions of on-demand.
_AWS_SYNTHETIC = {
    "p5.48xlarge": ("8", "55.04"), "p4d.24xlarge": ("8", "21.96"), "p4de.24xlarge": ("8", "27.45"),
    "g5.xlarge": ("1", "1.006"), "g5.12xlarge": ("4", "5.672"), "g5.48xlarge": ("8", "16.288"),
    "g6.xlarge": ("1", "0.8048"), "g6e.xlarge": ("1", "1.861"), "g4dn.xlarge": ("1", "0.526"),
    "g4dn.12xlarge": ("4", "3.912"), "p3.2xlarge": ("1", "3.06"), "c5.large": ("0", "0.085"),
}
_AWS_REGION_FACTOR = {"us-east-1": Decimal("1"), "us-west-2": Decimal("1"), "eu-west-1": Decimal("1.08"),
                      "ap-northeast-1": Decimal("1.24")}


def _aws_offer_files():
    for region, factor in _AWS_REGION_FACTOR.items():
        products, on_demand, reserved = {}, {}, {}
        for number, (instance_type, (gpus, price)) in enumerate(_AWS_SYNTHETIC.items()):
            sku = f"SYNTHETIC{region.replace('-', '').upper()}{number:03d}"
            attributes = {"instanceType": instance_type, "regionCode": region, "operatingSystem": "Linux",
                          "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
                          "licenseModel": "No License required", "gpu": gpus}
            products[sku] = {"sku": sku, "productFamily": "Compute Instance", "attributes": attributes}
            # the Windows twin every real file has: the parser must drop it
            products[sku + "W"] = {"sku": sku + "W", "productFamily": "Compute Instance",
                                   "attributes": {**attributes, "operatingSystem": "Windows"}}
            hourly = (Decimal(price) * factor).quantize(Decimal("0.0001"))
            on_demand[sku] = {f"{sku}.JRTCKXETXF": {"offerTermCode": "JRTCKXETXF", "sku": sku, "termAttributes": {},
                              "priceDimensions": {f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                  "unit": "Hrs", "description": "synthetic", "pricePerUnit": {"USD": str(hourly)}}}}}
            on_demand[sku + "W"] = {f"{sku}W.JRTCKXETXF": {"offerTermCode": "JRTCKXETXF", "sku": sku + "W",
                                    "termAttributes": {}, "priceDimensions": {f"{sku}W.JRTCKXETXF.6YS6EN2CT7": {
                                        "unit": "Hrs", "pricePerUnit": {"USD": str(hourly * 2)}}}}}
            reserved[sku] = {
                f"{sku}.HU7G6KETJZ": {"offerTermCode": "HU7G6KETJZ", "sku": sku, "termAttributes": {
                    "LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "Partial Upfront"},
                    "priceDimensions": {
                        f"{sku}.HU7G6KETJZ.2TG2D8R56U": {"unit": "Quantity", "description": "Upfront Fee",
                                                         "pricePerUnit": {"USD": str(int(hourly * 2628))}},
                        f"{sku}.HU7G6KETJZ.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {
                            "USD": str((hourly * Decimal("0.3")).quantize(Decimal("0.0001")))}}}},
                f"{sku}.38NPMPTW36": {"offerTermCode": "38NPMPTW36", "sku": sku, "termAttributes": {
                    "LeaseContractLength": "3yr", "OfferingClass": "standard", "PurchaseOption": "All Upfront"},
                    "priceDimensions": {f"{sku}.38NPMPTW36.2TG2D8R56U": {
                        "unit": "Quantity", "description": "Upfront Fee", "pricePerUnit": {"USD": str(int(hourly * 10500))}}}},
            }
        offer_file = {"formatVersion": "v1.0", "disclaimer": "SYNTHETIC: made-up prices in the documented structure",
                      "offerCode": "AmazonEC2", "version": "synthetic", "publicationDate": REPLAY_START,
                      "products": products, "terms": {"OnDemand": on_demand, "Reserved": reserved}}
        yield region, aws.OFFER_URL.format(region=region), offer_file


def skypilot_reconstructions(manifest_rows: list[dict]) -> list[dict]:
    """Lambda API responses and GCP SKU pages rebuilt from the real dated SkyPilot catalogs."""
    recordings = []
    for entry in manifest_rows:
        cloud, date = entry["file"].removesuffix(".csv").split("_", 1)
        recorded_at = entry["commit_date"].replace(" ", "T") + "+00:00"
        rows = list(csv.DictReader((HERE / "skypilot" / entry["file"]).open(newline="")))
        if cloud == "lambda":
            recordings.append(_lambda_recording(rows, date, recorded_at, entry["file"]))
        elif cloud == "gcp":
            recordings.append(_gcp_recording(rows, date, recorded_at, entry["file"]))
    return recordings


def _lambda_recording(rows, date, recorded_at, catalog_file) -> dict:
    data = {}
    for row in rows:
        name = row["InstanceType"]
        if name in data:
            continue  # SkyPilot repeats each type for a hard-coded region list at the same price
        info = ast.literal_eval(row["GpuInfo"])
        memory_gb = round(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] / 1024)
        count = int(float(row["AcceleratorCount"]))
        cents = Decimal(row["Price"]) * 100
        assert cents == cents.to_integral_value(), f"{name}: {row['Price']} is not whole cents"
        data[name] = {
            "instance_type": {
                "name": name, "description": f"{count}x {row['AcceleratorName']} ({memory_gb} GB)",
                "gpu_description": f"{row['AcceleratorName']} ({memory_gb} GB)", "price_cents_per_hour": int(cents),
                "specs": {"vcpus": int(float(row["vCPUs"])), "memory_gib": int(float(row["MemoryGiB"])),
                          "storage_gib": 0, "gpus": count},
            },
            "regions_with_capacity_available": [],  # the catalog says nothing about capacity
        }
    relative = _write(f"lambda/reconstructed_{date}_instance_types.json", {"data": data})
    return recording("lambda", "reconstructed", f"NOT a capture: /instance-types rebuilt from {catalog_file} "
                      "(real prices; storage_gib unknown = 0; capacity unknown = [])",
                      {lambda_cloud.API_URL: relative}, recorded_at)


# SkyPilot GPU names -> the GPU part of Google's SKU descriptions ("Nvidia <this> GPU running in ...").
_GCP_SKU_GPU = {"A100": "Tesla A100", "A100-80GB": "Tesla A100 80GB", "H100": "H100 80GB",
                "H100-MEGA": "H100 80GB Mega", "H200": "H200 141GB", "B200": "B200", "L4": "L4", "T4": "Tesla T4",
                "P100": "Tesla P100", "P4": "Tesla P4", "V100": "Tesla V100"}
_GCP_PAGE_SIZE = 200


def _gcp_recording(rows, date, recorded_at, catalog_file) -> dict:
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
    real_page = _fixture("gcp", "opencost_cloudbilling_skus_page.json")
    routes = {gcp.SERVICE_URL: _write(f"gcp/stale_capture_{date}_page-001.json", real_page)}
    token = real_page["nextPageToken"]
    for page_number, start in enumerate(range(0, len(skus), _GCP_PAGE_SIZE), start=2):
        following = start + _GCP_PAGE_SIZE
        next_token = f"reconstructed-{date}-{page_number + 1}" if following < len(skus) else ""
        page = {"skus": skus[start:following], "nextPageToken": next_token}
        routes[f"{gcp.SERVICE_URL}&pageToken={token}"] = _write(
            f"gcp/reconstructed_{date}_page-{page_number:03d}.json", page)
        token = next_token
    return recording("gcp", "reconstructed", f"page 1: the real opencost SKU page (2023); pages 2+: NOT captures, GPU "
                      f"SKUs rebuilt from {catalog_file} (real per-GPU prices)", routes, recorded_at)


def ecb_recordings(first_day: str = "2026-04-02", last_day: str = "2026-05-01") -> list[dict]:
    """The ECB daily file of every replay day, rebuilt from the real history file (tests/fixtures/ecb): the row of
    the last business day on or before that day, in the daily file's layout, zipped like eurofxref.zip."""
    with zipfile.ZipFile(FIXTURES / "ecb" / "eurofxref-hist.zip") as archive:
        rows = list(csv.reader(io.StringIO(archive.read("eurofxref-hist.csv").decode())))
    header, history = rows[0], {row[0]: row for row in rows[1:]}
    recordings = []
    day, last = date.fromisoformat(first_day), date.fromisoformat(last_day)
    while day <= last:
        business_day = max(d for d in history if d <= day.isoformat())
        row = history[business_day]
        quoted = [(currency, value) for currency, value in zip(header[1:], row[1:], strict=False)
                  if currency and value and value != "N/A"]
        published = date.fromisoformat(business_day)
        text = (", ".join(["Date"] + [c for c, _ in quoted]) + ", \n"
                + ", ".join([f"{published.day:02d} {published:%B %Y}"] + [v for _, v in quoted]) + ", \n")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as daily:
            daily.writestr(zipfile.ZipInfo("eurofxref.csv", date_time=(published.year, published.month,
                                                                       published.day, 16, 0, 0)), text)
        relative = f"ecb/reconstructed_eurofxref_{day.isoformat()}.zip"
        (HERE / relative).parent.mkdir(parents=True, exist_ok=True)
        (HERE / relative).write_bytes(buffer.getvalue())
        recordings.append(recording(
            "ecb-fx", "reconstructed",
            f"NOT a capture: the daily file rebuilt from the real ECB history file (rates of {business_day})",
            {DAILY_URL: relative}, recorded_at=f"{day.isoformat()}T16:00:00+00:00"))
        day += timedelta(days=1)
    return recordings
