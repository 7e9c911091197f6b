"""The tables the plans and the purchase side rest on: every GPU with specs has a sourced cluster assumption, one
sold without a cluster network forms one machine, and every system price is an SXM/OAM part's, sourced and dated."""

from __future__ import annotations

import csv
import re

from conftest import ROOT

SEEDS = ROOT / "models" / "seeds"


def _rows(name: str) -> list[dict]:
    with (SEEDS / f"{name}.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_gpu_with_specs_has_a_sourced_cluster_assumption():
    specs = {row["gpu_id"] for row in _rows("gpu_specs")}
    clusters = _rows("gpu_cluster_assumptions")
    assert {row["gpu_id"] for row in clusters} == specs and len(clusters) == len(specs)
    for row in clusters:
        assert row["source"].strip(), row["gpu_id"]
        node, largest = int(row["node_gpus"]), int(row["max_cluster_gpus"])
        if row["scale_out_network"] == "none":  # not sold in clusters: one machine at most
            assert largest == node, row["gpu_id"]
        else:
            assert largest > node, row["gpu_id"]


def test_consumer_and_pcie_cards_are_never_assumed_to_form_clusters():
    specs = {row["gpu_id"]: row for row in _rows("gpu_specs")}
    for row in _rows("gpu_cluster_assumptions"):
        if re.search(r"PCIe", specs[row["gpu_id"]]["form_factor"] or ""):
            assert row["scale_out_network"] == "none", row["gpu_id"]


def test_system_prices_are_sxm_or_oam_parts_with_a_dated_source_per_gpu():
    specs = {row["gpu_id"]: row for row in _rows("gpu_specs")}
    systems = _rows("gpu_system_prices")
    assert {"h100-sxm5-80gb", "a100-sxm4-80gb", "a100-sxm4-40gb"} <= {row["gpu_id"] for row in systems}
    for row in systems:
        assert re.search(r"SXM|OAM|HGX", specs[row["gpu_id"]]["form_factor"]), row["gpu_id"]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["price_date"]) and row["source"].strip()
        assert int(row["system_gpus"]) >= 4 and float(row["system_price_usd"]) > 0, row["gpu_id"]
