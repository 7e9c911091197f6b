"""Sixty days of daily runs where sources fail at random (503s, resets, captcha pages, changed layouts, truncated
bodies), through the real fetch, land, parse, check and load code against the recorded-response server with a
fault plan per day. At the end, every observation of every successful run is still there, unchanged, and the
point-in-time query (raw.offers_as_of) for every past day gives the answer it gave on that day."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections import Counter
from datetime import timedelta

import pytest
from conftest import FIXTURES  # noqa: E402

from scrapers.errors import SourceError
from scrapers.http import HttpClient, HttpSettings
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    Fault,
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)
from warehouse.store import db
from warehouse.ingest.pipeline import (
    fetch_and_land,
    ingest,
    ingest_landed_runs,
    record_failure,
)
from warehouse.store.progress import utc_now

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it
DAYS = 60
SOURCES = ("lambda", "vast", "skypilot-lambda", "amazon")  # JSON APIs, a catalog CSV, a retail page
# A real payload of another source stands in for a changed API layout; a real page of another shop for a changed
# retail page; the made-up captcha page for a bot wall.
OTHER_API_ANSWER = str(FIXTURES / "vultr" / "gpuhunt_vultr_plans_fixture.json")
OTHER_SHOP_PAGE = str(FIXTURES / "retail" / "generic_jsonld_og" / "globalindustrial_no_price.html")
CAPTCHA_PAGE = str(FIXTURES / "faults" / "synthetic_amazon_captcha_page.html")
RETAIL = {"amazon", "microcenter"}


def bad_day_fault(rng: random.Random, source: str, route: str) -> Fault | None:
    """Each source, each day: 60% a good answer, else one of the ways a day goes wrong."""
    roll = rng.random()
    if roll < 0.60:
        return None
    if roll < 0.70:
        return Fault(route=route, kind="status", status=503)
    if roll < 0.75:
        return Fault(route=route, kind="reset")
    if roll < 0.85:
        return Fault(route=route, kind="replace_body", body_file=CAPTCHA_PAGE if source in RETAIL else OTHER_API_ANSWER)
    if roll < 0.95:
        return Fault(route=route, kind="replace_body", body_file=OTHER_SHOP_PAGE if source in RETAIL else OTHER_API_ANSWER)
    return Fault(route=route, kind="truncate", keep_fraction=0.5)


def row_digests(connection, run_ids: list[str]) -> Counter:
    """Every offer row of these runs, all columns, as a digest (a multiset: duplicates would show)."""
    rows = connection.execute(
        "SELECT * FROM raw.offers WHERE run_id IN (SELECT unnest(?)) ORDER BY ALL", [run_ids]
    ).fetchall()
    return Counter(hashlib.sha256(repr(row).encode()).hexdigest() for row in rows)


def as_of_answer(connection, as_of, known_at) -> list[tuple]:
    return connection.execute(
        "SELECT source, run_id, offer_id, pricing_type, price, currency FROM raw.offers_as_of(?, known_at := ?) "
        "ORDER BY ALL", [as_of, known_at]
    ).fetchall()


@pytest.fixture(scope="module")
def sixty_days(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUPRICES_HOME", str(tmp_path_factory.mktemp("sixty-days") / "home"))
        yield _run_sixty_days()


def _run_sixty_days() -> list[dict]:
    rng = random.Random(2026)
    recordings = load_recordings()
    template_day = replay_plan(recordings)[-1]
    routes_by_source = {}  # each source's routes on the template day: its latest recording by then
    for recording in sorted(recordings, key=lambda r: r["recorded_at"]):
        if recording["source"] in SOURCES and recording["recorded_at"] <= template_day.observed_at:
            routes_by_source[recording["source"]] = list(recording["routes"])
    settings = HttpSettings(**{**OFFLINE_HTTP.__dict__, "max_attempts": 2, "read_timeout_s": 5.0})
    history = []  # per day: the loaded run ids, their row digests, the as-of answer, when it was asked

    async def one_day(day_number: int, server: RecordedServer) -> dict:
        observed_at = template_day.observed_at + timedelta(days=day_number - DAYS)
        server.faults = [fault for source in SOURCES for route in routes_by_source[source][:1]
                         if (fault := bad_day_fault(rng, source, route))]
        statuses = {}
        # as the offline replay runs a day: one writer connection for the day's loads
        with db.writer_session():
            return await collect_day(observed_at, server, statuses)

    async def collect_day(observed_at, server: RecordedServer, statuses: dict) -> dict:
        async with HttpClient(settings, rewrite=rewrite_to(server.base_url)) as client:
            for source_id in SOURCES:
                source = all_sources({source_id: template_day.overrides.get(source_id) or {}})[source_id]
                started_at = utc_now()
                try:
                    run = await fetch_and_land(source, client, observed_at, "synthetic")
                except SourceError as error:
                    record = record_failure(source_id, source.parser_version, observed_at, error, started_at,
                                                   "test")
                else:
                    record = ingest(source, run, "test", started_at)
                statuses[source_id] = (record.status, record.run_id)
        known_at = utc_now() + timedelta(seconds=1)
        with db.connect() as connection:
            loaded = [run_id for status, run_id in statuses.values() if status == "loaded"]
            return {"observed_at": observed_at, "known_at": known_at, "statuses": statuses,
                    "digests": row_digests(connection, loaded),
                    "as_of": as_of_answer(connection, observed_at, known_at)}

    with RecordedServer() as server, placeholder_credentials(list(all_sources().values())):
        server.routes = template_day.routes
        for day_number in range(DAYS):
            history.append(asyncio.run(one_day(day_number, server)))
            if day_number == DAYS // 2:  # a re-parse in the middle of it all: nothing new, nothing lost
                ingest_landed_runs(all_sources(), trigger="reparse")
    return history


def test_sixty_bad_days_lose_no_observation_and_past_answers_never_change(sixty_days):
    statuses = Counter(status for day in sixty_days for status, _ in day["statuses"].values())
    # the random plan really exercised failures of each kind, and most days still loaded
    assert statuses["loaded"] > 100 and statuses["failed"] > 10 and statuses["parse_error"] + statuses["quarantined"] > 10
    assert statuses["blocked"] > 0
    with db.connect(read_only=True) as connection:
        for day in sixty_days:
            loaded = [run_id for status, run_id in day["statuses"].values() if status == "loaded"]
            # every row of every run that loaded that day: still there, every column unchanged
            assert row_digests(connection, loaded) == day["digests"], day["observed_at"]
            # the point-in-time answer for that day, asked today, is the answer given on that day
            assert as_of_answer(connection, day["observed_at"], day["known_at"]) == day["as_of"], day["observed_at"]
        # and nothing else crept in: the warehouse holds exactly the rows of the loaded runs
        total = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0]
        failed_runs = connection.execute(
            "SELECT count(*) FROM raw.ingest_runs WHERE status <> 'loaded'").fetchone()[0]
    assert total == sum(sum(day["digests"].values()) for day in sixty_days)
    assert failed_runs == sum(1 for day in sixty_days for status, _ in day["statuses"].values() if status != "loaded")


def test_a_source_failing_today_keeps_its_last_good_snapshot_in_the_point_in_time_answer(sixty_days):
    last_good: dict[str, str] = {}
    checked = 0
    for day in sixty_days:
        for source, (status, run_id) in day["statuses"].items():
            if status == "loaded":
                last_good[source] = run_id
        answered = {source: run_id for source, run_id, *_ in day["as_of"]}
        for source, run_id in last_good.items():
            assert answered.get(source) == run_id, (day["observed_at"], source)
            checked += day["statuses"][source][0] != "loaded"
    assert checked > 15  # days on which a source failed and the answer still held its previous good snapshot
