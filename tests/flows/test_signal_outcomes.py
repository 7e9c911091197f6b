"""A SIGTERM that lands in a source's task just after its load committed (systemd's stop, `serve` stopping its run)
records one outcome for that source and observation: the load it committed, not a second, failed run beside it
(before, the task's crash was recorded as a failure too, and the run went on to report the source failed). The run
then stops, as the signal asks."""

from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest
from conftest import ROOT, prefect_api

pytestmark = pytest.mark.slow  # an offline run: a Prefect flow

SOURCE = "microcenter"


def test_a_signal_just_after_a_load_records_one_outcome_per_source_and_observation(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "GPUPRICES_HOME": str(home), "PREFECT_API_URL": prefect_api()}
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "flows" / "term_after_load.py"), SOURCE, "run", "--offline",
         "--sources", f"{SOURCE},ecb-fx", "--since", "2026-04-30", "--no-build"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0, result.stdout[-3000:]  # stopped by the signal, not run to its end
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        outcomes = connection.execute(
            "SELECT source, observed_at, list(status ORDER BY status) FROM raw.ingest_runs GROUP BY ALL").fetchall()
    assert outcomes, (result.stdout[-3000:], result.stderr[-3000:])
    assert all(len(statuses) == 1 for _, _, statuses in outcomes), outcomes
    assert [statuses for source, _, statuses in outcomes if source == SOURCE] == [["loaded"]], outcomes
