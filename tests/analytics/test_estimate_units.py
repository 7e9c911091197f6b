"""Reading what a person types on the estimator's command line: counts in any usual notation, GPU names in any
spelling a spec sheet or a cloud uses."""

from __future__ import annotations

import csv

import pytest
from conftest import ROOT

from analytics.estimate import EstimateError, parse_count
from scrapers.gpu_names import resolve_typed

# the ids marts.gpus holds: the spec table and the GPUs priced without specs
KNOWN_IDS = frozenset(
    row["gpu_id"] for seed in ("gpu_specs.csv", "gpus_without_specs.csv")
    for row in csv.DictReader((ROOT / "models" / "seeds" / seed).open(newline="")))


@pytest.mark.parametrize(("text", "expected"), [
    ("70B", 70e9), ("70b", 70e9), ("2T", 2e12), ("14.8T", 14.8e12), ("7e9", 7e9), ("1.5B", 1.5e9),
    ("500M", 500e6), ("7000000000", 7e9), ("1.75e+11", 1.75e11), ("1.75E11", 1.75e11), ("2.1e+12", 2.1e12),
    ("70,000,000,000", 70e9), ("70_000_000_000", 70e9), ("6.7 billion", 6.7e9), ("15 trillion", 15e12),
])
def test_counts_in_any_usual_notation(text, expected):
    assert parse_count(text, "--params") == pytest.approx(expected)


@pytest.mark.parametrize("text", ["70", "seventy", "70 GB", "", "-5B", "7,5B", "1e-3"])
def test_unreadable_or_suspiciously_small_counts_are_refused(text):
    with pytest.raises(EstimateError):
        parse_count(text, "--params")


@pytest.mark.parametrize(("typed", "gpu_id"), [
    ("A100 40GB", "a100-sxm4-40gb"), ("A100-40GB", "a100-sxm4-40gb"), ("A100 SXM4 40 GB", "a100-sxm4-40gb"),
    ("NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"), ("A100 PCIe 40GB", "a100-pcie-40gb"), ("A100 PCIe", "a100-pcie-80gb"),
    ("H100 80GB", "h100-sxm5-80gb"), ("H100 SXM", "h100-sxm5-80gb"), ("nvidia h100 pcie", "h100-pcie-80gb"),
    ("H100 NVL", "h100-nvl-94gb"), ("Tesla T4", "t4-16gb"), ("T4", "t4-16gb"), ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),
    ("V100 32GB", "v100-sxm2-32gb"), ("GeForce RTX 4090", "rtx-4090-24gb"), ("L40S", "l40s-48gb"),
    ("MI300X", "mi300x-192gb"), ("h100-sxm5-80gb", "h100-sxm5-80gb"),
    # shorthand naming several variants: the documented estimate scope (SXM first, then the most memory)
    ("A100", "a100-sxm4-80gb"), ("H100", "h100-sxm5-80gb"), ("V100", "v100-sxm2-32gb"),
])
def test_every_usual_spelling_of_a_gpu_resolves(typed, gpu_id):
    assert gpu_id in KNOWN_IDS
    assert resolve_typed(typed, KNOWN_IDS) == gpu_id


@pytest.mark.parametrize("typed", ["XYZ 9000", "A100 48GB", "H100 SXM 40GB", ""])
def test_a_gpu_we_do_not_know_is_not_guessed(typed):
    assert resolve_typed(typed, KNOWN_IDS) is None


def test_a_term_other_than_1y_or_3y_is_refused_before_the_warehouse_is_opened():
    from analytics.estimate import TERMS, EstimateRequest, ModelShape, estimate

    assert TERMS == {"1y": ("reserved_1y", 365), "3y": ("reserved_3y", 1095)}
    with pytest.raises(EstimateError, match="term: one of 1y, 3y"):
        estimate(EstimateRequest(model=ModelShape("m", 7e9, 7e9, 2e12), term="2y"))
