"""Freshness by the clock and explained headlines, on the offline run's warehouse with a planted source: the real
SkyPilot RunPod catalog rows (tests/fixtures/skypilot_v8, a source the offline run never fetches) landed and
loaded as if fetched 20 months before the clock the site is built against. Its two GPUs no other source lists
(RTX PRO 4000 and 5000) have no price since.

The site is built twice, in headless Chromium: against a clock one day after the replay (the replayed sources are
fresh, the planted one is stale, and the figures older than 14 days are greyed with their date), and against the
machine's clock (months after the replay: nothing may read fresh, and nothing is a green "buy now"). `gpuprices
explain` on a planted offer finds the landed bytes' SHA-256 and the price the parser reads from them, and says so
when the landed file is changed."""

from __future__ import annotations

import csv
import dataclasses
import gzip
import hashlib
import io
import json
import re
import shutil
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import FIXTURES, gpuprices

from config.settings import use_data_home
from dashboards import data as dashboard_data
from dashboards.build import build
from scrapers.http import RawDocument
from scrapers.registry import source_by_id
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest

pytestmark = pytest.mark.slow  # a copy of the offline run, a dbt build and a browser

# One day after the offline replay's last day (2026-05-01): the replayed sources are fresh by this clock.
CLOCK = datetime(2026, 5, 2, 12, 0, tzinfo=UTC)
PLANTED_AT = datetime(2024, 9, 2, 23, 0, tzinfo=UTC)  # 20 months before CLOCK
PLANTED_SOURCE = "skypilot-runpod"
PLANTED_FILE = FIXTURES / "skypilot_v8" / "runpod_vms_rows_capture_01acdfd.csv"
PLANTED_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/runpod/vms.csv"
PLANTED_GPU = "rtx-pro-5000-48gb"  # only the planted source lists it
STALE_DAYS = 14


@pytest.fixture(scope="module")
def planted(warehouse, tmp_path_factory) -> Path:
    """A copy of the offline run's data home with the planted source loaded and the marts rebuilt."""
    home = tmp_path_factory.mktemp("planted") / "home"
    shutil.copytree(warehouse, home, symlinks=True,
                    ignore=lambda folder, _names: ["export", "site"] if Path(folder) == warehouse else [])
    with use_data_home(home):
        document = RawDocument(url=PLANTED_URL, status=200, body=PLANTED_FILE.read_bytes(), fetched_at=PLANTED_AT,
                               content_type="text/csv")
        run = land(PLANTED_SOURCE, PLANTED_AT, [document], "stale_capture")
        source = source_by_id(PLANTED_SOURCE)
        # the fixture holds 62 of the catalog's rows: fewer offers than the whole file's expectations ask for
        source.expectations = dataclasses.replace(source.expectations, min_offers=1)
        assert ingest(source, run, "daily").status == "loaded"
    gpuprices(home, "build")
    return home


@pytest.fixture(scope="module")
def sites(planted):
    """The site built against CLOCK and against the machine's clock (months after the replay)."""
    with use_data_home(planted):
        data = dashboard_data.load()
        build(data, site=planted / "site-clock", now=CLOCK)
        build(dashboard_data.load(), site=planted / "site-now")
    return planted / "site-clock", planted / "site-now"


def open_page(browser, path: Path, width: int = 1280):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors


# Each row of the freshness table: its source, its last load, and the words of its cells, as a reader sees them.
FRESHNESS_ROWS = """Array.from(document.querySelectorAll('table')).filter(t => t.innerText.includes('last loaded'))
    .flatMap(t => Array.from(t.querySelectorAll('tr')).slice(1)).map(tr => ({
        source: tr.cells[0].innerText.trim(), loaded: tr.cells[1].innerText.trim(), text: tr.innerText,
        cells: Array.from(tr.cells).map(c => c.innerText.trim()), stale: tr.classList.contains('stale')}))"""


def freshness_rows(browser, site: Path) -> list[dict]:
    page, errors = open_page(browser, site / "sources.html")
    rows = page.evaluate(FRESHNESS_ROWS)
    page.close()
    assert errors == [] and rows
    return rows


def loaded_at(row: dict) -> datetime | None:
    return datetime.strptime(row["loaded"], "%Y-%m-%d %H:%M").replace(tzinfo=UTC) if row["loaded"] != "-" else None


def test_no_source_reads_fresh_unless_it_loaded_within_a_day_by_the_clock(browser, sites):
    for site, clock in zip(sites, (CLOCK, datetime.now(UTC)), strict=True):
        rows = freshness_rows(browser, site)
        for row in rows:
            loaded = loaded_at(row)
            says_fresh = any(cell == "fresh" or cell.startswith("fresh") for cell in row["cells"])
            if says_fresh:  # the clock of the build, within a minute of the test's own for site-now
                assert loaded is not None and clock - loaded <= timedelta(hours=26, minutes=1), row
            # an imported history is no feed: it says so instead of fresh or stale
            if loaded is not None and clock - loaded > timedelta(days=STALE_DAYS + 1) \
                    and "imported history" not in row["cells"]:
                assert not says_fresh and "stale" in row["text"] and row["stale"], row
        planted_row = next(row for row in rows if row["source"] == PLANTED_SOURCE)
        assert "stale" in planted_row["text"] and planted_row["stale"], planted_row
    # against CLOCK, the sources the replay ran on its last day are fresh, and the planted one is 606 days old
    rows = {row["source"]: row for row in freshness_rows(browser, sites[0])}
    days = (CLOCK.date() - PLANTED_AT.date()).days
    assert "fresh" in rows["vast"]["cells"] and "13.0 h" in rows["vast"]["cells"]
    assert f"{days} days old" in rows[PLANTED_SOURCE]["text"]


def test_every_page_says_the_day_of_its_prices_and_its_age(browser, sites):
    site_clock, site_now = sites
    age_now = (datetime.now(UTC).date() - date(2026, 5, 1)).days
    for site, words in ((site_clock, "1 day old"), (site_now, f"{age_now} days old")):
        pages = [site / name for name in ("index.html", "gpus.html", "training.html", "sources.html")]
        pages += [site / "gpu" / "h100-sxm5-80gb.html", next((site / "explain").rglob("*.html"))]
        for path in pages:
            page, errors = open_page(browser, path)
            text = page.inner_text("#prices-age")
            page.close()
            assert errors == [] and re.search(r"Prices of \d{4}-\d{2}-\d{2}", text), (path, text)
            if path.parent.name != "explain" and path.parent.parent.name != "explain":
                assert words in text, (path, text)
    page, _ = open_page(browser, site_now / "index.html")
    assert "Older than the 14-day limit" in page.inner_text("#prices-age")
    page.close()


def test_a_stale_price_is_greyed_with_its_date_and_no_stale_verdict_is_a_green_buy_now(browser, sites):
    site_clock, site_now = sites
    # the planted GPU: its newest price is from September 2024 (the planted day, carried forward three days)
    page, errors = open_page(browser, site_clock / "gpu" / f"{PLANTED_GPU}.html")
    assert "2024-09-05" in page.inner_text("#prices-age") and errors == []
    rows = page.evaluate("""Array.from(document.querySelectorAll('tr')).filter(tr => tr.innerText.includes('2024-09'))
        .map(tr => ({stale: tr.classList.contains('stale'), text: tr.innerText,
                     color: getComputedStyle(tr.cells[0]).color}))""")
    page.close()
    assert rows and all(row["stale"] for row in rows), rows
    assert all(row["color"] == "rgb(140, 149, 159)" for row in rows), rows  # greyed
    assert any("days old" in row["text"] for row in rows)
    # the T4's last retail price is a real Keepa price of 2025-06-30, on which the buy signal fired
    page, _ = open_page(browser, site_clock / "gpu" / "t4-16gb.html")
    verdict = page.evaluate("""Array.from(document.querySelectorAll('tr')).filter(tr => tr.cells[0] &&
        tr.cells[0].innerText.trim() === 'retail_new' && tr.innerText.includes('2025-06-30'))
        .map(tr => ({stale: tr.classList.contains('stale'), deal: tr.querySelectorAll('.badge.deal').length,
                     text: tr.innerText}))[0]""")
    page.close()
    assert verdict["stale"] and verdict["deal"] == 0 and "buy signal of 2025-06-30" in verdict["text"], verdict
    # against the machine's clock every price of the replay is months old: no green "buy now" on any page
    for path in [site_now / "index.html", *sorted((site_now / "gpu").glob("*.html"))]:
        html = path.read_text()
        assert 'class="badge deal">buy now' not in html and "buy signal today" not in html, path.name
    # against CLOCK the replay's own prices are current: the overview's rental rankings are not greyed; a purchase
    # ranking's row dated over the limit (a 2025 Amazon price, a launch price) is, and only such a row
    page, _ = open_page(browser, site_clock / "index.html")
    ranked = page.evaluate("""Array.from(document.querySelectorAll('table')).filter(t =>
        t.innerText.includes('TFLOPS')).flatMap(t => Array.from(t.querySelectorAll('tr')).slice(1))
        .map(tr => ({stale: tr.classList.contains('stale'), text: tr.innerText}))""")
    page.close()
    assert ranked and any(not row["stale"] for row in ranked)
    for row in ranked:
        dated = re.search(r"(\d{4}-\d{2}-\d{2})", row["text"])
        too_old = dated is not None and (CLOCK.date() - date.fromisoformat(dated.group(1))).days > 14
        assert row["stale"] == too_old, row


def test_every_headline_of_the_overview_links_to_an_explanation_that_recomputes(browser, sites):
    site = sites[0]
    page, errors = open_page(browser, site / "index.html")
    links = page.evaluate("Array.from(document.querySelectorAll('a.explain')).map(a => a.getAttribute('href'))")
    cells = page.evaluate("""Array.from(document.querySelectorAll('table')).filter(t =>
        t.innerText.includes('USD per GPU-hour')).flatMap(t => Array.from(t.querySelectorAll('tr')).slice(1))
        .map(tr => tr.cells[2].querySelector('a.explain') !== null)""")
    page.close()
    assert errors == [] and cells and all(cells), "a rental headline without its explanation"
    assert len(links) >= 10
    for href in set(links):
        target = site / href
        assert target.exists(), href
        explanation = json.loads(target.with_suffix(".json").read_text())
        assert explanation["matches"], href
        assert len(target.with_suffix(".json").read_bytes()) < 600_000  # bounded, however many offers
        if explanation["kind"] == "price":
            assert explanation["offers_listed"] <= dashboard_data.EXPLAINED_OFFERS
    page, errors = open_page(browser, site / links[0])
    assert errors == [] and "every figure recomputes" in page.inner_text("main")
    page.close()


def planted_row(offer_id: str) -> dict:
    """The catalog row of a SkyPilot offer id (instance type|region|zone)."""
    text = PLANTED_FILE.read_text()
    instance, zone = offer_id.split("|")[0], offer_id.split("|")[-1]
    return next(row for row in csv.DictReader(io.StringIO(text))
                if row["InstanceType"] == instance and row["AvailabilityZone"] == zone)


def test_explain_on_a_planted_offer_matches_its_landed_bytes(planted):
    day = PLANTED_AT.date().isoformat()
    result = gpuprices(planted, "explain", "price", PLANTED_GPU, "--date", day, "--json")
    found = json.loads(result.stdout)
    cheapest = found["cheapest_offer"]
    assert found["matches"] and cheapest["source"] == PLANTED_SOURCE
    landing = cheapest["landing"]
    # the SHA-256 of the bytes landed is that of the planted file, hashed anew and as the manifest recorded it
    assert landing["sha256"] == landing["manifest_sha256"] == hashlib.sha256(PLANTED_FILE.read_bytes()).hexdigest()
    assert landing["bytes_match"] and landing["matches"]
    # the price the parser reads from them is the catalog row's own
    row = planted_row(cheapest["offer_id"])
    assert Decimal(landing["reparsed"]["price"]) == Decimal(row["Price"]) == Decimal(cheapest["price"])
    count = Decimal(row["AcceleratorCount"])
    assert Decimal(cheapest["unit_price_usd"]) == Decimal(row["Price"]) / count
    assert Decimal(found["figures"][0]["published"]) == Decimal(cheapest["unit_price_usd"])
    # the text output says so too
    text = gpuprices(planted, "explain", "price", PLANTED_GPU, "--date", day).stdout
    assert "everything recomputed matches the marts" in text and landing["sha256"] in text


def test_explain_says_when_a_landed_document_was_changed(planted, tmp_path):
    day = PLANTED_AT.date().isoformat()
    found = json.loads(gpuprices(planted, "explain", "price", PLANTED_GPU, "--date", day, "--json").stdout)
    path = planted / found["cheapest_offer"]["landing_ref"]
    original = path.read_bytes()
    price = planted_row(found["cheapest_offer"]["offer_id"])["Price"]
    changed = gzip.decompress(original).replace(f",{price},{price},".encode(), b",0.01,0.01,")
    assert changed != gzip.decompress(original)
    try:
        path.write_bytes(gzip.compress(changed))
        result = gpuprices(planted, "explain", "price", PLANTED_GPU, "--date", day, "--json", check=False)
        assert result.returncode == 1, result.stderr
        landing = json.loads(result.stdout)["cheapest_offer"]["landing"]
        assert not landing["bytes_match"] and not landing["matches"] and "changed" in landing["note"]
        text = gpuprices(planted, "explain", "price", PLANTED_GPU, "--date", day, check=False).stdout
        assert "MISMATCH" in text
    finally:
        path.write_bytes(original)


def test_explain_answers_for_an_index_move_and_a_training_cost_and_refuses_what_is_not_there(planted):
    index = json.loads(gpuprices(planted, "explain", "index", "h100-sxm5-80gb", "--json").stdout)
    assert index["matches"] and index["steps"] and index["provider_prices_checked"]
    training = json.loads(gpuprices(planted, "explain", "training", "llama-3.1-70b", "--no-verify", "--json").stdout)
    assert training["matches"] and [f["figure"] for f in training["figures"]][-1] == "cost on-demand"
    for arguments, named in ((["price", "no-such-gpu"], "unknown GPU"),
                             (["price", PLANTED_GPU, "--date", "2020-01-01"], "no on_demand offer")):
        result = gpuprices(planted, "explain", *arguments, check=False)
        assert result.returncode == 2 and named in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
