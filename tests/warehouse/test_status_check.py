"""`gpuprices status --check [--max-age 26h]`: what a scheduler or monitor runs after the daily job. Exit 1 and one
line per problem when a source failed its last run, is carried forward (or dropped), or the newest run is older than
the max age by the wall clock; exit 0 and one `ok` line on a healthy warehouse."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from flows.cli.main import main
from warehouse.store import db
from warehouse.ingest.load import IngestRecord, record_without_landing
from warehouse.store.progress import utc_now

NOW = utc_now()
TODAY = NOW - timedelta(hours=1)  # the newest run: one hour ago
YESTERDAY = TODAY - timedelta(days=1)


def source_run(source: str, status: str, observed_at, error: str | None = None, trigger: str = "daily",
               finished_after=timedelta(minutes=1)) -> None:
    """One raw.ingest_runs row, as a run of the daily job (or an import) writes it."""
    record = IngestRecord(
        run_id=f"{source}-{observed_at:%Y%m%dT%H%M%S}-{status}-{finished_after.total_seconds():g}", parser_version=1,
        source=source, status=status, observed_at=observed_at, started_at=observed_at,
        finished_at=observed_at + finished_after, rows_loaded=10 if status == "loaded" else 0, error=error,
        trigger=trigger)
    with db.connect() as connection:
        record_without_landing(connection, record)


def check(capsys, *options: str) -> tuple[int, list[str]]:
    code = main(["status", "--check", *options])
    out = capsys.readouterr().out
    return code, out.splitlines()


def test_a_healthy_warehouse_passes_with_one_ok_line(home, capsys):
    source_run("vast", "loaded", TODAY)
    source_run("lambda", "loaded", TODAY)
    source_run("bestbuy-api", "skipped", TODAY, "no BESTBUY_API_KEY")  # configuration, not a failure
    source_run("keepa-amazon", "loaded", TODAY - timedelta(days=900), trigger="import")  # history: no feed
    code, lines = check(capsys)
    assert code == 0 and len(lines) == 1 and lines[0].startswith("ok: 3 sources, none failed or stale"), lines


def test_a_source_that_failed_its_last_run_is_a_problem(home, capsys):
    source_run("vast", "loaded", YESTERDAY)
    source_run("vast", "failed", TODAY, "FetchError: HTTP 503 from https://console.vast.ai/api")
    source_run("lambda", "loaded", TODAY)
    code, lines = check(capsys)
    assert code == 1
    assert [line for line in lines if "last run" in line] == [
        f"vast: last run failed ({TODAY:%Y-%m-%d %H:%M} UTC): FetchError: HTTP 503 from https://console.vast.ai/api"]
    assert not any(line.startswith("lambda") for line in lines)


def test_a_source_carried_forward_is_a_problem(home, capsys):
    source_run("vast", "loaded", YESTERDAY)  # no run today: its last good snapshot stands in for today
    source_run("lambda", "loaded", TODAY)
    code, lines = check(capsys)
    assert code == 1 and lines == ["vast: stale: last good snapshot carried forward (1 of 3 days)"], lines


def test_a_newest_run_older_than_the_max_age_by_the_clock_is_a_problem(home, capsys):
    old = NOW - timedelta(hours=30)  # every source fresh against the newest run, but no run for 30 hours
    source_run("vast", "loaded", old)
    source_run("lambda", "loaded", old)
    code, lines = check(capsys)
    assert code == 1 and len(lines) == 1, lines
    # 30 h when the module was imported, a little more by now (a slow machine runs other tests in between)
    assert re.match(rf"newest run {old:%Y-%m-%d %H:%M} UTC is 30\.\d h old by the clock, over the max age of 26\.0 h",
                    lines[0]), lines
    assert check(capsys, "--max-age", "2d")[0] == 0
    code, lines = check(capsys, "--max-age", "29h", "--json")
    report = json.loads("\n".join(lines))
    assert code == 1 and 30.0 <= report["newest_run_age_hours"] < 31 and len(report["problems"]) == 1


def test_a_rerun_that_loaded_after_a_failure_of_the_same_observation_is_healthy(home, capsys):
    source_run("vast", "failed", TODAY, "its shard did not finish")
    source_run("vast", "loaded", TODAY, finished_after=timedelta(minutes=30))  # the rerun, later
    code, lines = check(capsys)
    assert code == 0 and lines[0].startswith("ok: 1 source, none failed"), lines


def test_no_run_at_all_is_a_problem_and_a_bad_max_age_is_a_usage_error(home, capsys):
    with db.connect():  # an empty warehouse
        pass
    code, lines = check(capsys)
    assert code == 1 and lines == ["no run yet: nothing has been collected (gpuprices run)"]
    with pytest.raises(SystemExit) as usage:
        main(["status", "--check", "--max-age", "26"])
    assert usage.value.code == 2 and "is not a duration" in capsys.readouterr().err
