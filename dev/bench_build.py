"""`gpuprices bench build`: build times and dashboard query latency at 1 month, 1 year and 3 years of history.

For each history length H, a warehouse of its own (under --root) gets H - increments days of synthetic history
(dev/synthetic_history.py: every bundled source, ~10k marketplace offers per snapshot), a full dbt build
(timed: the full rebuild), then `increments` more days, each loaded and followed by the daily incremental build
(timed; the median is reported). On the longest history, every query the dashboard build runs is timed `query_runs`
times (p50 / p95). Targets on the 2-core reference machine: incremental at 3 years <= 1.5x incremental at 1 month,
full 3-year rebuild < 180 s, every dashboard query < 200 ms at p95.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import duckdb

from config.settings import data_home, use_data_home
from dashboards.data import load_explanations, load_from
from dev.synthetic_history import build_template, generate
from warehouse.store import db
from warehouse.store.build import build as dbt_build
from warehouse.store.progress import progress

LAST_DAY = date(2026, 5, 1)  # the generated histories end on the last bundled day


@dataclass
class HistoryBench:
    days: int
    offer_rows: int
    database_mb: float
    full_build_s: float
    incremental_builds_s: list[float]

    @property
    def incremental_s(self) -> float:
        return statistics.median(self.incremental_builds_s)


@dataclass
class QueryTiming:
    sql: str
    runs_ms: list[float] = field(default_factory=list)

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.runs_ms)
        return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class _TimedConnection:
    """Passes every call to the DuckDB connection; times execute() (each dashboard query, fetch included)."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, timings: dict[str, QueryTiming]):
        self._connection, self._timings = connection, timings

    def execute(self, sql, parameters=None):
        started = time.perf_counter()
        cursor = self._connection.execute(sql, parameters) if parameters is not None else self._connection.execute(sql)
        rows = cursor.fetchall()
        elapsed_ms = (time.perf_counter() - started) * 1000
        key = " ".join(sql.split())
        self._timings.setdefault(key, QueryTiming(key)).runs_ms.append(elapsed_ms)
        return _Fetched(cursor.description, rows)

    def __getattr__(self, name):
        return getattr(self._connection, name)


class _Fetched:
    def __init__(self, description, rows):
        self.description, self._rows = description, rows

    def fetchall(self):
        return self._rows

    def fetchone(self):
        return self._rows[0] if self._rows else None


def time_dashboard_queries(database: Path, runs: int) -> tuple[list[QueryTiming], float, int]:
    """Every query of the pages (load_from), `runs` times each; then the site's explanations batch once
    (load_explanations: seconds, not a page query): its wall time and how many headlines it explained."""
    timings: dict[str, QueryTiming] = {}
    with duckdb.connect(str(database)) as connection:  # same configuration as dbt's open connection to it
        load_from(connection)  # warm-up: first reads fault the file into the page cache
        for _ in range(runs):
            load_from(_TimedConnection(connection, timings))
        data = load_from(connection)
        started = time.perf_counter()
        load_explanations(connection, data)
        explained_s = time.perf_counter() - started
    return list(timings.values()), explained_s, len(data.price_explanations)


def bench_history(root: Path, template: Path, days: int, marketplace_offers: int, increments: int) -> HistoryBench:
    home = root / f"history-{days}d"
    shutil.rmtree(home, ignore_errors=True)
    first_day = LAST_DAY - timedelta(days=days - 1)
    with use_data_home(home):
        progress(f"bench: generating {days - increments} days of history...")
        with db.connect() as connection:
            generate(connection, template, first_day, days - increments, marketplace_offers)
        progress(f"bench: full build at {days - increments} days...")
        started = time.perf_counter()
        dbt_build(full_refresh=True)
        full_build_s = time.perf_counter() - started
        incremental = []
        for number in range(increments):
            day = first_day + timedelta(days=days - increments + number)
            with db.connect() as connection:
                generate(connection, template, day, 1, marketplace_offers)
            started = time.perf_counter()
            plan = dbt_build()
            incremental.append(time.perf_counter() - started)
            if plan.full_refresh:
                raise RuntimeError(f"the daily build after {day} was not incremental: {plan.reason}")
        with db.connect() as connection:  # read-write: dbt's connection to this file is still open in this process
            offer_rows = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0]
        database_mb = (home / "gpuprices.duckdb").stat().st_size / 1e6
    return HistoryBench(days, offer_rows, database_mb, full_build_s, incremental)


def bench_build(
    root: Path, horizons: tuple[int, ...] = (30, 365, 1095), marketplace_offers: int = 10_000,
    increments: int = 3, query_runs: int = 20,
) -> tuple[list[HistoryBench], list[QueryTiming]]:
    root.mkdir(parents=True, exist_ok=True)
    progress("bench: template day (the last bundled day, through the real fetch + parse + load)...")
    template = build_template(root / "template")
    results = [bench_history(root, template, days, marketplace_offers, increments) for days in horizons]
    longest = root / f"history-{max(horizons)}d" / "gpuprices.duckdb"
    progress(f"bench: dashboard queries x{query_runs} on {max(horizons)} days...")
    return results, time_dashboard_queries(longest, query_runs)


def report(results: list[HistoryBench], queries: tuple[list[QueryTiming], float, int]) -> str:
    queries, explained_s, explained = queries
    lines = [f"{'history':>9} {'offer rows':>12} {'db MB':>8} {'full build s':>13} {'daily incremental s':>20}"]
    for result in results:
        runs = ", ".join(f"{value:.1f}" for value in result.incremental_builds_s)
        lines.append(f"{result.days:>8}d {result.offer_rows:>12,} {result.database_mb:>8.0f} "
                     f"{result.full_build_s:>13.1f} {result.incremental_s:>8.1f} (runs: {runs})")
    shortest, longest = results[0], results[-1]
    ratio = longest.incremental_s / shortest.incremental_s
    lines.append(f"incremental ratio {longest.days}d / {shortest.days}d: {ratio:.2f} (target <= 1.5)"
                 f" {'OK' if ratio <= 1.5 else 'MISSED'}")
    lines.append(f"full rebuild at {longest.days}d: {longest.full_build_s:.1f} s (target < 180 s)"
                 f" {'OK' if longest.full_build_s < 180 else 'MISSED'}")
    lines.append(f"dashboard queries at {longest.days}d ({len(queries)} queries, p50 / p95 ms):")
    worst = 0.0
    for timing in sorted(queries, key=lambda t: -t.percentile(0.95)):
        p95 = timing.percentile(0.95)
        worst = max(worst, p95)
        lines.append(f"  {timing.percentile(0.5):7.1f} {p95:7.1f}  {timing.sql[:90]}")
    lines.append(f"slowest dashboard query p95: {worst:.1f} ms (target < 200 ms) {'OK' if worst < 200 else 'MISSED'}")
    lines.append(f"site explanations at {longest.days}d (one batch, not a page query): {explained_s:.1f} s for "
                 f"{explained} price headlines and their index moves and training costs")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`gpuprices bench build [options]` runs this (python -m dev.bench_build)."""
    parser = argparse.ArgumentParser(prog="gpuprices bench build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--years", type=int, default=3, help="longest history (1 month, 1 year, 3 years)")
    parser.add_argument("--marketplace-offers", type=int, default=10_000, help="marketplace offers per day")
    parser.add_argument("--increments", type=int, default=3, help="daily incremental builds timed per history")
    parser.add_argument("--query-runs", type=int, default=20, help="runs of each dashboard query")
    parser.add_argument("--root", help="where the bench warehouses go (default <home>/bench-build)")
    args = parser.parse_args(argv)
    horizons = tuple(days for days in (30, 365, 1095) if days <= args.years * 365) or (30,)
    root = Path(args.root).resolve() if args.root else data_home() / "bench-build"
    results, queries = bench_build(root, horizons, args.marketplace_offers, args.increments, args.query_runs)
    print(report(results, queries))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
