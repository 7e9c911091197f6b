"""One age by the clock and one stale limit (warehouse/store/freshness.py, GPUPRICES_STALE_AFTER_DAYS): a figure over the
limit is stale, a feed is fresh within a day's schedule of its last load, late after, stale over the limit; and
`gpuprices status` measures each source by that clock."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from flows.cli.main import main
from warehouse.store import db
from warehouse.store.freshness import FEED_MAX_AGE, age_of, source_age
from warehouse.ingest.load import IngestRecord, record_without_landing

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def test_a_figure_is_stale_over_the_limit_by_the_clock():
    assert age_of(date(2026, 11, 14), NOW).days == 14 and not age_of(date(2026, 11, 14), NOW).is_stale
    old = age_of(date(2026, 11, 13), NOW)
    assert old.days == 15 and old.is_stale and old.label() == "2026-11-13, 15 days old (over the 14-day limit)"
    assert age_of(date(2026, 5, 1), NOW).words() == "211 days old"  # the offline run's prices, on this clock
    assert age_of(NOW, NOW).words() == "today" and age_of(date(2026, 11, 27), NOW).words() == "1 day old"
    # a timestamp counts by its UTC day
    assert age_of(datetime(2026, 11, 27, 23, 59, tzinfo=UTC), NOW).days == 1
    assert age_of(None, NOW) is None


def test_the_limit_is_a_setting(monkeypatch):
    monkeypatch.setenv("GPUPRICES_STALE_AFTER_DAYS", "3")
    assert age_of(date(2026, 11, 24), NOW).is_stale and not age_of(date(2026, 11, 25), NOW).is_stale
    monkeypatch.setenv("GPUPRICES_STALE_AFTER_DAYS", "two weeks")
    with pytest.raises(ValueError, match="whole number of days"):
        age_of(date(2026, 11, 25), NOW)


def test_a_feed_is_fresh_late_or_stale_by_the_clock():
    assert source_age(NOW - FEED_MAX_AGE, NOW).state == "fresh"
    late = source_age(NOW - FEED_MAX_AGE - timedelta(hours=1), NOW)
    assert late.state == "late" and late.hours == 27.0
    stale = source_age(NOW - timedelta(days=600), NOW)
    assert stale.state == "stale" and stale.words.startswith("stale: last loaded 2025-04-07, 600 days old")
    assert source_age(None, NOW).state == "never loaded"
    assert source_age(NOW - timedelta(days=600), NOW, imported=True).state == "imported"


def test_status_measures_each_source_by_the_clock(home, capsys):
    """A source last loaded 20 months ago beside one loaded an hour ago: the first is stale by the clock, the
    second fresh, in the text and in --json (before, both read as loaded N h ago with no state by the clock)."""
    now = datetime.now(UTC)
    for source, observed_at in (("vast", now - timedelta(hours=1)), ("lambda", now - timedelta(days=610))):
        with db.connect() as connection:
            record_without_landing(connection, IngestRecord(
                run_id=f"{source}-run", parser_version=1, source=source, status="loaded", observed_at=observed_at,
                started_at=observed_at, finished_at=observed_at + timedelta(minutes=1), rows_loaded=10,
                trigger="daily"))
    assert main(["status", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    by_source = {s["source"]: s for s in report["sources"]}
    assert by_source["vast"]["freshness"] == "fresh" and by_source["lambda"]["freshness"] == "stale"
    assert by_source["lambda"]["age_days"] >= 609 and report["newest_run_age"]["is_stale"] is False
    assert main(["status"]) == 0
    text = capsys.readouterr().out
    lambda_lines = text.split("  lambda", 1)[1].splitlines()[:3]
    assert any("stale: last loaded" in line and "over the 14-day limit" in line for line in lambda_lines), text
    vast_lines = text.split("  vast", 1)[1].splitlines()[:2]
    assert not any("stale" in line or "late" in line for line in vast_lines), text
