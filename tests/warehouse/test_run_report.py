"""The run report: one file per run under <home>/reports/, named by the observation and the run's start, so a rerun
of the same observation day never overwrites the report of the run before it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from warehouse.ingest.report import RunReport

OBSERVED = datetime(2026, 5, 1, 23, 0, tzinfo=UTC)


def test_a_rerun_of_the_same_observation_writes_its_own_report(home):
    first = RunReport(observed_at=OBSERVED, started_at=datetime(2026, 11, 26, 6, 0, tzinfo=UTC), built=True)
    rerun = RunReport(observed_at=OBSERVED, started_at=datetime(2026, 11, 26, 7, 30, tzinfo=UTC))
    same_second = RunReport(observed_at=OBSERVED, started_at=rerun.started_at)
    paths = [report.write() for report in (first, rerun, same_second)]
    assert [path.name for path in paths] == ["run-20260501T230000Z-20261126T060000Z.json",
                                             "run-20260501T230000Z-20261126T073000Z.json",
                                             "run-20260501T230000Z-20261126T073000Z-2.json"]
    assert sorted(path.name for path in (home / "reports").iterdir()) == sorted(path.name for path in paths)
    written = [json.loads(path.read_text()) for path in paths]
    assert written[0]["built"] is True and written[1]["built"] is False  # the first run's report as it wrote it
    assert [report["started_at"] for report in written] == [
        "2026-11-26T06:00:00+00:00", "2026-11-26T07:30:00+00:00", "2026-11-26T07:30:00+00:00"]
