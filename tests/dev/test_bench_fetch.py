"""The fetch benchmark's lower bound (its arithmetic) and one real run of it (figures printed, not asserted)."""

from __future__ import annotations

from collections import Counter

import pytest

from dev.bench_fetch import bench_fetch, lower_bound


@pytest.mark.parametrize(
    ("requests", "chain", "latency", "interval", "concurrency", "expected"),
    [
        (10, 1, 0.1, 0.5, 2, 9 * 0.5 + 0.1),  # spacing rules: 9 gaps, then the last answer
        (10, 1, 1.0, 0.0, 2, 5 * 1.0),  # concurrency rules: 5 waves of 2
        (10, 10, 1.0, 0.25, 4, 10 * 1.0),  # a chain of pages: one after another
        (1, 1, 0.2, 0.25, 2, 0.2),
    ],
)
def test_lower_bound_takes_the_binding_constraint(requests, chain, latency, interval, concurrency, expected):
    bound, host = lower_bound(Counter({"h": requests}), {"h": chain}, latency, interval, concurrency)
    assert host == "h" and bound == pytest.approx(expected)


def test_lower_bound_is_the_slowest_host():
    bound, host = lower_bound(Counter({"a": 3, "b": 8}), {}, 0.1, 0.5, 2)
    assert (host, bound) == ("b", pytest.approx(7 * 0.5 + 0.1))


def test_bench_fetch_runs_every_cloud_source_against_the_local_server():
    result = bench_fetch(latency_s=0.01, interval_s=0.01, concurrency=2)
    assert result.hosts >= 12 and result.requests >= result.hosts
    assert result.wall_s >= result.lower_bound_s * 0.9  # nothing can beat the bound (small timer slack)
    assert "ratio" in result.report()
