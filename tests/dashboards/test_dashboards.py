"""The dashboard site in a real browser: Debian's headless Chromium driven by Playwright, on the site the offline
run built. Every page loads from disk, every chart renders with data points, the console stays clean, and a
hostile listing title shows as text. Screenshots land in the test's temporary directory (path printed)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import serve_in_background

from dashboards import data as dashboard_data
from dashboards.build import build
from dashboards.serve import server

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it

HOSTILE_TITLE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def open_page(browser, url: str, width: int = 1280):
    """A loaded page with its console errors and page errors collected, once its charts have drawn."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_function(
        "Array.from(document.querySelectorAll('div.chart')).every(e => e.classList.contains('js-plotly-plot'))",
        timeout=20_000,
    )
    return page, errors


# Points in each drawn chart, and whether Plotly put an SVG on the page for it.
CHART_POINTS = """Array.from(document.querySelectorAll('div.chart')).map(e => ({
    id: e.id,
    points: (e.data || []).reduce((n, t) => n + (t.y || []).filter(v => v !== null).length, 0),
    svg: e.querySelectorAll('svg.main-svg').length > 0,
    marks: e.querySelectorAll('.scatterlayer .trace, .barlayer .trace').length,
}))"""


SPEC = re.compile(r'<script type="application/json" id="(spec-[^"]+)">(.*?)</script>', re.S)
GPU_PAGES_IN_BROWSER = 6  # every GPU page shares one template: its specs are all checked, a spread of them drawn


def test_every_chart_of_every_page_has_data_and_labelled_axes(warehouse):
    site = warehouse / "site"
    pages = sorted(site.glob("*.html")) + sorted((site / "gpu").glob("*.html"))
    for path in pages:
        specs = [json.loads(text) for _id, text in SPEC.findall(path.read_text())]
        assert specs, f"{path.name}: no chart"
        for spec in specs:
            points = sum(len([v for v in trace.get("y") or [] if v is not None]) for trace in spec["data"])
            assert points > 0, f"{path.name}: a chart without data"
            titles = json.dumps(spec.get("layout", {}))
            assert "USD" in titles or "runs" in titles or "GB" in titles or "price index" in titles, \
                f"{path.name}: axis titles {titles[:200]}"


def test_every_price_series_and_table_says_when_it_is_made_up(warehouse):
    site = warehouse / "site"
    marked_pages = set()
    for path in sorted(site.glob("*.html")) + sorted((site / "gpu").glob("*.html")):
        html = path.read_text()
        for chart_id, text in SPEC.findall(html):
            if chart_id == "spec-runs-per-day":
                continue  # run counts, not prices
            for trace in json.loads(text)["data"]:
                synthetic = trace.get("meta", {}).get("synthetic")
                assert isinstance(synthetic, bool), f"{path.name} {chart_id}: a price series without its flag"
                if synthetic:
                    marked_pages.add(path.name)
                    labels = json.dumps([trace.get("name"), trace.get("text"), trace.get("marker")])
                    assert "(synthetic)" in labels or "#d4a72c" in labels, f"{path.name} {chart_id}: unmarked"
    # the offline run replays made-up recordings: the overview, the GPU list and the training page all show some
    assert {"index.html", "gpus.html", "training.html"} <= marked_pages, marked_pages
    assert 'class="badge synthetic"' in (site / "gpus.html").read_text().split("<table>", 1)[1]  # the GPU list


def test_pages_render_their_charts_in_a_browser_with_no_console_errors(browser, warehouse, tmp_path):
    site = warehouse / "site"
    gpu_pages = sorted((site / "gpu").glob("*.html"))
    step = max(1, len(gpu_pages) // GPU_PAGES_IN_BROWSER)
    sample = sorted({*gpu_pages[::step], site / "gpu" / "h100-sxm5-80gb.html"})
    pages = sorted(site.glob("*.html")) + sample
    assert {p.name for p in pages} >= {"index.html", "gpus.html", "training.html", "sources.html",
                                       "h100-sxm5-80gb.html"}
    shots = tmp_path / "screenshots"
    shots.mkdir()
    for path in pages:
        page, errors = open_page(browser, path.as_uri())
        charts = page.evaluate(CHART_POINTS)
        assert charts, f"{path.name}: no chart"
        for chart in charts:
            assert chart["svg"] and chart["marks"] > 0 and chart["points"] > 0, f"{path.name}: {chart}"
        assert errors == [], f"{path.name}: console errors {errors}"
        # dates and currencies are labelled on every chart axis
        titles = page.evaluate("Array.from(document.querySelectorAll('.g-ytitle, .g-xtitle')).map(e => e.textContent)")
        assert any("USD" in t or "runs" in t or "GB" in t for t in titles), f"{path.name}: axis titles {titles}"
        page.screenshot(path=str(shots / f"{path.parent.name}-{path.stem}.png"), full_page=True)
        page.close()
    print(f"screenshots: {shots}")
    assert len(list(shots.glob("*.png"))) == len(pages)


def test_pages_fit_a_phone_width(browser, warehouse):
    for name in ("index.html", "gpu/h100-sxm5-80gb.html", "training.html", "sources.html"):
        page, errors = open_page(browser, (warehouse / "site" / name).as_uri(), width=390)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{name} is {overflow}px wider than a 390px phone"
        assert errors == []
        page.close()


def test_a_hostile_listing_title_shows_as_text(browser, warehouse, tmp_path):
    data = dashboard_data.load(warehouse / "gpuprices.duckdb")
    gpu = next(g for g in data.gpus if g.gpu_id == "h100-sxm5-80gb")
    gpu.cheapest_offers[0] = {**gpu.cheapest_offers[0], "title": HOSTILE_TITLE, "url": "javascript:alert(1)"}
    data.quarantine.insert(0, {"source": "vast", "observed_at": None, "scope": "row", "reason": "zero_price",
                               "detail": HOSTILE_TITLE})
    site = tmp_path / "site"
    build(data, site=site)
    for name in ("gpu/h100-sxm5-80gb.html", "sources.html"):
        page, errors = open_page(browser, (site / name).as_uri())
        assert page.evaluate("window.__pwned") is None, f"{name}: injected script ran"
        assert HOSTILE_TITLE in page.inner_text("main"), f"{name}: the title is not shown as text"
        assert page.locator('a[href^="javascript:"]').count() == 0
        assert errors == []
        page.close()


def test_served_on_localhost_only(browser, warehouse):
    httpd = server(warehouse / "site", port=0)
    host, port = httpd.server_address[:2]
    assert host == "127.0.0.1"
    serve_in_background(httpd)
    try:
        page, errors = open_page(browser, f"http://127.0.0.1:{port}/index.html")
        assert "GPU prices on 2026-05-01" in page.inner_text("h1")
        assert errors == []
        page.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_run_report_names_the_site(warehouse):
    reports = sorted((warehouse / "reports").glob("run-*.json"))
    report = json.loads(reports[-1].read_text())
    assert report["dashboard"] == str(warehouse / "site") and report["dashboard_error"] is None
    assert (warehouse / "site" / "index.html").exists()
