"""The alias seed (shared by the parsers and dbt) and name resolution."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from scrapers.gpu_names import ALIASES_CSV, as_meant, memory_class_gib, name_key, resolve_gpu_id, resolve_typed


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
    assert [memory_class_gib(m) for m in (81559, 143771, 95830, 46068, 24564)] == [80, 141, 94, 48, 24]


def test_names_are_read_as_real_files_write_them():
    # "PCle": a lower-case L for the I (Amazon titles, Keepa exports), as a word, glued or hyphenated
    assert resolve_gpu_id("PNY NVIDIA A100 80GB PCle") == resolve_gpu_id("A100 80GB PCIe") == "a100-pcie-80gb"
    assert resolve_gpu_id("H100 PCle 80GB") == resolve_gpu_id("H100-PCle-80GB") == "h100-pcie-80gb"
    assert resolve_gpu_id("Tesla V100-PCle-32GB") == resolve_gpu_id("V100 PCl-e 32GB") == "v100-pcie-32gb"
    assert resolve_gpu_id("NVIDIA H100 PCle") == resolve_gpu_id("NVIDIA H100 PCIe") is not None  # the alias table too
    assert as_meant("H100 PCle") == "H100 PCIe" and as_meant("A100 80GB PCLE") == "A100 80GB PCIE"
    assert as_meant("Cyclepcle PCles") == "Cyclepcle PCles"  # only the word
    # case, doubled spaces: "Geforce", "TI" / "Ti", "Super" / "SUPER"
    assert resolve_gpu_id("NVIDIA Geforce RTX 4090") == resolve_gpu_id("GeForce  RTX  4090") == "rtx-4090-24gb"
    assert resolve_gpu_id("Geforce RTX 4070 TI") == resolve_gpu_id("GeForce RTX 4070 Ti") == "rtx-4070-ti-12gb"
    assert resolve_gpu_id("RTX 4080 Super") == resolve_gpu_id("RTX 4080 SUPER") == "rtx-4080-super-16gb"
    assert resolve_gpu_id("RTX 4070TISUPER") == resolve_gpu_id("RTX 4070 Ti SUPER") == "rtx-4070-ti-super-16gb"
    assert resolve_typed("H100 PCle", {"h100-pcie-80gb", "h100-sxm5-80gb"}) == "h100-pcie-80gb"


def test_a_tolerated_name_still_never_guesses_a_variant():
    # the memory size of an HBM part is not guessed ("A100 PCle": 40GB or 80GB?), nor SXM vs PCIe
    assert resolve_gpu_id("A100 PCle") is None and resolve_gpu_id("NVIDIA A100 PCle") is None
    assert resolve_gpu_id("Tesla  a100  PCLE") is None
    assert resolve_gpu_id("H100") is None and resolve_gpu_id("H100  80GB") == "h100-80gb-unstated"  # kept apart
    assert resolve_gpu_id("PCle") is None


def test_a_name_no_alias_or_catalogue_knows_is_tried_restated_never_guessed():
    # without the vendor word ("NVIDIA H200" is nvidia-smi's SXM part, a feed's bare "H200" says no form factor)
    assert resolve_gpu_id("NVIDIA A30") == "a30-pcie-24gb" and resolve_gpu_id("H200") is None
    assert resolve_gpu_id("H100 80GB HBM3") == "h100-sxm5-80gb"  # HBM3 at 80 GB is the SXM5 part (an alias)
    # a stated memory size that is the alias's own part's ("A6000" is the 48 GB RTX A6000)
    assert resolve_gpu_id("A6000 48GB") == "rtx-a6000-48gb"
    assert resolve_gpu_id("NVIDIA A6000 48 GB") == "rtx-a6000-48gb"
    # a size the part does not have is no alias of it; a form factor is never guessed
    assert resolve_gpu_id("A6000 24GB") is None
    assert resolve_gpu_id("H100 80GB") == "h100-80gb-unstated" and resolve_gpu_id("NVIDIA H100 PCIe") is not None
    assert resolve_gpu_id("A100 PCIe") is None  # 40 or 80 GB: the HBM part's size is never guessed
    # parts made in one form only resolve bare
    assert resolve_gpu_id("A30") == "a30-pcie-24gb" and resolve_gpu_id("W7900") == "radeon-pro-w7900-48gb"
