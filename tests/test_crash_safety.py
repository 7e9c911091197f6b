"""A run killed with SIGKILL in the middle of a load, on a copy of the offline warehouse: while the run holds the
warehouse, analysts' SQL, the dashboard build and other engines reading the Parquet export keep working; after the
kill no partial row is left; the next run completes and loads what the killed one could not."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.dataset

from conftest import ROOT, gpuprices, row_counts

DAY = "2026-04-20"  # a bundled day the session warehouse (from 2026-04-28) has not loaded
SOURCES = "gcp,skypilot-lambda,vast"
MART_COUNT = "SELECT count(*) AS n FROM marts.gpu_prices_daily"


def wait_for(path: Path, process: subprocess.Popen, timeout_s: float = 300) -> str:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"the run ended before holding its load: {process.stderr.read()[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError("the run never reached its load")
        time.sleep(0.2)
    return path.read_text()


def test_sigkill_mid_load_leaves_no_partial_rows_readers_keep_working_and_the_next_run_completes(warehouse, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(warehouse, home, symlinks=True)
    before = row_counts(home)
    mart_rows = before["marts.gpu_prices_daily"]
    held = tmp_path / "held-run-id"
    writer = subprocess.Popen(
        [sys.executable, "-m", "flows.cli", "run", "--offline", "--since", DAY, "--until", DAY,
         "--sources", SOURCES, "--no-build"],
        cwd=ROOT, env={**os.environ, "GPUPRICES_HOME": str(home), "GPUPRICES_FAULT_HOLD_LOAD": str(held)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        run_id = wait_for(held, writer)
        # The run holds the warehouse mid-transaction: DuckDB lets no other process open the file.
        reader = gpuprices(home, "sql", MART_COUNT, "--json")
        assert f'"n": {mart_rows}' in reader.stdout
        assert "reading the snapshot published" in reader.stderr
        site = gpuprices(home, "dashboard", "build")
        assert site.returncode == 0 and (home / "site" / "index.html").exists()
        export = home / "export" / "gpu_prices_daily"
        assert pl.scan_parquet(f"{export}/**/*.parquet", hive_partitioning=True).select(pl.len()).collect().item() \
            == mart_rows
        assert pyarrow.dataset.dataset(export, format="parquet", partitioning="hive").count_rows() == mart_rows
    finally:
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait(timeout=60)
    assert writer.returncode == -signal.SIGKILL

    # No partial rows: the held load had inserted its offers and its ingest_runs row, uncommitted.
    assert row_counts(home) == before
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM raw.offers WHERE run_id = ?", [run_id]).fetchone() == (0,)

    # The next run completes: every source of the day loaded, the killed run's observation among them.
    gpuprices(home, "run", "--offline", "--since", DAY, "--until", DAY, "--sources", SOURCES, "--no-build")
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        statuses = dict(connection.execute(
            "SELECT source, status FROM raw.ingest_runs WHERE cast(timezone('UTC', observed_at) AS date) = ?", [DAY]).fetchall())
        loaded = connection.execute(
            "SELECT offers_loaded, (SELECT count(*) FROM raw.offers WHERE run_id = $run) FROM raw.ingest_runs "
            "WHERE run_id = $run", {"run": run_id}).fetchone()
    assert statuses == dict.fromkeys(SOURCES.split(","), "loaded")
    assert loaded[0] > 0 and loaded[0] == loaded[1]
