"""Spreading the daily run over a work pool: shards keep sources that share a host together, cover every source
once, and each host gets one tag concurrency limit; the deployments in prefect.yaml point at real flows."""

from __future__ import annotations

import asyncio
import importlib
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest
import yaml
from conftest import ROOT, prefect_api
from prefect import flow
from prefect.client.orchestration import get_client
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.states import Cancelled, Completed, Pending, Running, Scheduled

import flows.daily as daily_module
from flows.daily import stop_shard_runs
from flows.scale_out import concurrency_limits, host_tags, shard_sources, this_runs_records
from scrapers.registry import all_sources
from warehouse.store import db
from warehouse.ingest.load import IngestRecord, record_without_landing
from warehouse.store.progress import utc_now


def test_shards_cover_every_source_once_and_keep_a_host_in_one_shard():
    sources = all_sources()
    shards = shard_sources(sources, 3)
    assert len(shards) == 3
    placed = [source for shard in shards for source in shard]
    assert sorted(placed) == sorted(sources)  # every source, once
    shard_of = {source: number for number, shard in enumerate(shards) for source in shard}
    for a in sources:
        for b in sources:
            if set(sources[a].hosts) & set(sources[b].hosts):
                assert shard_of[a] == shard_of[b], (a, b)
    # the five SkyPilot catalogs share raw.githubusercontent.com: one shard
    assert len({shard_of[s] for s in sources if s.startswith("skypilot-")}) == 1


def test_one_shard_or_more_shards_than_sources():
    sources = all_sources()
    assert shard_sources(sources, 1) == [sorted(sources)]
    assert sorted(x for shard in shard_sources(sources, 100) for x in shard) == sorted(sources)


def test_every_host_gets_one_limit_and_every_task_its_host_tags():
    sources = all_sources()
    limits = concurrency_limits(sources, per_host=2)
    assert limits["host:raw.githubusercontent.com"] == 2
    assert set(limits) == {tag for source in sources.values() for tag in host_tags(source)}
    assert host_tags(sources["vast"]) == ["host:console.vast.ai"]


def test_prefect_yaml_deployments_point_at_flows_that_exist():
    config = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    names = {deployment["name"] for deployment in config["deployments"]}
    assert {"daily", "daily-distributed", "collect-shard"} <= names
    for deployment in config["deployments"]:
        module_path, function = deployment["entrypoint"].split(":")
        module = importlib.import_module(module_path.removesuffix(".py").replace("/", "."))
        flow = getattr(module, function)
        assert hasattr(flow, "fn"), deployment["entrypoint"]  # a Prefect flow
        assert set(deployment.get("parameters", {})) <= set(flow.parameters.properties), deployment["name"]


# -- the parent of a distributed run: what it does with a shard it stopped waiting for, and what it reports --------
def ingest_record(source: str, status: str, observed_at, finished_at, run: str = "a") -> IngestRecord:
    return IngestRecord(run_id=f"{source}-{run}-{status}", parser_version=1, source=source, status=status,
                        observed_at=observed_at, started_at=finished_at - timedelta(seconds=5),
                        finished_at=finished_at, rows_loaded=10 if status == "loaded" else 0,
                        error=None if status == "loaded" else "RuntimeError: its shard did not finish")


def test_a_rerun_reports_one_entry_per_source_as_this_run_left_it():
    observed = datetime(2026, 4, 30, 23, 0, tzinfo=UTC)
    first_run, rerun = datetime(2026, 11, 26, 1, 0, tzinfo=UTC), datetime(2026, 11, 26, 2, 0, tzinfo=UTC)
    stored = [  # raw.ingest_runs of the observation after the first run and the rerun
        ingest_record("a", "loaded", observed, first_run + timedelta(minutes=1)),   # loaded by the first run
        ingest_record("b", "failed", observed, first_run + timedelta(minutes=2)),   # its shard died...
        ingest_record("b", "loaded", observed, rerun + timedelta(minutes=1), "b"),  # ...the rerun loaded it
        ingest_record("c", "failed", observed, first_run + timedelta(minutes=2)),   # failed, and its shard completed
        ingest_record("d", "failed", observed, first_run + timedelta(minutes=2)),   # failed, its shard died again
    ]
    records, unfinished = this_runs_records(["a", "b", "c", "d", "e"], stored, rerun, completed={"a", "b", "c"})
    assert [(r.source, r.status) for r in records] == [("a", "already_loaded"), ("b", "loaded"), ("c", "failed")]
    assert records[0].rows_loaded == 0 and records[0].row()["duration_s"] == 0
    assert unfinished == ["d", "e"]  # e: never written, its shard never ran


class FakeShardRun:
    def __init__(self, state):
        self.id, self.state = uuid4(), state


@pytest.fixture
def pool(monkeypatch):
    """run_deployment and the cancel call of a distributed run's parent, faked: each shard either loads its
    sources and completes, or is still waiting for a worker when the parent stops waiting (`stuck`)."""
    seen = {"stopped": [], "stuck": set()}

    async def run_deployment(name, timeout, parameters):
        observed_at = datetime.fromisoformat(parameters["observed_at"])
        if set(parameters["sources"]) & seen["stuck"]:
            return FakeShardRun(Pending(name="Submitting"))
        with db.connect() as connection:
            loaded = {source for (source,) in connection.execute(
                "SELECT source FROM raw.ingest_runs WHERE observed_at = ? AND status = 'loaded'", [observed_at]
            ).fetchall()}
            for source in set(parameters["sources"]) - loaded:  # a loaded source-run is not written again
                record_without_landing(connection, ingest_record(source, "loaded", observed_at, daily_module.utc_now()))
        return FakeShardRun(Completed())

    async def stop(flow_runs):
        seen["stopped"].extend(flow_runs)
        return [Cancelled() for _ in flow_runs]

    monkeypatch.setattr(daily_module, "run_deployment", run_deployment)
    monkeypatch.setattr(daily_module, "stop_shard_runs", stop)
    return seen


def test_the_parent_cancels_a_shard_it_gave_up_on_and_a_rerun_reports_each_source_once(home, pool, monkeypatch):
    day = "2026-04-30"  # a bundled day, as `gpuprices bench scale-out` runs it
    plan = shard_sources({s: all_sources()[s] for s in daily_module._bundled_day(day).sources}, 3)
    pool["stuck"] = set(plan[0])
    first = asyncio.run(daily_module.daily_distributed.fn(shards=3, build=False, export=False, offline_day=day,
                                                         offline_base_url="http://127.0.0.1:9"))
    assert [run.state.name for run in pool["stopped"]] == ["Submitting"]  # cancelled, so it never loads later
    failed = [entry for entry in first["sources"] if entry["status"] == "failed"]
    assert sorted(entry["source"] for entry in failed) == sorted(plan[0])
    # the time the parent spent on them, not the time since the bundled observation day (months)
    assert all(0 <= entry["duration_s"] < 3600 for entry in failed), failed[:2]

    pool["stuck"] = set()  # the rerun, an hour later: every shard completes
    an_hour_later = utc_now() + timedelta(hours=1)
    monkeypatch.setattr(daily_module, "utc_now", lambda: an_hour_later)
    second = asyncio.run(daily_module.daily_distributed.fn(shards=3, build=False, export=False, offline_day=day,
                                                          offline_base_url="http://127.0.0.1:9"))
    sources = [entry["source"] for entry in second["sources"]]
    assert sorted(sources) == sorted(s for shard in plan for s in shard)  # each source once
    statuses = {entry["source"]: entry["status"] for entry in second["sources"]}
    assert {statuses[s] for s in plan[0]} == {"loaded"}  # the failures of the first run are not listed beside
    assert {statuses[s] for shard in plan[1:] for s in shard} == {"already_loaded"}
    assert len(pool["stopped"]) == 1


@pytest.mark.slow  # a Prefect server
def test_stopping_shard_runs_cancels_one_not_started_and_asks_a_running_ones_worker():
    @flow(name="shard-stand-in")
    def stand_in():
        pass

    async def scenario():
        async with get_client() as client:
            waiting = await client.create_flow_run(stand_in, state=Scheduled())
            running = await client.create_flow_run(stand_in, state=Scheduled())
            await client.set_flow_run_state(running.id, Running(), force=True)  # a worker that died meanwhile
        return await stop_shard_runs([waiting, running], wait_s=2)

    with temporary_settings(updates={PREFECT_API_URL: prefect_api()}):
        states = asyncio.run(scenario())
    assert [state.type.value for state in states] == ["CANCELLED", "CANCELLING"]
