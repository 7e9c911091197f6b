"""Spreading the daily run over a work pool: shards keep sources that share a host together, cover every source
once, and each host gets one tag concurrency limit; the deployments in prefect.yaml point at real flows."""

from __future__ import annotations

import importlib

import yaml
from conftest import ROOT  # noqa: E402

from flows.scale_out import concurrency_limits, host_tags, shard_sources
from scrapers.registry import all_sources


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
