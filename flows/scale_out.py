"""Running the daily job on a Prefect work pool with several workers.

`daily-distributed` (flows/daily.py) splits the sources into shards and starts one `collect-shard` deployment run
per shard; the pool's workers pick them up, so shards run in parallel on different workers. Each source's task
carries one tag per host it fetches from (`host:raw.githubusercontent.com`), and a Prefect tag concurrency limit
on that tag caps how many sources hit that host at once across every worker (`gpuprices limits --apply`).
Inside a source, the HTTP client keeps its own per-host pacing. When every shard has finished, the parent builds,
exports and reports once.

Sources that share a host go to the same shard, so one worker paces that host by itself even without limits.

A parent that stops waiting for a shard (`shard_timeout_s`) cancels it before it reports that shard's sources
failed, so no shard loads after the parent has reported and built; and it reports one entry per source, as this
run left it, however many runs of the same observation raw.ingest_runs holds.
"""

from __future__ import annotations

from datetime import datetime

from scrapers.base import Source
from warehouse.ingest.load import IngestRecord

DEFAULT_PER_HOST_LIMIT = 1  # sources fetching from one host at the same time, across all workers


def host_tags(source: Source) -> list[str]:
    return [f"host:{host}" for host in source.hosts]


def shard_sources(sources: dict[str, Source], shards: int) -> list[list[str]]:
    """Sources split into at most `shards` groups of similar size; sources sharing a host stay together."""
    groups: list[set[str]] = []
    for source_id, source in sorted(sources.items()):
        hosts = set(source.hosts)
        joined = [group for group in groups if any(hosts & set(sources[other].hosts) for other in group)]
        merged = {source_id}.union(*joined)
        groups = [group for group in groups if group not in joined] + [merged]
    bins: list[list[str]] = [[] for _ in range(max(1, min(shards, len(groups))))]
    for group in sorted(groups, key=lambda g: (-len(g), sorted(g))):  # largest first into the emptiest shard
        min(bins, key=len).extend(sorted(group))
    return [sorted(shard) for shard in bins if shard]


def concurrency_limits(sources: dict[str, Source], per_host: int = DEFAULT_PER_HOST_LIMIT) -> dict[str, int]:
    """The Prefect tag concurrency limits that pace each host across workers."""
    return {tag: per_host for source in sources.values() for tag in host_tags(source)}


async def apply_limits(limits: dict[str, int]) -> None:
    """Create or update each tag concurrency limit on the Prefect server (PREFECT_API_URL)."""
    from prefect.client.orchestration import get_client

    async with get_client() as client:
        for tag, limit in sorted(limits.items()):
            await client.create_concurrency_limit(tag=tag, concurrency_limit=limit)


def this_runs_records(source_ids: list[str], stored: list[IngestRecord], started_at: datetime,
                      completed: set[str]) -> tuple[list[IngestRecord], list[str]]:
    """The parent's report: one record per source, as this run left it, from the raw.ingest_runs rows of its
    observation time (`stored`: every run of that observation, a rerun's and the runs' before it). Per source the
    latest row counts: one this run wrote (finished at or after `started_at`) stands; a load by an earlier run is
    this run's `already_loaded` (what a rerun in one process says); an earlier failure stands when the source's
    shard completed (a failure stored again has the same run id, so it is stored once). Returns the records and the
    sources whose shard did not finish (`completed`: the sources of the shards that did)."""
    def recency(record: IngestRecord):  # a load and a failure finished in the same second: the load
        return record.finished_at, record.status == "loaded"

    latest: dict[str, IngestRecord] = {}
    for record in stored:
        if record.source not in latest or recency(record) > recency(latest[record.source]):
            latest[record.source] = record
    records, unfinished = [], []
    for source_id in source_ids:
        record = latest.get(source_id)
        if record is not None and record.finished_at < started_at:
            if record.status == "loaded":
                record.status, record.rows_loaded, record.rows_rejected = "already_loaded", 0, 0
                record.started_at = record.finished_at  # nothing was done for it in this run
            elif source_id not in completed:
                record = None
        if record is None:
            unfinished.append(source_id)
        else:
            records.append(record)
    return records, unfinished
