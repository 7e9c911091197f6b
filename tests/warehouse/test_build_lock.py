"""The dbt build is a writer like every other: it holds the warehouse file from its plan to dbt's last node, so a
second build (or a load) waits for it (GPUPRICES_LOCK_WAIT_S) instead of failing at once with DuckDB's lock error;
a writer that waited its whole wait gives up with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import duckdb
import pytest
from conftest import ROOT

from flows.cli.main import main
from warehouse.store import db
from warehouse.store.build import build
from warehouse.store.paths import database_path

# Whether another process can open the warehouse file for writing right now: "free", or "held" on a lock conflict.
PROBE = """
import sys, duckdb
try:
    duckdb.connect(sys.argv[1]).close()
    print("free")
except duckdb.IOException as error:
    print("held" if "lock" in str(error).lower() else error)
"""


def probe_from_another_process() -> str:
    result = subprocess.run([sys.executable, "-c", PROBE, str(database_path())], capture_output=True, text=True,
                            timeout=120)
    return result.stdout.strip() or result.stderr[-500:]


def test_the_warehouse_stays_held_while_dbt_builds(home, monkeypatch):
    import dbt.cli.main

    seen = []

    class RecordingRunner:
        """dbt, as far as the build sees it: records whether another process could take the file meanwhile."""

        def invoke(self, args):
            seen.append(probe_from_another_process())
            return SimpleNamespace(success=True, exception=None)

    monkeypatch.setattr(dbt.cli.main, "dbtRunner", RecordingRunner)
    plan = build()
    assert seen == ["held"], seen  # another build would have waited, not taken the file between plan and dbt
    assert probe_from_another_process() == "free"  # released when the build ends
    with db.connect(read_only=True) as connection:  # the build is recorded, on the connection it held
        assert connection.execute("SELECT count(*) FROM meta.builds").fetchone()[0] == 1
    assert plan.full_refresh


def test_a_build_that_waits_past_the_lock_wait_gives_up_with_one_line(home, monkeypatch, capsys):
    database_path().parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(  # another writer that keeps the file: a run, a build, a load
        [sys.executable, "-c", "import sys, duckdb\nc = duckdb.connect(sys.argv[1])\nprint('held', flush=True)\n"
         "sys.stdin.readline()", str(database_path())],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("GPUPRICES_LOCK_WAIT_S", "0.5")
        assert main(["build"]) == 1
    finally:
        holder.communicate("\n", timeout=60)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gpuprices build: the warehouse "), err
    assert "GPUPRICES_LOCK_WAIT_S" in err and f"PID {holder.pid}" in err and "Traceback" not in err, err


@pytest.mark.slow  # two real dbt builds
def test_two_builds_at_once_both_finish_the_second_waits(tmp_path):
    env = {"GPUPRICES_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "flows.cli", "build"]
    builds = [subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(*process.communicate(timeout=900), process.returncode) for process in builds]
    for out, err, code in results:
        assert code == 0 and "Traceback" not in err and "lock" not in err.lower(), (code, out[-2000:], err[-3000:])
        assert "dbt build done" in out
    with duckdb.connect(str(tmp_path / "home" / "gpuprices.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM meta.builds").fetchone()[0] == 2
