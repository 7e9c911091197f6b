"""The build's DuckDB memory bound (warehouse/store/db.py memory_bound): dbt's nodes run under it, a build that runs out of
memory under it runs again with DuckDB's own limit, and the limit is DuckDB's own again after the build."""

from __future__ import annotations

from types import SimpleNamespace

import duckdb

import warehouse.store.db
from warehouse.store import db
from warehouse.store.build import build
from warehouse.store.db import memory_bound_mb
from warehouse.store.paths import database_target


def _limit_seen_by_another_connection() -> str:
    """What a connection dbt opens in this process sees (the same DuckDB instance as the build's)."""
    with duckdb.connect(database_target()) as connection:
        return connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]


def test_dbt_runs_under_the_bound_and_again_without_it_when_it_runs_out(home, monkeypatch):
    seen = []

    class OutOfMemoryOnce:
        def invoke(self, args):
            seen.append(_limit_seen_by_another_connection())
            if len(seen) == 1:
                node = SimpleNamespace(message="Out of Memory Error: failed to allocate data of size 32.0 KiB")
                return SimpleNamespace(success=False, exception=None, result=SimpleNamespace(results=[node]))
            return SimpleNamespace(success=True, exception=None, result=SimpleNamespace(results=[]))

    monkeypatch.setattr("dbt.cli.main.dbtRunner", OutOfMemoryOnce)
    build()
    with db.connect() as connection:
        default = connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert seen == ["183.1 MiB", default] and default != "183.1 MiB"  # 192 MB, in DuckDB's words; then its own


def test_a_build_that_fails_otherwise_is_not_run_again(home, monkeypatch):
    calls = []

    class Failing:
        def invoke(self, args):
            calls.append(args)
            node = SimpleNamespace(message="Binder Error: column x not found")
            return SimpleNamespace(success=False, exception=None, result=SimpleNamespace(results=[node]))

    monkeypatch.setattr("dbt.cli.main.dbtRunner", Failing)
    try:
        build()
    except RuntimeError as error:
        assert "dbt build failed" in str(error)
    assert len(calls) == 1


def test_the_bound_grows_with_the_offers_from_a_floor_and_stops_at_a_large_warehouse():
    assert memory_bound_mb(0) == memory_bound_mb(300_000) == 192  # a build of 300,000 offers runs in 128 MB
    assert memory_bound_mb(1_000_000) == 488 and memory_bound_mb(2_000_000) == 976  # 512 bytes an offer
    assert memory_bound_mb(2_000_001) is None  # DuckDB's own: a full rebuild of 18M offers was 20% slower bounded


def test_a_large_warehouse_builds_with_duckdbs_own_limit(home, monkeypatch):
    seen = []

    class Recording:
        def invoke(self, args):
            seen.append(_limit_seen_by_another_connection())
            return SimpleNamespace(success=True, exception=None, result=SimpleNamespace(results=[]))

    monkeypatch.setattr("dbt.cli.main.dbtRunner", Recording)
    monkeypatch.setattr(warehouse.store.db, "MEMORY_BOUND_UP_TO_OFFERS", -1)  # any warehouse is large
    build()
    with db.connect() as connection:
        assert seen == [connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]]
