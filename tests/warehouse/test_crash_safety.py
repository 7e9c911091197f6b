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
from datetime import date
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.dataset
import pytest
from conftest import ROOT, gpuprices, prefect_api, row_counts

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it

HOLD_LOAD = Path(__file__).with_name("hold_load.py")  # the CLI with every load held before its commit
DAY = "2026-04-20"  # a bundled day the session warehouse (from 2026-04-28) has not loaded
SOURCES = "ecb-fx,gcp,skypilot-lambda,vast"
MART_COUNT = "SELECT count(*) AS n FROM marts.gpu_prices_daily"
# the rows a source-run loads: offers, or exchange rates for ecb-fx (whichever load the hook held)
ROWS_OF_RUN = ("SELECT (SELECT count(*) FROM raw.offers WHERE run_id = $run) "
               "+ (SELECT count(*) FROM raw.fx_rates WHERE run_id = $run)")


def wait_for(path: Path, process: subprocess.Popen, timeout_s: float = 300) -> str:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"the run ended before holding its load: {process.stderr.read()[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError("the run never reached its load")
        time.sleep(0.2)
    return path.read_text()


@pytest.fixture(scope="module")
def killed_then_rerun(warehouse, tmp_path_factory) -> dict:
    """A copy of the offline warehouse; a run of a day it lacks is held inside its load transaction, readers are
    run meanwhile, the run is SIGKILLed, then the same run is started again. Returns what was seen."""
    tmp_path = tmp_path_factory.mktemp("crash")
    home = tmp_path / "home"
    shutil.copytree(warehouse, home, symlinks=True)
    seen = {"home": home, "before": row_counts(home)}
    held = tmp_path / "held-run-id"
    prefect_api()
    writer = subprocess.Popen(
        [sys.executable, str(HOLD_LOAD), str(held), "run", "--offline", "--since", DAY, "--until", DAY,
         "--sources", SOURCES, "--no-build"],
        cwd=ROOT, env={**os.environ, "GPUPRICES_HOME": str(home)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        seen["run_id"] = wait_for(held, writer)
        # The run holds the warehouse mid-transaction: DuckDB lets no other process open the file.
        seen["sql"] = gpuprices(home, "sql", MART_COUNT, "--json")
        seen["dashboard"] = gpuprices(home, "dashboard", "build")
        export = home / "export" / "gpu_prices_daily"
        seen["polars_rows"] = pl.scan_parquet(f"{export}/**/*.parquet", hive_partitioning=True).select(
            pl.len()).collect().item()
        seen["pyarrow_rows"] = pyarrow.dataset.dataset(export, format="parquet", partitioning="hive").count_rows()
    finally:
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait(timeout=60)
    seen["returncode"] = writer.returncode
    seen["after_kill"] = row_counts(home)
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        seen["killed_run_rows"] = connection.execute(ROWS_OF_RUN, {"run": seen["run_id"]}).fetchone()[0]
    gpuprices(home, "run", "--offline", "--since", DAY, "--until", DAY, "--sources", SOURCES, "--no-build")
    return seen


def test_readers_keep_working_while_a_run_holds_the_warehouse(killed_then_rerun):
    seen = killed_then_rerun
    mart_rows_before = seen["before"]["marts.gpu_prices_daily"]
    assert f'"n": {mart_rows_before}' in seen["sql"].stdout  # analysts' SQL: the snapshot, same answer
    assert "reading the snapshot published" in seen["sql"].stderr
    assert seen["dashboard"].returncode == 0 and (seen["home"] / "site" / "index.html").exists()
    assert seen["polars_rows"] == seen["pyarrow_rows"] == mart_rows_before  # other engines read the export


def test_sigkill_mid_load_leaves_no_partial_rows_and_the_next_run_completes(killed_then_rerun):
    seen = killed_then_rerun
    assert seen["returncode"] == -signal.SIGKILL
    # No partial rows: the held load had inserted its offers and its ingest_runs row, uncommitted.
    assert seen["after_kill"] == seen["before"]
    assert seen["killed_run_rows"] == 0
    # The next run completed: every source of the day loaded, the killed run's observation among them.
    with duckdb.connect(str(seen["home"] / "gpuprices.duckdb"), read_only=True) as connection:
        statuses = dict(connection.execute(
            "SELECT source, status FROM raw.ingest_runs WHERE cast(timezone('UTC', observed_at) AS date) = ?",
            [DAY]).fetchall())
        loaded = connection.execute(
            f"SELECT rows_loaded, ({ROWS_OF_RUN}) FROM raw.ingest_runs WHERE run_id = $run",
            {"run": seen["run_id"]}).fetchone()
    assert statuses == dict.fromkeys(SOURCES.split(","), "loaded")
    assert loaded[0] > 0 and loaded[0] == loaded[1]


def test_an_incremental_build_of_a_late_day_equals_a_full_rebuild(killed_then_rerun, tmp_path):
    """The rerun loaded a day older than the days already built (like a backfill or a late run): the build
    rewrites it incrementally, with the ECB week it affects and the buy signals of the days after it; the tables
    equal those of a full rebuild."""
    home = killed_then_rerun["home"]
    incremental = gpuprices(home, "build")
    assert "incremental" in incremental.stdout and "day(s) rewritten" in incremental.stdout, incremental.stdout
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        last = connection.execute(
            "SELECT full_refresh, rebuilt_days FROM meta.builds ORDER BY finished_at DESC LIMIT 1").fetchone()
        built_days = connection.execute("SELECT count(DISTINCT price_date) FROM marts.gpu_prices_daily").fetchone()[0]
        late_day_rows = connection.execute(
            "SELECT count(*) FROM marts.gpu_prices_daily WHERE price_date = ?", [date.fromisoformat(DAY)]).fetchone()[0]
    assert last[0] is False and 0 < last[1] < built_days + 8
    assert late_day_rows > 0
    kept = tmp_path / "after_incremental.duckdb"
    counts = keep_tables(home, kept)
    assert all(counts.values()), counts  # an empty table would compare equal to anything
    gpuprices(home, "build", "--full-refresh")
    assert differences(home, kept) == {}


# The tables compared, as (name, query): every mart the build rewrites day by day, and int_offers__daily's columns
COMPARED = {
    **{mart: f"SELECT * FROM marts.{mart}" for mart in (
        "gpu_prices_daily", "gpu_prices_by_source_daily", "price_performance_daily", "rent_vs_buy_daily",
        "training_cost_daily", "buy_signals_daily")},
    "int_offers__daily": "SELECT run_id, offer_id, pricing_type, includes_host_vm, gpu_id, price_usd, "
                         "price_per_gpu_hour_usd FROM intermediate.int_offers__daily",
}


def keep_tables(home: Path, copy: Path) -> dict[str, int]:
    """Each compared table as it is now, copied into the DuckDB file `copy`; returns their row counts."""
    with duckdb.connect(str(copy)) as connection:
        connection.execute(f"ATTACH '{home / 'gpuprices.duckdb'}' AS warehouse (READ_ONLY)")
        connection.execute("USE warehouse")  # the queries' schemas are the warehouse's
        for name, query in COMPARED.items():
            connection.execute(f'CREATE TABLE "{copy.stem}".main.{name} AS {query}')
        return {name: connection.execute(f'SELECT count(*) FROM "{copy.stem}".main.{name}').fetchone()[0]
                for name in COMPARED}


def differences(home: Path, copy: Path) -> dict[str, list]:
    """Per compared table, up to 5 rows that are in one of (the warehouse now, the kept copy) and not the other, as
    multisets (EXCEPT ALL both ways). Compared in DuckDB: fetching ~1.4M rows into Python took ~20 s a side. DuckDB
    holds NaN equal to NaN (a one-point trend slope), as the rows' repr did."""
    found = {}
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        connection.execute(f"ATTACH '{copy}' AS kept (READ_ONLY)")
        for name, query in COMPARED.items():
            rows = connection.execute(
                f"(SELECT 'now' AS side, * FROM ({query} EXCEPT ALL SELECT * FROM kept.{name}) LIMIT 5) UNION ALL "
                f"(SELECT 'kept' AS side, * FROM (SELECT * FROM kept.{name} EXCEPT ALL {query}) LIMIT 5)").fetchall()
            if rows:
                found[name] = rows
    return found
