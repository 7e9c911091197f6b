"""One source failing never stops the others (Prefect tasks of the real flow module, real local HTTP)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import prefect_api
from prefect import flow
from prefect.settings import PREFECT_API_URL, temporary_settings

from flows.daily import collect_all
from scrapers.replay import RecordedServer, load_recordings, replay_plan
from warehouse.store import db

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it


def test_a_failing_source_is_recorded_and_the_others_load(home):
    day = next(d for d in replay_plan(load_recordings()) if "skypilot-vast" in d.sources)
    routes = {route: file for route, file in day.routes.items() if "vast" not in file}  # vast now 404s

    @flow(name="isolation-test")
    async def one_day(base_url: str):  # the real tasks, inside a flow as the daily flows run them
        return await collect_all(["skypilot-vast", "skypilot-lambda"], day.observed_at, "test", day.data_origins,
                                 day.overrides, base_url)

    with RecordedServer() as server, temporary_settings({PREFECT_API_URL: prefect_api()}):
        server.routes = routes
        records = asyncio.run(one_day(server.base_url))
    statuses = {r.source: r.status for r in records}
    assert statuses == {"skypilot-vast": "failed", "skypilot-lambda": "loaded"}
    with db.connect() as connection:
        runs = dict(connection.execute("SELECT source, error FROM raw.ingest_runs").fetchall())
        sources_with_offers = connection.execute("SELECT DISTINCT source FROM raw.offers").fetchall()
    assert "HTTP 404" in runs["skypilot-vast"]
    assert sources_with_offers == [("skypilot-lambda",)]
