"""`gpuprices serve` runs the daily job on its schedule with nothing else set up: no Prefect server, no
PREFECT_API_URL (Prefect's own scheduling would log "Cannot schedule flows on an ephemeral server" and never run).
A run fires on a schedule of seconds and loads (the offline run of one bundled day); SIGTERM stops serve."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime

import duckdb
import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow  # a Prefect flow on Prefect's temporary server

DAY = "2026-05-01"
SOURCES = "lambda,skypilot-vast"


def bare_environment(tmp_path) -> dict:
    """A fresh data home and Prefect home, and no Prefect server (the session's is for `gpuprices run` tests)."""
    env = {name: value for name, value in os.environ.items() if name != "PREFECT_API_URL"}
    return {**env, "GPUPRICES_HOME": str(tmp_path / "home"), "PREFECT_HOME": str(tmp_path / "prefect")}


def test_serve_fires_a_run_on_a_schedule_of_seconds_and_it_loads(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "flows.cli", "serve", "--every", "3s", "--runs", "1",
         "--offline", "--since", DAY, "--sources", SOURCES, "--no-build"],
        cwd=ROOT, env=bare_environment(tmp_path), capture_output=True, text=True, timeout=900)
    console = result.stdout + result.stderr
    assert result.returncode == 0, console[-3000:]
    assert "Cannot schedule flows" not in console and "Traceback" not in console, console[-3000:]
    scheduled = re.search(r"serve: next run at (\S+ \S+) UTC \(every 3 s\)", console)
    assert scheduled, console[-3000:]
    assert "serve: run 1 starting: gpuprices run --offline" in console
    assert "serve: run 1 finished, exit status 0: done" in console
    with duckdb.connect(str(tmp_path / "home" / "gpuprices.duckdb"), read_only=True) as connection:
        runs = connection.execute("SELECT source, status, trigger, started_at FROM raw.ingest_runs "
                                  "ORDER BY source").fetchall()
        offers = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0]
    assert [(source, status, trigger) for source, status, trigger, _ in runs] == [
        ("lambda", "loaded", "offline"), ("skypilot-vast", "loaded", "offline")]
    assert offers > 0
    fired_at = datetime.fromisoformat(scheduled.group(1)).replace(tzinfo=UTC)
    assert all(started_at >= fired_at for *_, started_at in runs)  # the run came at its time, not before


def test_sigterm_stops_serve_between_runs(tmp_path):
    serve = subprocess.Popen([sys.executable, "-m", "flows.cli", "serve", "--cron", "0 6 * * *"], cwd=ROOT,
                             env=bare_environment(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = serve.stderr.readline()
        assert "serve: next run at " in first and "06:00:00 UTC (cron '0 6 * * *' UTC)" in first, first
        serve.send_signal(signal.SIGTERM)
        out, err = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            serve.kill()
    assert serve.returncode == 0 and "serve: stopped" in err and "Traceback" not in err, err
