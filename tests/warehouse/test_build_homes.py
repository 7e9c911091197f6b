"""Builds of two data homes in one process each write their own warehouse: dbt sees every home's database by the
same name (warehouse/store/build.py runs it from the database's folder, so its saved parse serves every home), and
dbt-duckdb, which keeps one database open per process while the profile is unchanged, must not carry the first
home's database into the second home's build. And a view model's build replaces whatever relation holds its name."""

from __future__ import annotations

import asyncio

import pytest

from scrapers.http import HttpClient, HttpSettings
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)
from warehouse.store import db
from warehouse.store.build import build
from warehouse.ingest.pipeline import fetch_and_land, ingest
from warehouse.store.progress import utc_now

pytestmark = pytest.mark.slow  # dbt builds


def load_one_source(source_id: str) -> None:
    template_day = replay_plan(load_recordings())[-1]
    source = all_sources({source_id: template_day.overrides.get(source_id) or {}})[source_id]

    async def one_run(server: RecordedServer) -> None:
        settings = HttpSettings(**{**OFFLINE_HTTP.__dict__, "max_attempts": 1})
        async with HttpClient(settings, rewrite=rewrite_to(server.base_url)) as client:
            run = await fetch_and_land(source, client, template_day.observed_at, "synthetic")
            assert ingest(source, run, "test", utc_now()).status == "loaded"

    with RecordedServer() as server, placeholder_credentials([source]):
        server.routes = template_day.routes
        with db.writer_session():
            asyncio.run(one_run(server))


def providers_in_marts() -> set[str]:
    with db.connect() as connection:
        return {row[0] for row in connection.execute(
            "SELECT DISTINCT provider FROM marts.gpu_prices_by_source_daily").fetchall()}


def test_two_homes_built_in_one_process_each_hold_their_own_marts(tmp_path, monkeypatch):
    for home, source_id, provider in ((tmp_path / "a", "lambda", "lambda"), (tmp_path / "b", "vast", "vast")):
        monkeypatch.setenv("GPUPRICES_HOME", str(home))
        load_one_source(source_id)
        build()
        assert providers_in_marts() == {provider}, home
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "a"))
    assert providers_in_marts() == {"lambda"}  # the second build left the first home alone


def test_a_view_model_replaces_a_table_of_its_name_and_stays_a_view_when_built_again(tmp_path, monkeypatch):
    """Views are built in one statement (models/macros/materialization_view.sql). `create or replace view` cannot
    replace a table, so a relation of another type under a view model's name (a model that was a table) is dropped
    first."""
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    load_one_source("lambda")
    with db.connect() as connection:
        connection.execute("CREATE SCHEMA IF NOT EXISTS monitoring")
        connection.execute("CREATE TABLE monitoring.source_runs AS SELECT 'left over' AS source")
    build()
    build(full_refresh=True)
    with db.connect() as connection:
        kinds = dict(connection.execute(
            "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'monitoring' "
            "AND table_name IN ('source_runs', 'source_freshness')").fetchall())
        sources = {row[0] for row in connection.execute(
            "SELECT DISTINCT source FROM monitoring.source_runs").fetchall()}
    assert kinds == {"source_runs": "VIEW", "source_freshness": "VIEW"} and sources == {"lambda"}
