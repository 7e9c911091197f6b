"""A GPU page's history charts (dashboards/gpu_charts.py): every observation over the whole history, the offline
replay's days drawn apart and labelled, long gaps left open, the matched-offer price index per market, and a page
of years of daily history that stays light.

The fast tests feed the chart builder rows shaped like the marts'; the slow ones import real-shaped weekly history
older than the replay window into a copy of the offline run's warehouse (`gpuprices import prices`, which rebuilds
the marts), build the site and read the H200 SXM page (a GPU no bundled history covers) as a browser draws it."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date, timedelta
from decimal import Decimal

import pytest

from conftest import gpuprices
from test_dashboards import open_page
from dashboards.build import environment
from dashboards.data import GpuPage
from dashboards.gpu_charts import GAP_DAYS, MAX_DRAWN_POINTS, index_chart, price_charts

REPLAY_START, REPLAY_END = date(2026, 4, 2), date(2026, 5, 1)
SPEC = re.compile(r'<script type="application/json" id="(spec-[^"]+)">(.*?)</script>', re.S)


def price_row(day: date, price: float, synthetic: bool, market=("cloud", "on_demand", "gpu_hour")) -> dict:
    amount = Decimal(f"{price:.6f}")
    return {"gpu_id": "h100-sxm5-80gb", "price_date": day, "channel": market[0], "market": market[1],
            "price_per": market[2], "min_price_usd": amount, "median_price_usd": amount * Decimal("1.2"),
            "offer_count": 3, "is_synthetic": synthetic,
            "trailing_30d_min_usd": amount, "trailing_30d_median_usd": amount * Decimal("1.1"),
            "trailing_90d_min_usd": amount * Decimal("0.9"), "trailing_90d_median_usd": amount * Decimal("1.15")}


def weekly(first: date, last: date) -> list[date]:
    return [first + timedelta(days=7 * n) for n in range((last - first).days // 7 + 1)]


def replay_days() -> list[date]:
    return [REPLAY_START + timedelta(days=n) for n in range((REPLAY_END - REPLAY_START).days + 1)]


def history() -> list[dict]:
    """Weekly real prices 2023-01-02..2023-06-26, none 2023-06-27..2023-09-03 (a 70-day gap), weekly again to
    2024-06-24; then nothing until the 30 replay days of 2026 (synthetic)."""
    days = weekly(date(2023, 1, 2), date(2023, 6, 26)) + weekly(date(2023, 9, 4), date(2024, 6, 24))
    return [price_row(d, 4.0 - n * 0.01, False) for n, d in enumerate(days)] + \
        [price_row(d, 2.5, True) for d in replay_days()]


def traces(chart: dict, role: str) -> list[dict]:
    return [t for t in chart["spec"]["data"] if t["meta"]["role"] == role]


def drawn_days(trace: dict) -> list[str]:
    return [x for x, y in zip(trace["x"], trace["y"], strict=True) if y is not None]


def segments(trace: dict) -> list[list[str]]:
    """The pieces of a line as Plotly draws it: a None y ends one."""
    pieces, piece = [], []
    for x, y in zip(trace["x"], trace["y"], strict=True):
        if y is None:
            pieces, piece = pieces + [piece], []
        else:
            piece.append(x)
    return [p for p in [*pieces, piece] if p]


def test_the_price_chart_spans_every_observation_not_just_the_replay():
    (chart,) = price_charts(history())
    start, end = chart["spec"]["layout"]["xaxis"]["range"]
    assert start <= "2023-01-02" and end >= "2026-05-01", (start, end)
    (observed,) = [t for t in traces(chart, "cheapest") if not t["meta"]["replay"]]
    assert drawn_days(observed)[0] == "2023-01-02" and drawn_days(observed)[-1] == "2024-06-24"
    assert len(drawn_days(observed)) == len([r for r in history() if not r["is_synthetic"]])


def test_replay_days_are_drawn_apart_and_labelled():
    (chart,) = price_charts(history())
    cheapest = {t["meta"]["replay"]: t for t in traces(chart, "cheapest")}
    observed, replay = cheapest[False], cheapest[True]
    replay_dates = {d.isoformat() for d in replay_days()}
    assert set(drawn_days(replay)) == replay_dates
    assert not replay_dates & set(drawn_days(observed)), "a replay day drawn as observed"
    assert replay["line"]["dash"] == "dash" and replay["line"]["color"] != observed["line"]["color"]
    assert "dash" not in observed["line"]
    assert replay["meta"]["synthetic"] and "(synthetic)" in replay["name"] and "replay" in replay["name"]
    assert not observed["meta"]["synthetic"] and "synthetic" not in observed["name"]
    # every band and median of the replay days is its own trace too
    replayed = [t for t in chart["spec"]["data"] if t["meta"]["role"] in ("median", "band") and t["meta"]["replay"]]
    assert len(replayed) == 3 and all(set(drawn_days(t)) <= replay_dates for t in replayed)
    # the shaded band over the replay days, labelled
    (shape,) = chart["spec"]["layout"]["shapes"]
    assert shape["x0"] < "2026-04-02" and shape["x1"] > "2026-05-01" and shape["x1"] < "2026-05-02"
    assert [a["text"] for a in chart["spec"]["layout"]["annotations"]] == ["replay"]
    assert chart["replay_days"] == 30


def test_a_gap_longer_than_the_rule_breaks_the_line_and_a_weekly_step_does_not():
    (chart,) = price_charts(history())
    (observed,) = [t for t in traces(chart, "cheapest") if not t["meta"]["replay"]]
    pieces = segments(observed)
    assert [(p[0], p[-1]) for p in pieces] == [("2023-01-02", "2023-06-26"), ("2023-09-04", "2024-06-24")]
    assert observed["mode"] == "lines+markers" and observed["line"]["shape"] == "hv"  # weekly: steps and markers
    for band in traces(chart, "band"):  # no band is filled across the gap either
        assert band["fill"] == "toself"
        assert not any(a <= "2023-07-15" <= b for a, b in ((min(p), max(p)) for p in segments(band)))
    # exactly at the rule: joined
    days = [date(2024, 1, 1), date(2024, 1, 1) + timedelta(days=GAP_DAYS)]
    (joined,) = price_charts([price_row(d, 3.0, False) for d in days])
    assert len(segments(traces(joined, "cheapest")[0])) == 1
    (broken,) = price_charts([price_row(d, 3.0, False) for d in [days[0], days[1] + timedelta(days=1)]])
    assert len(segments(traces(broken, "cheapest")[0])) == 2


def test_the_index_chart_has_every_market_over_the_whole_history():
    rows = [{"price_date": r["price_date"], "channel": r["channel"], "market": r["market"],
             "price_per": r["price_per"], "price_index": 100.0 - n * 0.5, "is_synthetic": r["is_synthetic"]}
            for n, r in enumerate(history())]
    rows += [{**r, "market": "spot", "price_index": 100.0} for r in rows if r["is_synthetic"]]
    chart = index_chart(rows)
    by_name = {t["name"]: t for t in chart["spec"]["data"]}
    assert set(by_name) == {"cloud on demand", "cloud on demand, replay (synthetic)",
                            "cloud spot, replay (synthetic)"}
    assert all(t["meta"]["role"] == "index" for t in by_name.values())
    assert drawn_days(by_name["cloud on demand"])[0] == "2023-01-02"
    assert len(segments(by_name["cloud on demand"])) == 2  # the 70-day gap
    assert by_name["cloud on demand, replay (synthetic)"]["line"]["dash"] == "dash"
    assert chart["spec"]["layout"]["xaxis"]["range"][0] <= "2023-01-02"
    assert [a["text"] for a in chart["spec"]["layout"]["annotations"]] == ["replay"]
    assert index_chart([]) is None


def test_years_of_daily_history_are_drawn_thinned_and_the_page_stays_light():
    markets = [("cloud", p, "gpu_hour") for p in ("on_demand", "spot", "reserved_1y", "reserved_3y")] + \
        [("marketplace", "marketplace_on_demand", "gpu_hour"), ("marketplace", "marketplace_spot", "gpu_hour"),
         ("retail", "retail_new", "card"), ("retail", "retail_used", "card")]
    first = REPLAY_END - timedelta(days=5 * 365)
    days = [first + timedelta(days=n) for n in range((REPLAY_END - first).days + 1)]
    prices = [price_row(d, 2.0 + (n % 97) / 100, d >= REPLAY_START, market)
              for market in markets for n, d in enumerate(days)]
    index = [{**{k: r[k] for k in ("price_date", "channel", "market", "price_per", "is_synthetic")},
              "price_index": 100 + float(r["min_price_usd"])} for r in prices]
    kept = [dict(r) for r in prices]
    charts = price_charts(prices)
    assert prices == kept, "thinning touched the rows themselves"
    for chart in charts:
        assert chart["days"] == len(days) and chart["thinned_to_days"] and chart["thinned_to_days"] > 1
        for trace in chart["spec"]["data"]:
            assert len(drawn_days(trace)) <= 2 * MAX_DRAWN_POINTS  # a band's outline goes there and back
        (observed,) = [t for t in traces(chart, "cheapest") if not t["meta"]["replay"]]
        assert drawn_days(observed)[0] == first.isoformat()  # still from the very first day
        assert len(segments(observed)) == 1  # thinning is no gap
    page = GpuPage(gpu_id="h100-sxm5-80gb", spec=None, name="H100", prices=prices, signals=[], rent_vs_buy=None,
                   cheapest_offers=[], price_index=index)
    html = environment().get_template("gpu.html").render(
        latest_date=REPLAY_END, has_synthetic=True, built_at="", root="../", title="H100", gpu=page, any_deal=False,
        series_charts=charts, index_chart=index_chart(index), gap_days=GAP_DAYS, offers_date=None)
    assert len(html.encode()) < 1_500_000, f"{len(html.encode())} bytes"
    assert "drawn as the cheapest day of every" in html


def test_chart_text_is_escaped_in_the_page():
    hostile = '</script><script>window.__pwned = 1</script>'
    rows = [price_row(d, 3.0, False, ("cloud", hostile, "gpu_hour")) for d in weekly(date(2024, 1, 1),
                                                                                       date(2024, 3, 1))]
    page = GpuPage(gpu_id="x", spec=None, name=hostile, prices=rows, signals=[], rent_vs_buy=None,
                   cheapest_offers=[], price_index=[])
    html = environment().get_template("gpu.html").render(
        latest_date=date(2024, 3, 1), has_synthetic=False, built_at="", root="../", title=hostile, gpu=page,
        any_deal=False, series_charts=price_charts(rows), index_chart=None, gap_days=GAP_DAYS, offers_date=None)
    assert "<script>window.__pwned" not in html
    (spec,) = [json.loads(text) for _id, text in SPEC.findall(html)]
    assert spec["data"][0]["x"][0] == "2024-01-01"


def test_the_providers_behind_the_index_are_listed_beside_it_escaped_and_marked():
    """The provider moves (dashboards/data.py, from marts.gpu_price_relatives_daily) under the index chart: each
    mover with its change, latest price and synthetic mark; a hostile provider name stays text; none: said so."""
    index = [{"gpu_id": "h100-sxm5-80gb", "price_date": d, "channel": "cloud", "market": "on_demand",
              "price_per": "gpu_hour", "price_index": 100.0, "matched_provider_count": 2, "is_synthetic": False}
             for d in weekly(date(2024, 1, 1), date(2024, 3, 1))]
    moves = [{"gpu_id": "h100-sxm5-80gb", "channel": "cloud", "market": "on_demand", "price_per": "gpu_hour",
              "provider": "lambda", "matched_days": 29, "change": 0.16, "price_usd": Decimal("3.99"),
              "last_date": date(2024, 3, 1), "is_synthetic": False},
             {"gpu_id": "h100-sxm5-80gb", "channel": "cloud", "market": "spot", "price_per": "gpu_hour",
              "provider": "<b>evil</b>", "matched_days": 3, "change": -0.043, "price_usd": Decimal("1.29"),
              "last_date": date(2024, 3, 1), "is_synthetic": True}]

    def render(provider_moves):
        page = GpuPage(gpu_id="h100-sxm5-80gb", spec=None, name="H100", prices=[], signals=[], rent_vs_buy=None,
                       cheapest_offers=[], price_index=index, provider_moves=provider_moves)
        return environment().get_template("gpu.html").render(
            latest_date=date(2024, 3, 1), has_synthetic=True, built_at="", root="../", title="H100", gpu=page,
            any_deal=False, series_charts=[], index_chart=index_chart(index), gap_days=GAP_DAYS, offers_date=None,
            provider_move_days=30)

    html = render(moves)
    rows = re.findall(r"<tr><td>cloud</td>.*?</tr>", html, re.S)
    assert len(rows) == 2
    assert "lambda" in rows[0] and "+16.0%" in rows[0] and "$3.99/GPU-h" in rows[0] and "synthetic" not in rows[0]
    assert "-4.3%" in rows[1] and "synthetic" in rows[1]
    assert "<b>evil</b>" not in html and "&lt;b&gt;evil&lt;/b&gt;" in html
    assert "No provider's price moved in the last 30 days" in render([])


# -- end to end: real-shaped weekly history imported beside the offline run's replay ----------------------------------
HISTORY_SOURCE = "testcloud-history"
HISTORY_PAGE = "h200-sxm-141gb.html"


@pytest.fixture(scope="module")
def history_site(warehouse, tmp_path_factory):
    """The offline run's warehouse (copied) plus weekly H200 SXM on-demand prices 2023-01..2024-06 with a 70-day
    gap, imported as real observations; the marts rebuilt and the site built."""
    home = tmp_path_factory.mktemp("history") / "home"
    shutil.copytree(warehouse, home, ignore=shutil.ignore_patterns("site", ".site.*"))
    lines = ["observed_at,gpu,market,price,currency,provider,region"]
    for row in history():
        if not row["is_synthetic"]:
            lines.append(f"{row['price_date']}T12:00:00Z,NVIDIA H200 SXM 141GB,on_demand,{row['min_price_usd']},USD,"
                         "testcloud,us-central1")
    csv = home.parent / "h200_weekly.csv"
    csv.write_text("\n".join(lines) + "\n")
    gpuprices(home, "import", "prices", str(csv), "--source", HISTORY_SOURCE)
    gpuprices(home, "dashboard", "build")
    return home


def page_specs(site, name: str) -> dict[str, dict]:
    return {chart_id: json.loads(text) for chart_id, text in SPEC.findall((site / "gpu" / name).read_text())}


@pytest.mark.slow
def test_imported_history_older_than_the_replay_is_on_the_gpu_page(history_site):
    specs = page_specs(history_site / "site", HISTORY_PAGE)
    html = (history_site / "site" / "gpu" / HISTORY_PAGE).read_text()
    (on_demand,) = [spec for spec in specs.values()
                    if any(t["meta"]["role"] == "cheapest" and drawn_days(t)[0] == "2023-01-02" for t in spec["data"])]
    assert on_demand["layout"]["xaxis"]["range"][0] <= "2023-01-02"
    assert on_demand["layout"]["xaxis"]["range"][1] >= "2026-05-01"
    cheapest = {t["meta"]["replay"]: t for t in on_demand["data"] if t["meta"]["role"] == "cheapest"}
    assert drawn_days(cheapest[False])[0] == "2023-01-02"
    assert len(segments(cheapest[False])) == 2, "the 70-day gap of the imported history is drawn as observed"
    assert min(drawn_days(cheapest[True])) >= "2026-04-28" and cheapest[True]["line"]["dash"] == "dash"
    assert not {d for d in drawn_days(cheapest[False]) if d >= "2026-01-01"}, "replay days drawn as observed"
    # the index chart: the cloud on-demand index from the first imported day, the replay apart
    index = specs["spec-price-index"]
    names = {t["name"]: t for t in index["data"]}
    assert drawn_days(names["cloud on demand"])[0] == "2023-01-02"
    assert "cloud on demand, replay (synthetic)" in names
    assert 'labelled "replay"' in html and f"{GAP_DAYS} days pass without an observation" in html


@pytest.mark.slow
def test_the_history_page_draws_in_a_browser(browser, history_site):
    page, errors = open_page(browser, (history_site / "site" / "gpu" / HISTORY_PAGE).as_uri())
    drawn = page.evaluate("""Array.from(document.querySelectorAll('div.chart')).map(e => ({
        id: e.id, range: e._fullLayout.xaxis.range,
        traces: e._fullData.map(t => ({name: t.name, replay: (t.meta || {}).replay, role: (t.meta || {}).role,
                                       dash: t.line && t.line.dash, nulls: Array.from(t.y).filter(v => v === null).length,
                                       first: t.x[0]})),
        shapes: (e._fullLayout.shapes || []).length,
        paths: e.querySelectorAll('.scatterlayer .trace path.js-line').length}))""")
    by_id = {chart["id"]: chart for chart in drawn}
    index = by_id["chart-price-index"]
    assert any(t["role"] == "index" and not t["replay"] and t["first"].startswith("2023-01-02")
               for t in index["traces"])
    assert index["shapes"] >= 1 and index["paths"] > 0
    on_demand = next(c for c in drawn if any(t["role"] == "cheapest" and t["first"].startswith("2023-01-02")
                                             for t in c["traces"]))
    assert on_demand["range"][0] <= "2023-01-02"
    observed = next(t for t in on_demand["traces"] if t["role"] == "cheapest" and not t["replay"])
    replay = next(t for t in on_demand["traces"] if t["role"] == "cheapest" and t["replay"])
    assert observed["nulls"] == 1 and observed["dash"] == "solid" and replay["dash"] == "dash"
    assert on_demand["shapes"] == 1
    assert errors == []
    page.close()
