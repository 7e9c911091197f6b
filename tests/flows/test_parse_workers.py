"""flows/parse_workers.py: a landed run parsed, normalized and checked in a worker process gives what this process
would, and a worker that dies leaves its runs to this process."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime

from conftest import document

import flows.parse_workers as parse_workers
from scrapers.registry import source_by_id
from warehouse.landing import land
from warehouse.pipeline import analyze

DAY = datetime(2026, 4, 2, 23, 0, tzinfo=UTC)
LAMBDA = "skypilot/lambda_2026-04-02.csv"  # the bundled real SkyPilot Lambda capture


def same_analysis(first, second) -> None:
    assert (first.status, first.error, first.rows_parsed) == (second.status, second.error, second.rows_parsed)
    assert first.checked.accepted.equals(second.checked.accepted)
    assert first.checked.rejected.equals(second.checked.rejected)


def refuse_here(source, run):
    raise AssertionError("analysed in this process")


def test_a_worker_process_analyses_a_run_as_this_process_does(home, monkeypatch):
    source = source_by_id("skypilot-lambda")
    run = land(source.id, DAY, [document(LAMBDA)], "stale_capture")
    here = analyze(source, run)
    assert here.status == "loaded" and here.checked.accepted.height > 10
    monkeypatch.setattr(parse_workers, "analyze", refuse_here)  # only a worker may answer
    with parse_workers.parse_workers(1):
        in_pool = parse_workers.analyzer()
        same_analysis(in_pool(source, None, run), here)
        # a body the parser refuses (a CSV where Lambda's API answers JSON) is a parse_error there too
        broken = land("lambda", DAY, [document(LAMBDA)], "stale_capture")
        failed = in_pool(source_by_id("lambda"), None, broken)
        assert failed.status == "parse_error" and failed.error == analyze(source_by_id("lambda"), broken).error
    assert parse_workers.analyzer() is None


def test_a_worker_that_dies_leaves_its_runs_to_this_process(home):
    source = source_by_id("skypilot-lambda")
    run = land(source.id, DAY, [document(LAMBDA)], "stale_capture")
    here = analyze(source, run)
    with parse_workers.parse_workers(1):
        in_pool = parse_workers.analyzer()
        same_analysis(in_pool(source, None, run), here)  # the worker is up
        for pid in list(parse_workers._pool._processes):
            os.kill(pid, signal.SIGKILL)
        same_analysis(in_pool(source, None, run), here)


def test_no_workers_keeps_the_analysis_here(home, monkeypatch):
    monkeypatch.setenv("GPUPRICES_PARSE_WORKERS", "0")
    with parse_workers.parse_workers():
        assert parse_workers.analyzer() is None
