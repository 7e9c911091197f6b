"""Reading the published runs the estimator is validated on: each run's shape comes from its own columns or the
shapes file, and a file in another format is refused with a clear message."""

from __future__ import annotations

import csv

import pytest
from conftest import ROOT

from analytics.estimate import EstimateError
from analytics.validate import SHAPES, read_runs

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
