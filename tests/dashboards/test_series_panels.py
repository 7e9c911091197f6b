"""No line across a panel change (issue 40): a GPU page draws each market's cheapest one constant-panel segment at a
time (marts.gpu_price_panels), each segment its own traces, and each provider with history as its own line.

The fast tests feed the chart builder rows shaped like the marts'; the browser test draws the H100 page of the offline
run's site (GCP's imported list prices 2024-25 alone, then the replayed providers) and reads every drawn line's SVG
path: each lies within its own panel's days."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal

import pytest

from conftest import sql_rows
from test_dashboards import open_page
from dashboards.gpu_charts import panel_segments, price_charts

GCP_DAYS = [date(2024, 5, 17) + timedelta(days=7 * n) for n in range(20)]
PANEL_DAYS = [date(2026, 4, 2) + timedelta(days=n) for n in range(30)]


def row(day: date, price: str, providers: str, synthetic: bool) -> dict:
    amount = Decimal(price)
    return {"gpu_id": "h100-sxm5-80gb", "price_date": day, "channel": "cloud", "market": "on_demand",
            "price_per": "gpu_hour", "min_price_usd": amount, "median_price_usd": amount, "offer_count": 3,
            "is_synthetic": synthetic, "panel_id": providers, "panel_providers": providers,
            "provider_count": len(providers.split(",")), "panel_start": None,
            "trailing_30d_min_usd": amount, "trailing_30d_median_usd": amount,
            "trailing_90d_min_usd": amount, "trailing_90d_median_usd": amount}


def planted() -> list[dict]:
    """GCP alone weekly in 2024 (11.06), then three providers daily in 2026 (1.29), the first 10 of those days
    observed and the rest replay, and a day in the middle where one provider is missing (another panel)."""
    rows = [row(day, "11.06", "gcp", False) for day in GCP_DAYS]
    for number, day in enumerate(PANEL_DAYS):
        rows.append(row(day, "1.29" if number != 15 else "1.99", "gcp,lambda,runpod" if number != 15 else "gcp,runpod",
                        number >= 10))
    return rows


def drawn(trace: dict) -> list[str]:
    return [x for x, y in zip(trace["x"], trace["y"], strict=True) if y is not None]


def test_each_panel_is_its_own_series_and_no_trace_spans_a_change():
    gcp_own = [{"gpu_id": "h100-sxm5-80gb", "price_date": day, "channel": "cloud", "market": "on_demand",
                "price_per": "gpu_hour", "provider": "gcp", "source": "gcp", "min_price_usd": Decimal("11.06"),
                "is_synthetic": False, "is_imported": False} for day in PANEL_DAYS]
    (chart,) = price_charts(planted(), gcp_own)
    assert [(s["name"], s["first_date"], s["last_date"]) for s in chart["segments"]] == [
        ("gcp alone from 2024-05-17", GCP_DAYS[0], GCP_DAYS[-1]),
        ("cheapest of 3 providers from 2026-04-02", PANEL_DAYS[0], PANEL_DAYS[14]),
        ("cheapest of 2 providers from 2026-04-17", PANEL_DAYS[15], PANEL_DAYS[15]),
        ("cheapest of 3 providers from 2026-04-18", PANEL_DAYS[16], PANEL_DAYS[-1])]
    by_panel = {}
    for trace in chart["spec"]["data"]:
        meta = trace["meta"]
        days = drawn(trace) if trace["meta"]["role"] != "band" else [x for x in trace["x"]]
        assert days and all(meta["panel_start"] <= day <= meta["panel_end"] for day in days), trace["name"]
        if meta["role"] == "cheapest":
            by_panel.setdefault(meta["panel_start"], []).append(trace)
    assert sorted(by_panel) == ["2024-05-17", "2026-04-02", "2026-04-17", "2026-04-18"]
    # the 3-provider segment from 04-02: observed days one trace, replay days another, both only its own days
    first_panel = {t["meta"]["replay"]: t for t in by_panel["2026-04-02"]}
    assert drawn(first_panel[False]) == [d.isoformat() for d in PANEL_DAYS[:10]]
    assert drawn(first_panel[True]) == [d.isoformat() for d in PANEL_DAYS[10:15]]
    assert "(synthetic)" in first_panel[True]["name"] and first_panel[True]["line"]["dash"] == "dash"
    # GCP's own price is its own line, named, beside the segments
    (own,) = [t for t in chart["spec"]["data"] if t["meta"]["role"] == "provider"]
    assert own["name"] == "gcp's own price" and drawn(own)[0] == PANEL_DAYS[0].isoformat()
    # no 11.06 and 1.29 in one trace: the 88% "crash" is drawn nowhere
    for trace in chart["spec"]["data"]:
        values = {y for y in trace["y"] if y is not None}
        assert not (values & {11.06} and values & {1.29}), trace["name"]


def test_rows_without_a_panel_are_one_series_and_the_mart_start_cuts_a_returning_panel():
    rows = planted()
    assert len(panel_segments([{**r, "panel_id": None, "panel_providers": None} for r in rows])) == 1
    # the same providers again after another panel: a new segment by its start day (gpu_price_panels)
    again = [{**r, "panel_start": GCP_DAYS[0] if r["price_date"] < PANEL_DAYS[0] else PANEL_DAYS[0]} for r in rows]
    assert [len(s) for s in panel_segments(again)] == [len(GCP_DAYS), len(PANEL_DAYS)]


# -- the offline run's site, drawn ----------------------------------------------------------------------------------
H100 = "h100-sxm5-80gb"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def path_xs(d: str) -> list[float]:
    """The x of every point of an SVG path of Plotly's (M/L/H/V commands; hv steps use H and V)."""
    xs = []
    for command, args in re.findall(r"([MLHVZ])([^MLHVZ]*)", d):
        numbers = [float(n) for n in NUMBER.findall(args)]
        if command in "ML":
            xs += numbers[0::2]
        elif command == "H":
            xs += numbers
    return xs


@pytest.mark.slow
def test_the_h100_page_draws_no_line_across_a_panel_change(browser, warehouse):
    panels = sql_rows(warehouse, f"""SELECT market, panel_start::VARCHAR AS panel_start, panel_end::VARCHAR AS panel_end,
                                         provider_count FROM marts.gpu_price_panels
                                  WHERE gpu_id = '{H100}' AND channel = 'cloud' AND market = 'on_demand'
                                  ORDER BY panel_start""")
    assert len(panels) >= 2, "the offline run's H100 on demand: GCP's imported list prices, then the replay's panel"
    assert panels[0]["provider_count"] == 1 and panels[-1]["provider_count"] > 1
    page, errors = open_page(browser, (warehouse / "site" / "gpu" / f"{H100}.html").as_uri())
    charts = page.evaluate("""Array.from(document.querySelectorAll('div.chart')).map(e => {
        const groups = Array.from(e.querySelectorAll('.scatterlayer .trace'));
        return {title: (e.closest('section').querySelector('h3') || {}).textContent,
                traces: e._fullData.map((t, i) => ({
                    name: t.name, meta: t.meta || {}, x: Array.from(t.x), y: Array.from(t.y),
                    start: t.meta && t.meta.panel_start ? e._fullLayout.xaxis.d2p(t.meta.panel_start) : null,
                    end: t.meta && t.meta.panel_end ? e._fullLayout.xaxis.d2p(t.meta.panel_end) : null,
                    paths: groups.filter(g => g.__data__ && g.__data__[0] && g.__data__[0].trace
                                              && g.__data__[0].trace.index === i)
                                 .flatMap(g => Array.from(g.querySelectorAll('path.js-line')))
                                 .map(p => p.getAttribute('d')).filter(d => d && d !== 'M0,0Z')}))};
    })""")
    (on_demand,) = [c for c in charts if c["title"] == "cloud on demand"]
    cheapest = [t for t in on_demand["traces"] if t["meta"].get("role") == "cheapest"]
    # one series per segment of the mart: the page's segments are the mart's
    assert sorted({t["meta"]["panel_start"] for t in cheapest}) == [p["panel_start"] for p in panels]
    drawn_paths = 0
    for chart in charts:
        for trace in chart["traces"]:
            meta = trace["meta"]
            if meta.get("role") not in ("cheapest", "median", "provider"):
                continue
            days = [x[:10] for x, y in zip(trace["x"], trace["y"]) if y is not None]
            assert all(meta["panel_start"] <= day <= meta["panel_end"] for day in days), (chart["title"], trace["name"])
            for d in trace["paths"]:  # the line as drawn: every point within its panel's days
                drawn_paths += 1
                xs = path_xs(d)
                assert xs and trace["start"] - 1 <= min(xs) and max(xs) <= trace["end"] + 1, (chart["title"],
                                                                                            trace["name"], d[:80])
    assert drawn_paths >= len(cheapest)
    # GCP's list prices are their own line, labelled, apart from the replay's cheapest
    assert any(t["name"].startswith("gcp alone from") and not t["meta"]["replay"] for t in cheapest)
    assert errors == []
    page.close()


def test_the_training_charts_never_join_one_providers_years_to_the_markets_days():
    """The training page's cost lines (cheapest plan per model, a model's ten cheapest GPUs) break where the prices
    behind them go from one provider to several (GCP's list-price history, then the replayed market) and across a
    gap of more than two weeks; each part is its own trace of the model's colour, one legend entry per model."""
    from dashboards.build import TRAINING_HISTORY_GAP_DAYS, _training_history_chart, training_history_segments

    def cost(day: date, providers: int, model: str = "llama-3.1-8b") -> dict:
        return {"model_id": model, "price_date": day, "cheapest_cost_usd": 1e6, "low_cost_usd": 8e5,
                "high_cost_usd": 2e6, "on_demand_provider_count": providers, "is_synthetic": False}

    history = [cost(day, 1) for day in GCP_DAYS]  # weekly, one provider
    market = [cost(day, 18 if n % 2 else 17) for n, day in enumerate(PANEL_DAYS)]  # daily, many (a count that moves)
    segments = training_history_segments(history + market)
    assert [len(part) for part in segments] == [len(history), len(market)]
    # a gap longer than the limit breaks a line even within one panel; one within it does not
    far = GCP_DAYS[-1] + timedelta(days=TRAINING_HISTORY_GAP_DAYS + 1)
    assert len(training_history_segments(history + [cost(far, 1)])) == 2
    near = GCP_DAYS[-1] + timedelta(days=TRAINING_HISTORY_GAP_DAYS)
    assert len(training_history_segments(history + [cost(near, 1)])) == 1
    chart = _training_history_chart(history + market + [cost(PANEL_DAYS[0], 5, "qwen3-8b")])
    traces = [trace for trace in chart["data"] if trace["legendgroup"] == "llama-3.1-8b"]
    assert len(traces) == 2 and [trace["showlegend"] for trace in traces] == [True, False]
    assert len({trace["line"]["color"] for trace in traces}) == 1
    assert traces[0]["x"][-1] == GCP_DAYS[-1].isoformat() or str(traces[0]["x"][-1]).startswith(str(GCP_DAYS[-1]))
    assert "one provider's prices" in traces[0]["hovertemplate"]
    assert "one provider's prices" not in traces[1]["hovertemplate"]
