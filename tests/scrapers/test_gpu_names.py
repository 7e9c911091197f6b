"""The alias seed (shared by the parsers and dbt) and name resolution."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from scrapers.gpu_names import ALIASES_CSV, memory_class_gb, name_key, resolve_gpu_id


def read(name: str) -> list[dict]:
    with open(ALIASES_CSV.parent / name, newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_alias_points_at_a_known_gpu_and_keys_are_unique_per_scope():
    known = {r["gpu_id"] for name in ("gpu_specs.csv", "gpus_without_specs.csv", "gpu_catalogue.csv") for r in read(name)}
    aliases = read("gpu_aliases.csv")
    assert {a["gpu_id"] for a in aliases} <= known
    duplicates = [k for k, n in Counter((a["scope"], name_key(a["raw_name"])) for a in aliases).items() if n > 1]
    assert duplicates == []


def test_spec_table_keeps_sources_and_the_dense_sparse_split():
    specs = read("gpu_specs.csv")
    assert len(specs) == 40 and all(row["sources"] for row in specs)
    h100 = next(r for r in specs if r["gpu_id"] == "h100-sxm5-80gb")
    sparse, dense = float(h100["fp16_bf16_tensor_sparse_tflops"]), float(h100["fp16_bf16_tensor_dense_tflops"])
    assert sparse == pytest.approx(2 * dense, abs=0.2)  # the table rounds each figure on its own


def test_scoped_names_resolve_per_provider():
    assert resolve_gpu_id("A100", "gcp") == "a100-sxm4-40gb"
    assert resolve_gpu_id("a100-80gb", "gcp") == "a100-sxm4-80gb"
    assert resolve_gpu_id("A100", "vast") is None  # no global "A100": the variant is unknown
    assert resolve_gpu_id("H100 PCIe 80GB") == resolve_gpu_id("h100-pcie 80 GB") == "h100-pcie-80gb"
    assert resolve_gpu_id("H100 NVL", "vast") == "h100-nvl-94gb" != resolve_gpu_id("H100 SXM 80GB")


def test_memory_is_snapped_to_marketed_sizes():
    assert [memory_class_gb(m) for m in (81559, 143771, 95830, 46068, 24564)] == [80, 141, 94, 48, 24]
