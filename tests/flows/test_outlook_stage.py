"""The daily run's outlook stage (after the build): a model that fails is reported, and the run goes on to its
report; the marts the build wrote stand."""

from __future__ import annotations

from datetime import UTC, datetime

import flows.daily
from warehouse.ingest.report import RunReport


def test_an_outlook_that_fails_is_reported_and_the_run_still_finishes(home, monkeypatch):
    monkeypatch.setattr(flows.daily, "build_task", lambda: "the build's plan")
    seen = []

    def failing_outlook(plan):
        seen.append(plan)
        raise ValueError("no model for this horizon")

    monkeypatch.setattr(flows.daily, "outlook_task", failing_outlook)
    monkeypatch.setattr(flows.daily, "alerts_task", lambda days: ([], []))
    report = RunReport(observed_at=datetime(2026, 5, 1, 12, tzinfo=UTC))
    written = flows.daily._finish(report, build=True, export=False)
    assert seen == ["the build's plan"]  # the stage gets the plan of the build before it
    assert written["built"] and written["outlook_error"] == "ValueError: no model for this horizon"
    assert "outlook" in written["stage_seconds"]
