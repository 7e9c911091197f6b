"""Writers that overlap lose nothing: a load's place in the build's order is taken when it commits, not when its work
ended. A reader holds the warehouse file; a one-row import (another process) finishes its work and waits for the
writer (its wait made to last by tests/warehouse/hold_writer.py until the test lets it go, so the order is the
test's, not a race); a second writer takes the file first, loads a file of its own and builds; the first import
commits after that build. The next build must still rewrite the first import's day (before commit_seq, its
finished_at was older than the second build's mark, and no build ever covered it: "0 day(s) changed").

dbt is replaced by a runner that only says it succeeded (as tests/warehouse/test_build_lock.py does): what is
checked is the build's plan, the days it rewrites, and that the build records its mark."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import date
from types import SimpleNamespace

import duckdb
import pytest
from conftest import ROOT

from warehouse.store import db
from warehouse.store.build import build
from warehouse.ingest.imports import import_prices
from warehouse.store.paths import database_path

HEADER = "observed_at,gpu,market,price,currency,provider\n"


@pytest.fixture
def fake_dbt(monkeypatch):
    import dbt.cli.main

    class SucceedingRunner:
        def invoke(self, args):
            return SimpleNamespace(success=True, exception=None)

    monkeypatch.setattr(dbt.cli.main, "dbtRunner", SucceedingRunner)


def write_history(path, day: str, price: str) -> None:
    path.write_text(HEADER + f"{day}T12:00:00Z,Tesla T4,retail_new,{price},USD,shop\n")


def wait_for(condition, what: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_load_that_commits_after_a_later_writers_build_is_in_the_next_build(home, tmp_path, fake_dbt):
    first = tmp_path / "first.csv"
    write_history(first, "2025-01-10", "1500")
    import_prices(first, "seed-history")
    assert build().full_refresh  # the warehouse's first build: its mark is set

    reader = duckdb.connect(str(database_path()), read_only=True)  # a long `gpuprices sql` query
    one_row = tmp_path / "one_row.csv"
    write_history(one_row, "2025-03-01", "1400")
    go = tmp_path / "go"
    writer_a = subprocess.Popen(  # the one-row import: checks, lands, then waits for the writer behind the reader
        [sys.executable, str(ROOT / "tests" / "warehouse" / "hold_writer.py"), str(go), "import", "prices",
         str(one_row), "--source", "early-history", "--no-build"], cwd=ROOT,
        env={**os.environ, "GPUPRICES_HOME": str(home)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (tmp_path / "go.waiting").exists() or writer_a.poll() is not None, "the import to wait")
        assert writer_a.poll() is None, writer_a.communicate()
        assert any((home / "landing" / "early-history").rglob("manifest.json"))  # checked and landed: its work done
        reader.close()
        # the second writer takes the file first, loads a larger file and builds, holding the file throughout
        with db.writer_session():
            later = tmp_path / "later.csv"
            later.write_text(HEADER + "".join(f"2025-04-{day:02d}T12:00:00Z,Tesla T4,retail_new,{1300 + day},USD,"
                                              "shop\n" for day in range(1, 6)))
            assert import_prices(later, "later-history").days == 5
            second = build()
            assert not second.full_refresh and date(2025, 4, 1) in second.rebuild_dates
            assert date(2025, 3, 1) not in second.rebuild_dates  # the waiting import has not committed yet
        go.write_text("go")
        out, err = writer_a.communicate(timeout=180)
    finally:
        if writer_a.poll() is None:
            writer_a.kill()
            writer_a.wait()
    assert writer_a.returncode == 0, (out, err[-3000:])
    assert "1 loaded as early-history" in out, out

    third = build()
    assert not third.full_refresh
    assert date(2025, 3, 1) in third.rebuild_dates, third  # the late commit is new to this build
    with db.connect(read_only=True) as connection:
        (early_seq, early_finished), = connection.execute(
            "SELECT commit_seq, finished_at FROM raw.ingest_runs WHERE source = 'early-history'").fetchall()
        later_finished, later_seq = connection.execute(
            "SELECT max(finished_at), max(commit_seq) FROM raw.ingest_runs WHERE source = 'later-history'").fetchone()
        mark = connection.execute("SELECT max(commit_seq_through) FROM meta.builds").fetchone()[0]
    # the import's work ended first (finished_at is to the second), but it committed last; the third build covered it
    assert early_finished <= later_finished and early_seq > later_seq and mark == early_seq

    fourth = build()
    assert fourth.rebuild_dates == [], fourth  # and once built, it is not new again
