"""Running the daily job on a Prefect work pool with several workers.

`daily-distributed` (flows/daily.py) splits the sources into shards and starts one `collect-shard` deployment run
per shard; the pool's workers pick them up, so shards run in parallel on different workers. Each source's task
carries one tag per host it fetches from (`host:raw.githubusercontent.com`), and a Prefect tag concurrency limit
on that tag caps how many sources hit that host at once across every worker (`gpuprices limits --apply`).
Inside a source, the HTTP client keeps its own per-host pacing. When every shard has finished, the parent builds,
exports and reports once.

Sources that share a host go to the same shard, so one worker paces that host by itself even without limits.
"""

from __future__ import annotations

from scrapers.base import Source

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
