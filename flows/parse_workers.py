"""Parse, normalize and check in worker processes while the run's own process fetches, lands and loads.

A replay day or a daily run is Python-bound: its parse, normalize and check steps held the interpreter ~40% of the
time, one core, while the other core idled. Inside `parse_workers()` (the daily and offline flows), `ingest` hands
those steps to a pool of processes (GPUPRICES_PARSE_WORKERS, default 2; 0 keeps them in this process): each worker
builds the source again from its id and settings, parses the landed documents and returns what the checks made of
them (warehouse.pipeline.Analysis). The landing, the load and its transaction stay in this process. A worker that
dies or a run that cannot be sent to one is analysed here instead (the source's result is the same either way).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from config import settings
from scrapers.base import Source
from scrapers.registry import source_by_id
from warehouse.landing import LandedRun
from warehouse.pipeline import Analysis, analyze

# What the workers import once, before the first run reaches them (forkserver: each worker forks from a process
# that has them loaded)
PRELOAD = ["scrapers.registry", "warehouse.pipeline"]

_analyzer: Callable[[Source, dict | None, LandedRun], Analysis] | None = None
_pool: ProcessPoolExecutor | None = None  # while parse_workers() runs


def _analyze_source(source_id: str, overrides: dict | None, run: LandedRun) -> Analysis:
    return analyze(source_by_id(source_id, overrides), run)


def analyzer() -> Callable[[Source, dict | None, LandedRun], Analysis] | None:
    """The pool's analysis (source, its settings, landed run) -> Analysis while parse_workers() runs, else None."""
    return _analyzer


@contextlib.contextmanager
def parse_workers(count: int | None = None) -> Iterator[None]:
    """A pool of `count` worker processes (default: GPUPRICES_PARSE_WORKERS) for the block; none when 0."""
    global _analyzer, _pool
    count = settings.parse_workers() if count is None else count
    if count <= 0 or _analyzer is not None:
        yield
        return
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    pool = ProcessPoolExecutor(max_workers=count, mp_context=context)

    def analyze_in_pool(source: Source, overrides: dict | None, run: LandedRun) -> Analysis:
        run.relative_path  # noqa: B018 - worked out (and cached) here: a worker's data home is the pool's first
        try:
            return pool.submit(_analyze_source, source.id, overrides, run).result()
        except (BrokenProcessPool, pickle.PicklingError, TypeError, AttributeError):
            # a worker died (memory, a crash), or the run could not be sent: analysed here
            return analyze(source, run)

    _analyzer, _pool = analyze_in_pool, pool
    try:
        yield
    finally:
        _analyzer = _pool = None
        pool.shutdown(wait=True, cancel_futures=True)
