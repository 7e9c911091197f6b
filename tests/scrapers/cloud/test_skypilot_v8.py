"""SkyPilot catalogs, current schema: the parser on the real v8 catalogs (recordings/skypilot/v8, from
skypilot-org/skypilot-catalog; commits in its MANIFEST.csv), and the schema discovery against a recorded server."""

from __future__ import annotations

import asyncio
import csv
import io
import shutil
from collections import Counter
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from conftest import RECORDINGS, document, raw_document

from scrapers.cloud.skypilot import (
    CATALOG_README_URL,
    CATALOG_URL,
    catalog_notes,
    published_versions,
    read_choice,
)
from scrapers.errors import ParseError
from scrapers.http import HttpClient
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    RecordedServer,
    load_recordings,
    replay_plan,
    rewrite_to,
)
from warehouse.ingest.integrity import check
from warehouse.store.landing import LandedRun
from warehouse.ingest.normalize import normalize
from warehouse.store.schema import create_raw_schema
from warehouse.store.status import render

SOURCES = all_sources()
V8 = RECORDINGS / "skypilot" / "v8"
MANIFEST = list(csv.DictReader((V8 / "MANIFEST.csv").open(newline="")))
# ids that say SXM or PCIe: a row whose names do not say which must never get one
FORM_FACTOR_IDS = {"h100-sxm5-80gb", "h100-pcie-80gb", "a100-sxm4-80gb", "a100-pcie-80gb", "v100-sxm2-16gb",
                   "v100-pcie-16gb"}


def parse(cloud: str):
    return SOURCES[f"skypilot-{cloud}"].parse([document(f"skypilot/v8/{cloud}/vms.csv")])


def by_instance(offers, instance_type, pricing_type="on_demand", region=None):
    return next(o for o in offers if o.instance_type == instance_type and o.pricing_type == pricing_type
                and (region is None or o.region == region))


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda entry: entry["cloud"])
def test_every_bundled_catalog_is_whole_and_passes_its_expectations(entry):
    body = (V8 / entry["cloud"] / "vms.csv").read_bytes()
    assert len(body.decode()) == int(entry["chars"])  # the length the upstream file has
    source = SOURCES[f"skypilot-{entry['cloud']}"]
    offers = source.parse([raw_document(body)])
    # one offer per stated price of every GPU row: nothing dropped, nothing invented
    rows = [r for r in csv.DictReader(io.StringIO(body.decode()))
            if r["AcceleratorName"] and float(r["AcceleratorCount"] or 0)]
    assert len(rows) == int(entry["gpu_rows"])
    stated = sum(bool(r["Price"]) + bool(r["SpotPrice"] and Decimal(r["SpotPrice"])) for r in rows)
    assert len(offers) == stated
    run = LandedRun(source=source.id, run_id="t", observed_at=raw_document(b"").fetched_at, data_origin="captured",
                    directory=Path("."), documents=[], document_files=["vms.csv"])
    checked = check(normalize(offers, run, source.parser_version), source.expectations)
    assert checked.passed, checked.result_reasons


def test_shadeform_rows_belong_to_the_cloud_that_rents_them():
    offers = parse("shadeform")
    assert {o.via for o in offers} == {"shadeform"}
    assert Counter(o.provider for o in offers).keys() == {
        "massedcompute", "lambda", "crusoe", "scaleway", "paperspace", "denvr", "hyperstack", "vultr", "excesssupply"}
    crusoe = by_instance(offers, "crusoe_A100-80G-sxm4x8")
    assert (crusoe.provider, crusoe.gpu_id, crusoe.gpu_count, crusoe.price) == ("crusoe", "a100-sxm4-80gb", 8,
                                                                                Decimal("18.4"))
    assert crusoe.interconnect == "sxm"
    # shadeform writes GB in GpuInfo's SizeInMiB: 40 means the 40GB A100, not 40 MiB
    lambda_a100 = by_instance(offers, "lambdalabs_A100-sxm4", region="dulles-usa-1")
    assert (lambda_a100.provider, lambda_a100.gpu_id, lambda_a100.raw_gpu_name) == ("lambda", "a100-sxm4-40gb",
                                                                                    "A100 SXM4 40GB")
    # a name that does not say SXM or PCIe is never read as one of them
    assert by_instance(offers, "crusoe_A100-80GB").gpu_id not in FORM_FACTOR_IDS


def test_primeintellect_and_spheron_name_their_renting_cloud_too():
    prime = parse("primeintellect")
    verda = by_instance(prime, "datacrunch__8xH200_141GB__176__1450", region="FI")
    assert (verda.provider, verda.via, verda.gpu_id, verda.price) == ("verda", "primeintellect", "h200-sxm-141gb",
                                                                      Decimal("15.97"))
    spot_only = [o for o in prime if o.instance_type == "datacrunch__8xH200_141GB__176__1450__SPOT"]
    assert [o.pricing_type for o in spot_only] == ["spot"]  # a spot row states no on-demand price
    assert not [o for o in prime if "CPU_NODE" in o.instance_type]  # CPU machines are not GPU offers
    spheron = parse("spheron")
    by_provider = Counter((o.provider, o.via) for o in spheron)
    assert by_provider[("spheron", None)] > 0  # Spheron's own machines are direct offers
    assert {("sesterce", "spheron"), ("verda", "spheron"), ("massedcompute", "spheron")} <= set(by_provider)


def test_names_are_completed_only_with_what_the_row_states():
    cudo = parse("cudo")
    assert by_instance(cudo, "sapphire-rapids-h100_8x64v128gb").gpu_id == "h100-sxm5-80gb"  # "H100-SXM" + 80 GB
    assert by_instance(cudo, "intel-ice-lake-a100-pci_1x2v4gb").gpu_id == "a100-pcie-80gb"  # "pci" in the name
    assert by_instance(cudo, "intel-broadwell-v100_1x2v4gb").gpu_id not in FORM_FACTOR_IDS  # none stated
    nebius = parse("nebius")
    assert by_instance(nebius, "gpu-h100-sxm_8gpu-128vcpu-1600gb", region="eu-north1").gpu_id == "h100-sxm5-80gb"
    # hyperbolic's AcceleratorName says H100; its GpuInfo names the device as the driver does (the SXM5 part)
    assert {o.gpu_id for o in parse("hyperbolic")} == {"h100-sxm5-80gb"}
    assert not {o.gpu_id for o in parse("jarvislabs") if o.raw_gpu_name.startswith("H100")} & FORM_FACTOR_IDS


def test_interconnect_is_kept_where_a_name_says_it():
    hyperstack = parse("hyperstack")
    assert by_instance(hyperstack, "n3-A100x8-NVLink").interconnect == "pcie_nvlink"
    assert by_instance(hyperstack, "n3-A100x8").interconnect == "pcie"
    assert by_instance(hyperstack, "n3-L40x8").interconnect is None
    vast = parse("vast")
    assert {o.interconnect for o in vast if o.instance_type.startswith("2x-H100_NVL")} == {"pcie_nvlink"}
    assert {o.interconnect for o in vast if "H100_SXM" in o.instance_type} == {"sxm"}


def test_v8_columns_are_read_by_name_not_position():
    text = (V8 / "verda" / "vms.csv").read_bytes().decode()
    rows = list(csv.reader(io.StringIO(text)))
    reordered = io.StringIO()
    csv.writer(reordered, lineterminator="\n").writerows([list(reversed(row)) for row in rows])
    again = SOURCES["skypilot-verda"].parse([raw_document(reordered.getvalue().encode())])
    original = parse("verda")
    assert [(o.offer_id, o.price, o.gpu_id) for o in again] == [(o.offer_id, o.price, o.gpu_id) for o in original]


def test_only_yotta_may_end_without_a_newline():
    assert parse("yotta")  # the real file has no newline after its last row
    cut = (V8 / "cudo" / "vms.csv").read_bytes().rstrip(b"\n")
    with pytest.raises(ParseError, match="truncated"):
        SOURCES["skypilot-cudo"].parse([raw_document(cut)])


def test_via_and_interconnect_reach_raw_offers():
    source = SOURCES["skypilot-shadeform"]
    run = LandedRun(source=source.id, run_id="t", observed_at=raw_document(b"").fetched_at, data_origin="captured",
                    directory=Path("."), documents=[], document_files=["vms.csv"])
    frame = normalize(parse("shadeform"), run, source.parser_version).drop("reject_reason")
    with duckdb.connect() as connection:
        create_raw_schema(connection)
        connection.register("frame", frame.to_arrow())
        connection.execute("INSERT INTO raw.offers BY NAME SELECT * FROM frame")
        stored = connection.execute(
            "SELECT provider, via, interconnect FROM raw.offers WHERE instance_type = 'crusoe_A100-80G-sxm4x8'"
        ).fetchone()
    assert stored == ("crusoe", "shadeform", "sxm")


# -- schema discovery -------------------------------------------------------------------------------------------------
README = (V8 / "skypilot-catalog_README.md").read_text()


def test_the_readme_names_the_newest_version_first():
    assert published_versions(README) == ["v8", "v7"]
    assert published_versions(README.replace("**Latest catalog schema version**: v8",
                                              "**Latest catalog schema version**: v9")) == ["v9", "v8", "v7"]
    assert published_versions("# a page that no longer says") == []


def route(url: str) -> str:
    return url.split("://", 1)[1]


def discover(bundle: Path, routes: dict[str, str], cloud: str = "shadeform"):
    """Fetch one cloud's catalog without a pinned URL from a recorded server holding `routes` (route -> file)."""

    async def fetch():
        with RecordedServer(bundle_dir=bundle) as server:
            server.routes = {route(url): file for url, file in routes.items()}
            async with HttpClient(OFFLINE_HTTP, rewrite=rewrite_to(server.base_url)) as client:
                return await SOURCES[f"skypilot-{cloud}"].fetch(client), server.requests

    return asyncio.run(fetch())


@pytest.fixture
def bundle(tmp_path):
    """A served folder: the real README and the real shadeform v8 catalog, plus whatever a test writes."""
    shutil.copy(V8 / "skypilot-catalog_README.md", tmp_path / "README.md")
    shutil.copy(V8 / "shadeform" / "vms.csv", tmp_path / "shadeform_v8.csv")
    return tmp_path


def test_discovery_reads_the_newest_published_version(home, bundle):
    (documents,), requests = discover(bundle, {
        CATALOG_README_URL: "README.md", CATALOG_URL.format(version="v8", cloud="shadeform"): "shadeform_v8.csv"})
    assert documents.url == CATALOG_URL.format(version="v8", cloud="shadeform")
    choice = read_choice("shadeform")
    assert (choice.version_used, choice.newest_published, choice.last_working_version, choice.note) == (
        "v8", "v8", "v8", None)


def test_an_unreadable_newest_schema_falls_back_to_an_older_one_and_says_so(home, bundle):
    (bundle / "README.md").write_text(README.replace("schema version**: v8", "schema version**: v9"))
    (bundle / "shadeform_v9.csv").write_bytes(  # the real v8 file with a renamed price column: a schema we cannot read
        (bundle / "shadeform_v8.csv").read_bytes().replace(b",Price,", b",HourlyPrice,", 1))
    (documents,), _ = discover(bundle, {
        CATALOG_README_URL: "README.md", CATALOG_URL.format(version="v9", cloud="shadeform"): "shadeform_v9.csv",
        CATALOG_URL.format(version="v8", cloud="shadeform"): "shadeform_v8.csv"})
    assert documents.url.endswith("/v8/shadeform/vms.csv")
    choice = read_choice("shadeform")
    assert (choice.version_used, choice.newest_published) == ("v8", "v9")
    assert "newest published schema is v9" in choice.note and "header lacks ['Price']" in choice.note
    # gpuprices status says so, under the source
    report = {"sources": [{"source": "skypilot-shadeform", "age_hours": 1.0, "has_synthetic_rows": False,
                           "last_status": "loaded", "last_observed_at": date(2026, 5, 1), "rows_in_last_load": 9,
                           "runs": 1, "state": "fresh", "last_error": None,
                           "catalog_note": catalog_notes()["skypilot-shadeform"].note}],
              "quarantined_results": [], "quarantined_rows": [], "unmatched_gpu_names": []}
    assert "catalog: reading catalog schema v8 (the newest published schema is v9)" in render(report)


def test_without_the_readme_the_last_version_that_worked_is_read(home, bundle):
    routes = {CATALOG_README_URL: "README.md", CATALOG_URL.format(version="v8", cloud="shadeform"): "shadeform_v8.csv"}
    discover(bundle, routes)  # a good run remembers v8
    del routes[CATALOG_README_URL]  # the README is gone (404)
    (documents,), _ = discover(bundle, routes)
    assert documents.url.endswith("/v8/shadeform/vms.csv")
    choice = read_choice("shadeform")
    assert choice.newest_published is None and "the last version that worked" in choice.note
    assert "README could not be read" in choice.note


def test_a_cloud_missing_from_the_newest_version_is_read_from_an_older_published_one(home, bundle):
    (documents,), requests = discover(bundle, {
        CATALOG_README_URL: "README.md", CATALOG_URL.format(version="v7", cloud="shadeform"): "shadeform_v8.csv"})
    assert documents.url.endswith("/v7/shadeform/vms.csv")
    assert read_choice("shadeform").note.startswith("reading catalog schema v7 (the newest published schema is v8)")
    assert route(CATALOG_URL.format(version="v8", cloud="shadeform")) in requests  # v8 was asked first


def test_the_offline_replay_runs_the_discovery(home):
    day, = replay_plan(load_recordings(), date(2026, 5, 1), date(2026, 5, 1))
    assert day.overrides["skypilot-shadeform"] == {}  # no pinned URL: the source finds its catalog itself
    (documents,), requests = discover(RECORDINGS, {f"https://{key}": file for key, file in day.routes.items()})
    assert route(CATALOG_README_URL) in requests
    assert documents.body == (V8 / "shadeform" / "vms.csv").read_bytes()
    assert read_choice("shadeform").version_used == "v8"
