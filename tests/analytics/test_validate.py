"""Reading the published runs the estimator is validated on: each run's shape comes from its own columns or the
shapes file, and a file in another format is refused with a clear message."""

from __future__ import annotations

import csv
import math

import pytest
from conftest import ROOT

from analytics.estimate import EstimateError
from analytics.validate import SHAPES, error_band, out_of_sample_ratio, read_runs

CALIBRATION = ROOT / "analytics" / "calibration" / "training_runs_calibration.csv"


def test_every_calibration_run_has_a_sourced_shape():
    runs = read_runs(CALIBRATION)
    assert len(runs) == 12
    for run in runs:
        assert int(run["layers"]) > 0 and int(run["d_model"]) > 0 and int(run["sequence_length"]) >= 2048, run["model"]
        assert run["training_precision"] in ("bf16", "fp8"), run["model"]
    with SHAPES.open(newline="") as handle:
        assert all(row["source"] for row in csv.DictReader(handle))


def test_a_files_own_shape_columns_win_over_the_shapes_file(tmp_path):
    rows = list(csv.DictReader(CALIBRATION.open(newline="")))
    own = tmp_path / "runs.csv"
    with own.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*rows[0], "layers", "sequence_length"])
        writer.writeheader()
        writer.writerow({**rows[0], "layers": "7", "sequence_length": "1024"})
    (run,) = read_runs(own)
    assert (run["layers"], run["sequence_length"]) == ("7", "1024")
    assert run["d_model"] == "12288"  # not in the file: OPT-175B's from the shapes file


@pytest.mark.parametrize("content", ["", "model,params\nx,1\n"])
def test_a_file_in_another_format_is_refused(tmp_path, content):
    path = tmp_path / "other.csv"
    path.write_text(content)
    with pytest.raises(EstimateError, match="expected a CSV with columns"):
        read_runs(path)
    with pytest.raises(EstimateError, match="no such file"):
        read_runs(tmp_path / "missing.csv")


def _run(group: str | None, ratio: float) -> dict:
    return {"fitted_group": group, "model_estimate": {"ratio": ratio}}


def test_out_of_sample_a_run_is_judged_by_its_groups_factor_fitted_without_it():
    # a fitted share is the median of its group's s_j, and a run's ratio is s_i / share: refitted without run i, its
    # ratio is ratio_i / median(the others' ratios)
    a100 = [_run("ampere", ratio) for ratio in (0.8, 1.0, 1.2, 1.1)]
    hopper = [_run("hopper", 0.5), _run("hopper", 1.0), _run("hopper", 1.2)]
    fp8_moe = _run(None, 0.9)  # no factor was fitted on it: out of sample as it stands
    runs = [*a100, *hopper, fp8_moe]
    assert out_of_sample_ratio(a100[0], runs) == pytest.approx(0.8 / 1.1)
    assert out_of_sample_ratio(a100[2], runs) == pytest.approx(1.2 / 1.0)
    assert out_of_sample_ratio(hopper[0], runs) == pytest.approx(0.5 / 1.1)
    assert out_of_sample_ratio(fp8_moe, runs) == 0.9
    alone = _run("volta", 0.7)
    assert math.isnan(out_of_sample_ratio(alone, [*runs, alone]))  # nothing left to fit on


def test_the_band_is_the_lowest_and_highest_actual_over_estimate_rounded_outward():
    band = error_band([0.5279, 0.8646, 1.0, 1.2524])
    assert band["low"] == pytest.approx(1 / 1.2524) and band["high"] == pytest.approx(1 / 0.5279)
    assert (band["vars_low"], band["vars_high"]) == (0.79, 1.9)  # 0.7985 down, 1.8943 up
    assert band["coverage"] == pytest.approx(3 / 5) and band["runs"] == 4
