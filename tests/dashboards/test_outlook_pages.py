"""The price outlook on the site (issue 26 part 5) and the pages reading the marts only (issue 27).

The fast tests write the outlook and its per-series scores with the real code (analytics.outlook.write_mart and
write_scores) for hand-made series into an in-memory DuckDB, expose them as the two marts' views (as the dbt models
do), read them with the dashboards' own query and render the site: a GPU page draws each outlook as a fan with its
figures and its own backtest from the marts, the overview lists the series most likely to drop and to rise in
order, and a synthetic series' outlook traces carry the synthetic mark. The slow ones read the offline run's
warehouse: every query the pages run names marts (or the reference seeds) only, and a GPU page shows the figures
of marts.gpu_price_outlook_scores."""

from __future__ import annotations

import json
import math
import random
import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from html import unescape
from pathlib import Path

import duckdb
import pytest

from analytics import outlook, outlook_scoring
from analytics.price_history import PriceSeries
from dashboards import data as dashboard_data
from dashboards.build import render
from dashboards.data import (
    DashboardData,
    GpuPage,
    held_list_prices,
    outlook_disagreement,
    outlook_lists,
    read_outlooks,
)
from warehouse.store.markets import MARKETS
from warehouse.store.schema import create_raw_schema

ROOT = Path(__file__).resolve().parents[2]
SPEC = re.compile(r'<script type="application/json" id="(spec-[^"]+)">(.*?)</script>', re.S)
LATEST = date(2026, 5, 1)
CLOCK = datetime(2026, 5, 2, 12, tzinfo=UTC)  # the pages' clock: the day after LATEST (current, not greyed)
GAP = (LATEST - timedelta(days=60), LATEST - timedelta(days=20))  # l4-24gb on-demand: no observation between


def skill_text(value: float) -> str:
    """A skill as the pages print it: two decimals, a rounded zero unsigned."""
    return f"{value:.2f}".replace("-0.00", "0.00")


def walk(days: int, seed: int, drift: float = 0.0) -> list[Decimal]:
    generator, price, found = random.Random(seed), 1000.0, []
    for _ in range(days):
        if generator.random() < 0.35:
            price *= math.exp(generator.gauss(drift, 0.03))
        found.append(Decimal(f"{price:.2f}"))
    return found


def series(gpu_id: str, market: str, prices: list[Decimal], last: date = LATEST, synthetic: bool = False):
    days = [last - timedelta(days=len(prices) - 1 - i) for i in range(len(prices))]
    return PriceSeries(gpu_id, market, None, days, prices, synthetic, ["test"])


# Two long retail series of one GPU (one real, one synthetic), falling and rising rentals of other GPUs, one series
# with an outlook but too short to score, and one that stopped a year ago (its outlook is not current).
SERIES = [
    series("rtx-4090-24gb", "retail_new", walk(400, 1)),
    series("rtx-4090-24gb", "retail_used", walk(300, 2), synthetic=True),
    series("h100-sxm5-80gb", "on_demand", walk(260, 3, drift=-0.01)),
    series("a100-sxm4-80gb", "on_demand", walk(260, 4, drift=0.01)),
    series("l40s-48gb", "spot", walk(250, 5)),
    series("l4-24gb", "on_demand", walk(240, 6, drift=0.005)),
    series("t4-16gb", "spot", walk(75, 7)),
    series("v100-sxm2-16gb", "retail_used", walk(200, 8), last=LATEST - timedelta(days=365)),
]


def price_rows(found: PriceSeries) -> list[dict]:
    """The GPU page's price rows (marts.gpu_prices_daily joined with buy_signals_daily) of a series, one per day."""
    market = MARKETS[found.market]
    return [{"gpu_id": found.gpu_id, "price_date": day, "channel": market.channel, "market": found.market,
             "price_per": market.price_per, "min_price_usd": price, "median_price_usd": price, "offer_count": 2,
             "is_synthetic": found.is_synthetic, "trailing_30d_min_usd": price, "trailing_30d_median_usd": price,
             "trailing_90d_min_usd": price, "trailing_90d_median_usd": price}
            for day, price in zip(found.days, found.prices, strict=True)]


@pytest.fixture(scope="module")
def marts():
    """The outlook marts as the build leaves them: written by analytics.outlook, shown by views in marts (what
    models/models/marts/gpu_price_outlook_daily.sql and gpu_price_outlook_scores.sql are)."""
    connection = duckdb.connect()
    create_raw_schema(connection)  # the tables the series marts are written to, as the warehouse has them
    outlook.write_mart(connection, SERIES)
    outlook_scoring.write_scores(connection, SERIES)
    connection.execute("CREATE SCHEMA IF NOT EXISTS marts")
    connection.execute(f"CREATE VIEW {outlook.MART} AS SELECT * FROM {outlook.TABLE}")
    connection.execute(f"CREATE VIEW {outlook_scoring.SCORES_MART} AS SELECT * FROM {outlook_scoring.SCORES_TABLE}")
    # one series' 10% skill made negative and one's 5% skill undefined: the pages must say what the mart says
    connection.execute(f"UPDATE {outlook_scoring.SCORES_TABLE} SET drop_10pct_skill = -0.0437 "
                       "WHERE gpu_id = 'rtx-4090-24gb' AND market = 'retail_new'")
    connection.execute(f"UPDATE {outlook_scoring.SCORES_TABLE} SET drop_5pct_skill = NULL "
                       "WHERE gpu_id = 'l40s-48gb' AND market = 'spot'")
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def site(marts, tmp_path_factory):
    outlooks = read_outlooks(marts)
    drops, rises = outlook_lists(outlooks, LATEST)
    pages = []
    for gpu_id in sorted({one.gpu_id for one in SERIES}):
        prices = [r for one in SERIES if one.gpu_id == gpu_id for r in price_rows(one)
                  if not (gpu_id == "l4-24gb" and GAP[0] < r["price_date"] < GAP[1])]
        pages.append(GpuPage(gpu_id=gpu_id, spec=None, name=gpu_id, signals=[], rent_vs_buy=None,
                             cheapest_offers=[], prices=prices,
                             outlooks=[r for r in outlooks if r["gpu_id"] == gpu_id]))
    data = DashboardData(latest_date=LATEST, gpus=pages, outlook_drops=drops, outlook_rises=rises)
    target = tmp_path_factory.mktemp("outlook-site") / "site"
    render(data, target, now=CLOCK)
    return target


def mart_rows(connection, sql: str, parameters=None) -> list[dict]:
    cursor = connection.execute(sql, parameters or [])
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def specs(html: str) -> dict[str, dict]:
    return {chart_id: json.loads(text) for chart_id, text in SPEC.findall(html)}


def text_of(html: str) -> str:
    """The page's text, scripts and tags dropped, entities read and whitespace collapsed (what a reader reads)."""
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", " ", html, flags=re.S))
    return re.sub(r"\s+", " ", unescape(text)).replace(" ;", ";").replace(" :", ":")


def outlook_section(html: str, market: str) -> str:
    found = re.search(rf'<section id="outlook-{market}" class="outlook(?: stale)?">(.*?)</section>', html, re.S)
    assert found, f"no outlook section for {market}"
    return found.group(1)


def test_a_gpu_page_draws_each_outlook_as_a_fan_with_its_own_backtest_from_the_marts(marts, site):
    html = (site / "gpu" / "rtx-4090-24gb.html").read_text()
    (row,) = mart_rows(marts, """
        SELECT o.price_date, o.price_usd, o.p10_price_usd, o.p50_price_usd, o.p90_price_usd, o.prob_drop_5pct,
               o.prob_drop_10pct, s.scored_days, s.drop_5pct_skill, s.drop_10pct_skill, s.interval_80_coverage
        FROM marts.gpu_price_outlook_daily o JOIN marts.gpu_price_outlook_scores s
          ON s.gpu_id = o.gpu_id AND s.market = o.market AND s.as_of = o.price_date
        WHERE o.gpu_id = 'rtx-4090-24gb' AND o.market = 'retail_new'""")
    assert row["scored_days"] == 400 - (outlook.MIN_HISTORY_DAYS - 1) - 30
    section = text_of(outlook_section(html, "retail_new"))
    assert f"P(drop ≥ 5% within 30 days): {row['prob_drop_5pct'] * 100:.0f}%; " \
           f"scored on {row['scored_days']} past days: skill {skill_text(row['drop_5pct_skill'])}" in section, section
    # the negative skill is shown, and said to be no better than the series' own history
    assert f"P(drop ≥ 10% within 30 days): {row['prob_drop_10pct'] * 100:.0f}%; " \
           f"scored on {row['scored_days']} past days: skill -0.04: no better than the series' own history" in section
    assert f"on {row['interval_80_coverage'] * 100:.0f}% of those {row['scored_days']} days" in section
    # the fan: from today's price to the 90th and 10th percentile on t + 30, the median dashed, over the history
    chart_id = re.search(r'data-spec="(spec-outlook-\d+)"', outlook_section(html, "retail_new")).group(1)
    traces = {trace["meta"]["role"]: trace for trace in specs(html)[chart_id]["data"]}
    end = (row["price_date"] + timedelta(days=30)).isoformat()
    band = traces["outlook_band"]
    assert band["fill"] == "toself" and band["x"] == [row["price_date"].isoformat(), end, end,
                                                      row["price_date"].isoformat()]
    assert band["y"] == pytest.approx([row["price_usd"], row["p90_price_usd"], row["p10_price_usd"], row["price_usd"]])
    assert traces["outlook_p50"]["y"] == pytest.approx([row["price_usd"], row["p50_price_usd"]])
    assert traces["outlook_quantiles"]["y"] == pytest.approx([row["p10_price_usd"], row["p50_price_usd"],
                                                              row["p90_price_usd"]])
    history = traces["history"]
    assert history["x"][-1] == row["price_date"].isoformat() and len(history["x"]) == 180
    assert history["y"][-1] == pytest.approx(row["price_usd"])


def test_a_series_not_yet_scored_or_with_an_undefined_skill_says_so(site):
    short = text_of(outlook_section((site / "gpu" / "t4-16gb.html").read_text(), "spot"))
    assert "P(drop ≥ 5% within 30 days)" in short
    assert "not scored yet: it needs 90 days of history to have a past day with a known outcome (75 so far)" in short
    # the kind's out-of-sample skill is said once, in the basis note (spot: the base rate); no skill of its own
    assert "skill" not in short.replace("not scored yet", "").split("own rate of such drops", 1)[-1]
    undefined = text_of(outlook_section((site / "gpu" / "l40s-48gb.html").read_text(), "spot"))
    assert "skill not defined" in undefined
    # a series that stopped a year ago: its page says the outlook is for the days after its last price
    stale = text_of(outlook_section((site / "gpu" / "v100-sxm2-16gb.html").read_text(), "retail_used"))
    assert f"last price is from {LATEST - timedelta(days=365)}" in stale
    # and, over the stale limit by the pages' clock, it is greyed with its age
    html = (site / "gpu" / "v100-sxm2-16gb.html").read_text()
    assert '<section id="outlook-retail_used" class="outlook stale">' in html and "366 days old" in stale
    assert '<section id="outlook-retail_used" class="outlook">' in (site / "gpu" / "rtx-4090-24gb.html").read_text()


def overview_rows(html: str, heading: str) -> list[dict]:
    table = re.search(rf"<h3>{heading}</h3>\s*<div class=\"table-box\"><table>(.*?)</table>", html, re.S).group(1)
    found = []
    for row in re.findall(r"<tr><td><a href=\"([^\"]+)\">([^<]+)</a>(.*?)</td>\s*<td>([^<]+)(.*?)</tr>", table,
                          re.S):
        cells = re.findall(r'<td class="num">([^<]*)</td>', row[4])
        found.append({"href": row[0], "gpu_id": row[1], "badges": row[2], "market": row[3].strip(),
                      "drop_5pct": cells[1],
                      "skill": text_of(re.search(r'<td class="skill">(.*?)</td>', row[4], re.S).group(1))})
    return found


def test_the_overview_lists_the_series_most_likely_to_drop_and_to_rise_in_order(marts, site):
    html = (site / "index.html").read_text()
    current = mart_rows(marts, """
        SELECT o.gpu_id, o.market, o.prob_drop_5pct, o.p50_price_usd >= o.price_usd AS median_up,
               s.scored_days, s.drop_5pct_skill
        FROM marts.gpu_price_outlook_daily o JOIN marts.gpu_price_outlook_scores s
          ON s.gpu_id = o.gpu_id AND s.market = o.market AND s.as_of = o.price_date
        WHERE o.price_date >= ?""", [LATEST - timedelta(days=7)])
    assert len(current) == 7  # the series that stopped a year ago has no current outlook
    drops = overview_rows(html, "Most likely to drop")
    rises = overview_rows(html, "Most likely to rise or hold")
    by_key = {(r["gpu_id"], r["market"]): r for r in current}
    assert [(r["gpu_id"], r["market"]) for r in drops] == [
        (r["gpu_id"], r["market"]) for r in sorted(current, key=lambda r: -r["prob_drop_5pct"])]
    assert "v100-sxm2-16gb" not in html.split('id="outlook"')[1].split("</section>")[0]
    # every series is in the drop list here (7 under the limit of 8), so none is left to rise
    assert rises == []
    for row in drops:  # each with its probability, its own skill and a link to its section of the GPU page
        mart = by_key[(row["gpu_id"], row["market"])]
        assert row["href"] == f"gpu/{row['gpu_id']}.html#outlook-{row['market']}"
        assert row["drop_5pct"] == f"{mart['prob_drop_5pct'] * 100:.0f}%"
        if mart["scored_days"] and mart["drop_5pct_skill"] is not None:
            assert row["skill"].startswith(f"{skill_text(mart['drop_5pct_skill'])} ({mart['scored_days']})")
            assert ("no better than its history" in row["skill"]) is (round(mart["drop_5pct_skill"], 2) <= 0)
        elif mart["scored_days"]:
            assert row["skill"] == f"not defined ({mart['scored_days']})"
        else:
            assert row["skill"] == "not scored yet"
        assert ('class="badge synthetic"' in row["badges"]) is (row["gpu_id"] == "rtx-4090-24gb"
                                                                 and row["market"] == "retail_used")
    # with room for 3 in each list: the 3 likeliest drops, then the lowest chances among those whose median rises
    outlooks = read_outlooks(marts)
    few_drops, few_rises = outlook_lists(outlooks, LATEST, limit=3)
    assert [r["prob_drop_5pct"] for r in few_drops] == sorted((r["prob_drop_5pct"] for r in current),
                                                              reverse=True)[:3]
    rest = [r for r in current if (r["gpu_id"], r["market"]) not in {(d["gpu_id"], d["market"]) for d in few_drops}
            and r["median_up"]]
    assert rest, "the fixture needs a series whose median rises"
    assert [(r["gpu_id"], r["market"]) for r in few_rises] == [
        (r["gpu_id"], r["market"]) for r in sorted(rest, key=lambda r: r["prob_drop_5pct"])[:3]]
    assert all(r["p50_price_usd"] >= r["price_usd"] for r in few_rises)


def test_held_list_prices_are_told_in_one_line_not_ranked_among_the_model_outlooks(marts, tmp_path):
    """A young list price that has held 30 days gets the pooled cut rate, one rate for all: ranking hundreds of
    equal chances would order ties alphabetically, so the overview counts them in one line instead."""
    outlooks = read_outlooks(marts)
    held = [{**row, "gpu_id": f"held-{index}", "provider": f"provider-{index % 3}", "basis": "list_cut_rate",
             "prob_drop_5pct": 0.9, "basis_note": "no change seen in 30 days; P(cut within 30 days) 1.2% pooled"}
            for index, row in enumerate(outlooks[:5])]
    drops, rises = outlook_lists(outlooks + held, LATEST)
    assert not [r for r in drops + rises if r["basis"] == "list_cut_rate"]  # 0.9 would have headed the drops
    assert (drops, rises) == outlook_lists(outlooks, LATEST)
    told = held_list_prices(outlooks + held, LATEST)
    assert (told["count"], told["providers"], told["note"]) == (5, 3, "P(cut within 30 days) 1.2% pooled")
    assert held_list_prices(outlooks, LATEST) is None
    render(DashboardData(latest_date=LATEST, outlook_drops=drops, outlook_rises=rises,
                         outlook_held_list_prices=told), tmp_path / "site", now=CLOCK)
    page = (tmp_path / "site" / "index.html").read_text()
    assert 'id="held-list-prices"' in page and "5 list prices (3 providers" in page


def test_the_overview_rise_list_renders_in_order(marts, tmp_path):
    outlooks = read_outlooks(marts)
    drops, rises = outlook_lists(outlooks, LATEST, limit=2)
    render(DashboardData(latest_date=LATEST, outlook_drops=drops, outlook_rises=rises), tmp_path / "site",
           now=CLOCK)
    shown = overview_rows((tmp_path / "site" / "index.html").read_text(), "Most likely to rise or hold")
    assert [(r["gpu_id"], r["market"]) for r in shown] == [(r["gpu_id"], r["market"]) for r in rises] and shown
    chances = [float(r["drop_5pct"].rstrip("%")) for r in shown if r["drop_5pct"].endswith("%")
               and r["drop_5pct"][0].isdigit()]
    assert chances == sorted(chances)


def test_a_chance_that_contradicts_the_models_own_percentiles_is_flagged(site):
    row = {"price_usd": 100.0, "prob_drop_5pct": 0.84, "prob_drop_10pct": 0.02, "p10_price_usd": 60.0,
           "p50_price_usd": 66.0, "p90_price_usd": 83.0}
    # p90 83 <= 90: the price on t + 30 is 10% under today's with 90% chance, so a 10% drop is at least that likely
    assert outlook_disagreement(row) == {"level": 0.10, "chance": 0.02, "bound": 0.9, "percentile": "p90",
                                         "gap": pytest.approx(0.88)}
    # a median 20% lower with a 10% drop at 30%: bound 0.5, 0.2 under it, within the margin
    assert outlook_disagreement({**row, "prob_drop_10pct": 0.30, "p90_price_usd": 95.0}) is None
    assert outlook_disagreement({**row, "prob_drop_10pct": 0.20, "p90_price_usd": 95.0})["percentile"] == "p50"
    assert outlook_disagreement({**row, "p10_price_usd": 95.0, "p50_price_usd": 101.0, "p90_price_usd": 110.0}) is None


def test_the_pages_say_where_the_outlooks_parts_disagree(marts, tmp_path):
    rows = read_outlooks(marts)
    (h100,) = [r for r in rows if r["gpu_id"] == "h100-sxm5-80gb"]
    assert h100["disagreement"] is None  # the random walks' outlooks agree with themselves
    bad = {**h100, "prob_drop_10pct": 0.02, "p90_price_usd": h100["price_usd"] * 0.85}
    bad["disagreement"] = outlook_disagreement(bad)
    page = GpuPage(gpu_id="h100-sxm5-80gb", spec=None, name="H100", prices=price_rows(SERIES[2]), signals=[],
                   rent_vs_buy=None, cheapest_offers=[], outlooks=[bad])
    render(DashboardData(latest_date=LATEST, gpus=[page], outlook_drops=[bad, *[r for r in rows if r is not h100]]),
           tmp_path / "site", now=CLOCK)
    section = text_of(outlook_section((tmp_path / "site" / "gpu" / "h100-sxm5-80gb.html").read_text(), "on_demand"))
    assert "parts disagree The model's two parts disagree here: its p90 price on" in section
    assert "a 10% drop within the window should have a chance of at least 90%, yet it is given 2%" in section
    listed = overview_rows((tmp_path / "site" / "index.html").read_text(), "Most likely to drop")
    assert ["parts disagree" in r["badges"] for r in listed] == [True] + [False] * (len(listed) - 1)


def test_a_recent_gap_in_the_history_is_said_beside_the_outlook(site):
    section = text_of(outlook_section((site / "gpu" / "l4-24gb.html").read_text(), "on_demand"))
    first, last = GAP[0], GAP[1]
    assert f"No price was observed from {first} (" in section and f") to {last} (" in section
    assert f"{(last - first).days} days: the outlook's series holds the earlier price across the gap" in section
    other = text_of(outlook_section((site / "gpu" / "a100-sxm4-80gb.html").read_text(), "on_demand"))
    assert "No price was observed" not in other


def test_a_synthetic_series_outlook_traces_carry_the_synthetic_mark(site):
    html = (site / "gpu" / "rtx-4090-24gb.html").read_text()
    for market, synthetic in (("retail_used", True), ("retail_new", False)):
        section = outlook_section(html, market)
        chart_id = re.search(r'data-spec="(spec-outlook-\d+)"', section).group(1)
        outlook_traces = [t for t in specs(html)[chart_id]["data"] if t["meta"]["role"].startswith("outlook")]
        assert {t["meta"]["role"] for t in outlook_traces} == {"outlook_band", "outlook_p50", "outlook_quantiles"}
        for trace in outlook_traces:
            assert trace["meta"]["synthetic"] is synthetic, (market, trace["name"])
            assert ("(synthetic)" in trace["name"]) is synthetic
        assert ('class="badge synthetic"' in section) is synthetic
    # the synthetic series' replayed history is drawn as replay, the real one's as observed
    used = specs(html)[re.search(r'data-spec="(spec-outlook-\d+)"', outlook_section(html, "retail_used")).group(1)]
    assert [t["meta"]["replay"] for t in used["data"] if t["meta"]["role"] == "history"] == [True]


def test_outlook_text_from_the_marts_is_escaped(marts, tmp_path):
    hostile = '<img src=x onerror="window.__pwned=1">'
    (row,) = [r for r in read_outlooks(marts) if r["gpu_id"] == "h100-sxm5-80gb"]
    row = {**row, "gpu_id": hostile, "market": hostile}
    page = GpuPage(gpu_id="h100-sxm5-80gb", spec=None, name="H100", prices=price_rows(SERIES[2]), signals=[],
                   rent_vs_buy=None, cheapest_offers=[], outlooks=[row])
    render(DashboardData(latest_date=LATEST, gpus=[page], outlook_drops=[row]), tmp_path / "site", now=CLOCK)
    for name in ("index.html", "gpu/h100-sxm5-80gb.html"):
        html = (tmp_path / "site" / name).read_text()
        assert "<img src=x" not in html and "&lt;img src=x" in html, name


# -- the pages read the marts only (issue 27) ---------------------------------------------------------------------
LAYER_REFERENCE = re.compile(r"\b(?:from|join)\s+(raw|staging|intermediate|meta)\.[a-z_]+", re.I)


def test_no_dashboard_code_names_a_raw_staging_intermediate_or_meta_table():
    found = []
    for path in sorted((ROOT / "dashboards").rglob("*")):
        if path.suffix in (".py", ".html", ".js"):
            found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in LAYER_REFERENCE.finditer(path.read_text())]
    assert found == []


def test_the_layer_check_finds_a_query_below_the_marts():
    assert LAYER_REFERENCE.search("SELECT * FROM raw.ingest_runs GROUP BY source")
    assert LAYER_REFERENCE.search("JOIN intermediate.int_gpu_specs AS specs USING (gpu_id)")
    assert not LAYER_REFERENCE.search("FROM monitoring.source_runs WHERE trigger = 'import'")


class RecordingConnection:
    """A DuckDB connection that keeps every statement run through it."""

    def __init__(self, connection):
        self.connection, self.statements = connection, []

    def execute(self, sql, parameters=None):
        self.statements.append(sql)
        return self.connection.execute(sql, parameters) if parameters is not None else self.connection.execute(sql)


def tables_read(sql: str) -> set[str]:
    """The tables a statement names, as schema.table (DuckDB's own parser, json_serialize_sql: parsed, not bound;
    its parameters read as NULL); an unqualified name must be one of the statement's common table expressions."""
    plain = re.sub(r"\$\w+|\?", "NULL", sql)
    with duckdb.connect() as parser:
        tree = json.loads(parser.execute("SELECT json_serialize_sql(?)", [plain]).fetchone()[0])
    assert not tree["error"], (tree, sql)
    found: set[tuple[str, str]] = set()

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "BASE_TABLE":
                found.add((node["schema_name"], node["table_name"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(tree)
    ctes = {name.lower() for name in re.findall(r"(\w+)\s+AS\s*\(", sql, re.I)}
    unqualified = {table for schema, table in found if not schema}
    assert {table.lower() for table in unqualified} <= ctes, (unqualified, sql)
    return {f"{schema}.{table}" for schema, table in found if schema}


def test_the_table_reader_sees_every_schema_a_statement_names():
    assert tables_read("""WITH x AS (SELECT * FROM raw.ingest_runs WHERE source = $source)
        SELECT * FROM marts.gpus JOIN x USING (gpu_id) WHERE price_date = ? AND gpu_id IN (
            SELECT gpu_id FROM intermediate.int_gpu_specs)""") == {"raw.ingest_runs", "marts.gpus",
                                                                 "intermediate.int_gpu_specs"}
    with pytest.raises(AssertionError):  # a table with no schema that is no CTE of the statement
        tables_read("SELECT * FROM ingest_runs")


@pytest.mark.slow
def test_every_query_the_pages_run_reads_the_marts_only(warehouse):
    """Every statement the site's data load runs (its own and the helpers' it calls: the price series, the suspect
    prices) names tables of marts, monitoring and the reference seeds only."""
    with duckdb.connect(str(warehouse / "gpuprices.duckdb"), read_only=True) as connection:
        recording = RecordingConnection(connection)
        data = dashboard_data.load_from(recording)
    assert data.gpus and data.freshness and data.runs
    read = {name for sql in recording.statements for name in tables_read(sql)}
    assert read and {name.split(".")[0] for name in read} <= {"marts", "monitoring", "reference"}, sorted(read)
    assert {"marts.gpu_price_outlook_daily", "marts.gpu_price_outlook_scores", "monitoring.source_runs",
            "monitoring.source_freshness", "monitoring.source_quarantine", "marts.gpu_latest_offers",
            "marts.gpu_purchase_value_daily"} <= read


@pytest.mark.slow
def test_the_offline_sites_gpu_pages_show_the_outlook_scores_of_the_mart(warehouse):
    with duckdb.connect(str(warehouse / "gpuprices.duckdb"), read_only=True) as connection:
        scored = mart_rows(connection, """
            SELECT s.gpu_id, s.market, s.provider, s.scored_days, s.drop_5pct_skill, s.is_synthetic, o.prob_drop_5pct
            FROM marts.gpu_price_outlook_scores s JOIN marts.gpu_price_outlook_daily o
              ON s.gpu_id = o.gpu_id AND s.market = o.market AND s.provider = o.provider AND s.as_of = o.price_date
             AND s.horizon_days = o.horizon_days
            WHERE s.horizon_days = 30 AND s.scored_days > 0 AND s.drop_5pct_skill IS NOT NULL""")
    assert scored, "the offline run's imported histories are long enough to score"
    for row in scored[:5]:
        html = (warehouse / "site" / "gpu" / f"{row['gpu_id']}.html").read_text()
        anchor = dashboard_data.outlook_anchor(row).removeprefix("outlook-")  # a provider's series: market-provider
        section = text_of(outlook_section(html, anchor))
        assert f"scored on {row['scored_days']} past days: skill {row['drop_5pct_skill']:.2f}" in section
        assert ('class="badge synthetic"' in outlook_section(html, anchor)) is row["is_synthetic"]


def test_a_providers_outlook_is_drawn_over_that_providers_own_prices_not_the_markets_cheapest():
    """Issue 40 part 1: cudo's fan starts from cudo's own line; the market's cheapest ($1.00, other providers) is
    not drawn under it, and a gap in the market's history is no gap of cudo's."""
    from dashboards.build import outlook_charts

    day = LATEST
    market_rows = [{"gpu_id": "h100-sxm5-80gb", "price_date": day - timedelta(days=back), "channel": "cloud",
                    "market": "on_demand", "price_per": "gpu_hour", "min_price_usd": Decimal("1.00"),
                    "is_synthetic": False} for back in (0, 1, 2, 60)]  # a 58-day gap in the market's history
    own = [{"price_date": day - timedelta(days=back), "min_price_usd": Decimal("1.82"), "is_synthetic": False}
           for back in range(3)]
    outlook_row = {"gpu_id": "h100-sxm5-80gb", "market": "on_demand", "provider": "cudo", "channel": "cloud",
                   "price_per": "gpu_hour", "price_date": day, "horizon_date": day + timedelta(days=30),
                   "horizon_days": 30, "price_usd": 1.82, "p10_price_usd": 1.82, "p50_price_usd": 1.82,
                   "p90_price_usd": 1.82, "is_synthetic": False, "days_of_history": 3}
    page = GpuPage(gpu_id="h100-sxm5-80gb", spec=None, name="H100", prices=market_rows, signals=[], rent_vs_buy=None,
                   cheapest_offers=[], outlooks=[outlook_row], outlook_histories={("on_demand", "cudo"): own})
    ((row, chart),) = outlook_charts(page)
    history = [trace for trace in chart["spec"]["data"] if trace["meta"]["role"] == "history"]
    assert [trace["name"] for trace in history] == ["cudo's own price"]
    assert {value for value in history[0]["y"] if value is not None} == {1.82}
    assert row["recent_gap"] is None  # the market's gap is not cudo's
    market = {**outlook_row, "provider": "any"}
    ((_row, market_chart),) = outlook_charts(GpuPage(gpu_id="h100-sxm5-80gb", spec=None, name="H100",
                                                     prices=market_rows, signals=[], rent_vs_buy=None,
                                                     cheapest_offers=[], outlooks=[market]))
    assert [t["name"] for t in market_chart["spec"]["data"] if t["meta"]["role"] == "history"] == ["cheapest"]
