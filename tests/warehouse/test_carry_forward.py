"""A source whose runs fail keeps its last good snapshot in the daily tables for carry_forward_days (3) days, marked
is_carried_forward with its real observed_at, and is dropped after that: twelve days of real loads of two sources
through the pipeline (fetch from the recorded-response server, land, parse, check, load), one of them failing on
days 3-4 (two days) and 7-11 (five days), then the dbt build, incremental and full."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from scrapers.errors import FetchError
from scrapers.http import HttpClient, HttpSettings
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)
from warehouse.store import db
from warehouse.store.build import build
from warehouse.ingest.pipeline import fetch_and_land, ingest, record_failure
from warehouse.store.progress import utc_now

pytestmark = pytest.mark.slow  # dbt builds

# skypilot-vast: a marketplace catalog whose GPUs no other loaded source lists here (its medians per shape may head
# an answer; vast's own recording holds only hosts vast does not mark verified, which head none)
STEADY, FLAKY = "lambda", "skypilot-vast"
FAILING_DAYS = {3, 4, 7, 8, 9, 10, 11}
DAYS = 12


def load_days(days: range, template_day) -> None:
    settings = HttpSettings(**{**OFFLINE_HTTP.__dict__, "max_attempts": 1})

    async def one_day(number: int, server: RecordedServer) -> None:
        observed_at = template_day.observed_at + timedelta(days=number - DAYS)
        async with HttpClient(settings, rewrite=rewrite_to(server.base_url)) as client:
            for source_id in (STEADY, FLAKY):
                source = all_sources({source_id: template_day.overrides.get(source_id) or {}})[source_id]
                started_at = utc_now()
                if source_id == FLAKY and number in FAILING_DAYS:
                    record_failure(source_id, source.parser_version, observed_at,
                                   FetchError("HTTP 503 from the recorded server"), started_at, "test")
                    continue
                # stale_capture, not synthetic: a made-up file's figures head no daily figure at all
                run = await fetch_and_land(source, client, observed_at, "stale_capture")
                assert ingest(source, run, "test", started_at).status == "loaded"

    with RecordedServer() as server, placeholder_credentials(list(all_sources().values())):
        server.routes = template_day.routes
        for number in days:
            with db.writer_session():
                asyncio.run(one_day(number, server))


def daily_figures() -> dict:
    with db.connect() as connection:  # dbt keeps its read-write connection open in this process
        by_source = connection.execute("""
            SELECT price_date, source, bool_and(is_carried_forward), min(observed_at)::date, count(*)
            FROM intermediate.int_offers__daily GROUP BY ALL ORDER BY ALL""").fetchall()
        markets = connection.execute("""
            SELECT price_date, gpu_id, market, min_price_usd, median_price_usd, offer_count,
                   carried_forward_offer_count
            FROM marts.gpu_prices_daily WHERE channel IN ('cloud', 'marketplace') ORDER BY ALL""").fetchall()
    return {"by_source": by_source, "markets": markets}


@pytest.fixture(scope="module")
def twelve_days(tmp_path_factory):
    home = tmp_path_factory.mktemp("carry-forward") / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUPRICES_HOME", str(home))
        template_day = replay_plan(load_recordings())[-1]
        load_days(range(1, 8), template_day)
        build()  # the first (full) build, then an incremental one when the other days come in
        plant_marker_on_the_first_day()
        load_days(range(8, DAYS + 1), template_day)
        incremental = build()
        incremental_figures = {**daily_figures(), "marker_days": marker_days()}
        build(full_refresh=True)
        yield home, template_day, incremental, incremental_figures, {**daily_figures(), "marker_days": marker_days()}


MARKER = 99999  # a p25_price_usd no build computes: it stays only where a build did not rewrite the day


def plant_marker_on_the_first_day() -> None:
    with db.connect() as connection:
        connection.execute(f"""UPDATE marts.gpu_prices_daily SET p25_price_usd = {MARKER}
                               WHERE price_date = (SELECT min(price_date) FROM marts.gpu_prices_daily)""")


def marker_days() -> list:
    with db.connect() as connection:
        return [day for (day,) in connection.execute(
            f"SELECT DISTINCT price_date FROM marts.gpu_prices_daily WHERE p25_price_usd = {MARKER}").fetchall()]


def test_a_source_failing_two_days_leaves_its_gpus_daily_figures_unchanged(twelve_days):
    _, template_day, _, _, figures = twelve_days
    day = {n: (template_day.observed_at + timedelta(days=n - DAYS)).date() for n in range(1, DAYS + 1)}
    snapshots = {(d, s): (carried, observed, rows) for d, s, carried, observed, rows in figures["by_source"]}
    for number in (3, 4):
        carried, observed, rows = snapshots[(day[number], FLAKY)]
        assert carried and observed == day[2] and rows == snapshots[(day[2], FLAKY)][2]
    assert not snapshots[(day[5], FLAKY)][0] and not snapshots[(day[2], STEADY)][0]
    # every GPU figure of days 3 and 4 is the one of day 2 (the same recording is served every day), counts included
    per_day = {}
    for price_date, *rest in figures["markets"]:
        per_day.setdefault(price_date, []).append(tuple(rest[:5]))
    assert per_day[day[3]] == per_day[day[2]] == per_day[day[4]]
    carried_counts = {price_date: count for price_date, *_, count in figures["markets"]}
    assert carried_counts[day[2]] == 0 and any(count > 0 for (p, *_, count) in figures["markets"] if p == day[3])


def test_a_source_failing_five_days_is_dropped_from_the_fourth_day_on(twelve_days):
    _, template_day, _, _, figures = twelve_days
    day = {n: (template_day.observed_at + timedelta(days=n - DAYS)).date() for n in range(1, DAYS + 1)}
    flaky_days = {d for d, s, *_ in figures["by_source"] if s == FLAKY}
    assert {day[7], day[8], day[9]} <= flaky_days  # carried from day 6 for three days
    assert not {day[10], day[11]} & flaky_days    # then gone
    assert day[12] in flaky_days                  # and back when it loads again
    steady_days = {d for d, s, *_ in figures["by_source"] if s == STEADY}
    assert steady_days == set(day.values())
    # its GPUs' market rows disappear with it (no other source lists them), the steady source's stay
    gpus_on = {}
    for price_date, gpu_id, *_ in figures["markets"]:
        gpus_on.setdefault(price_date, set()).add(gpu_id)
    assert gpus_on[day[10]] < gpus_on[day[9]] and gpus_on[day[9]] == gpus_on[day[6]]


def test_incremental_builds_give_the_full_rebuilds_answer(twelve_days):
    _, _, incremental, incremental_figures, full_figures = twelve_days
    assert not incremental.full_refresh  # the last build really was incremental
    assert {k: v for k, v in incremental_figures.items() if k != "marker_days"} == \
        {k: v for k, v in full_figures.items() if k != "marker_days"}


def test_an_incremental_build_rewrites_only_its_days(twelve_days):
    """The days to rewrite reach the models through meta.build_in_progress (models/macros/rebuilt_days.sql): a day
    outside them keeps what the earlier build wrote (here a planted marker), and a full rebuild rewrites it."""
    _, template_day, incremental, incremental_figures, full_figures = twelve_days
    first_day = (template_day.observed_at + timedelta(days=1 - DAYS)).date()
    assert first_day not in incremental.rebuild_dates
    assert incremental_figures["marker_days"] == [first_day]
    assert full_figures["marker_days"] == []
    with db.connect() as connection:  # the build's plan is gone once it ends: dbt by hand builds every day
        assert connection.execute("SELECT count(*) FROM meta.build_in_progress").fetchone() == (0,)
