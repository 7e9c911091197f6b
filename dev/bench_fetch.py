"""`gpuprices bench fetch`: how close the whole cloud fetch comes to the limit set by politeness and latency.

Every cloud source fetches the last bundled replay day from the local recorded-response server, which delays
each response by `latency`; the HTTP client keeps its real per-host rules (at most `concurrency` requests in
flight per host, starts `interval` seconds apart). No schedule can beat, for each host h with n_h requests of
which the longest dependent chain (pagination, a token before the data) is c_h:

    LB_h = max( (n_h - 1) * interval + latency,          # starts spaced `interval` apart
                ceil(n_h / concurrency) * latency,        # at most `concurrency` in flight
                (c_h - 1) * max(latency, interval) + latency )  # a page needs the previous page's answer

and hosts are independent, so the lower bound of the whole fetch is max_h LB_h. We print it, the measured wall
time and their ratio (the target is <= 1.3).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time
from collections import Counter
from dataclasses import dataclass

from scrapers.http import HttpClient, HttpSettings
from scrapers.registry import all_sources
from scrapers.replay import (
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)

# Sources whose requests depend on each other: every page needs the previous page's link or token.
PAGINATED = {"azure", "gcp"}
TOKEN_FIRST = {"verda"}  # one token request, then the data requests in parallel


@dataclass
class FetchBench:
    latency_s: float
    interval_s: float
    concurrency: int
    wall_s: float
    lower_bound_s: float
    requests: int
    hosts: int
    slowest_host: str

    @property
    def ratio(self) -> float:
        return self.wall_s / self.lower_bound_s

    def report(self) -> str:
        return (
            f"bench fetch: {self.requests} requests to {self.hosts} hosts, latency {self.latency_s * 1000:.0f} ms, "
            f"per-host interval {self.interval_s * 1000:.0f} ms, per-host concurrency {self.concurrency}\n"
            f"  lower bound {self.lower_bound_s:.2f} s (host {self.slowest_host})\n"
            f"  measured    {self.wall_s:.2f} s\n"
            f"  ratio       {self.ratio:.3f}  (target <= 1.3)"
        )


def lower_bound(requests_per_host: Counter, chain_per_host: dict[str, int], latency: float, interval: float,
                concurrency: int) -> tuple[float, str]:
    bounds = {}
    for host, count in requests_per_host.items():
        chain = chain_per_host.get(host, 1)
        bounds[host] = max(
            (count - 1) * interval + latency,
            math.ceil(count / concurrency) * latency,
            (chain - 1) * max(latency, interval) + latency,
        )
    host = max(bounds, key=bounds.get)
    return bounds[host], host


async def _fetch_all(sources, client) -> None:
    results = await asyncio.gather(*(source.fetch(client) for source in sources), return_exceptions=True)
    failures = [(s.id, r) for s, r in zip(sources, results, strict=True) if isinstance(r, BaseException)]
    if failures:
        raise RuntimeError(f"bench fetch: sources failed: {failures}")


def bench_fetch(latency_s: float = 0.2, interval_s: float = 0.25, concurrency: int = 2) -> FetchBench:
    day = replay_plan(load_recordings())[-1]
    sources = [all_sources({sid: day.overrides.get(sid, {})})[sid] for sid in day.sources]
    settings = HttpSettings(per_host_min_interval_s=interval_s, per_host_concurrency=concurrency)
    with RecordedServer() as server, placeholder_credentials(sources):
        server.routes, server.latency_s = day.routes, latency_s

        async def run() -> float:
            async with HttpClient(settings, rewrite=rewrite_to(server.base_url)) as client:
                started = time.perf_counter()
                await _fetch_all(sources, client)
                return time.perf_counter() - started

        wall = asyncio.run(run())
        hosts = Counter(request.split("/", 1)[0] for request in server.requests)
    chains: dict[str, int] = {}
    for source in sources:
        host_requests = sum(hosts[h] for h in source.hosts if h in hosts)
        chain = host_requests if source.id in PAGINATED else 2 if source.id in TOKEN_FIRST else 1
        for host in source.hosts:
            chains[host] = max(chains.get(host, 1), chain)
    bound, slowest = lower_bound(hosts, chains, latency_s, interval_s, concurrency)
    return FetchBench(latency_s, interval_s, concurrency, wall, bound, len(server.requests), len(hosts), slowest)


def main(argv: list[str] | None = None) -> int:
    """`gpuprices bench fetch [options]` runs this (python -m dev.bench_fetch)."""
    parser = argparse.ArgumentParser(prog="gpuprices bench fetch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", type=float, default=200.0, help="injected latency per response")
    parser.add_argument("--interval-ms", type=float, default=250.0, help="per-host minimum interval between starts")
    parser.add_argument("--concurrency", type=int, default=2, help="per-host requests in flight")
    args = parser.parse_args(argv)
    print(bench_fetch(args.latency_ms / 1000, args.interval_ms / 1000, args.concurrency).report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
