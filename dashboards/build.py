"""`gpuprices dashboard build`: the static site under <home>/site/.

Plain HTML pages with their data embedded, Plotly bundled beside them: they open from disk or any static host and
need no server or database. Scraped text is untrusted: Jinja escapes every value, chart data sits in JSON script
blocks with `<`, `>` and `&` escaped, and only http(s) links become links."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape

from config.settings import data_home, stale_after_days
from analytics.outlook import MIN_HISTORY_DAYS
from dashboards.data import (
    OUTLOOK_CURRENT_DAYS,
    OUTLOOK_HORIZON_DAYS,
    PROVIDER_MOVE_DAYS,
    DashboardData,
    GpuPage,
    load,
)
from dashboards.gpu_charts import (
    GAP_DAYS,
    REAL_COLOR,
    SYNTHETIC_COLOR,
    index_chart,
    outlook_chart,
    plain,
    price_charts,
)
from warehouse.ingest.explain import figure_text
from warehouse.store.freshness import age_of, clock, source_age
from warehouse.store.markets import MARKETS

HERE = Path(__file__).resolve().parent


def site_root() -> Path:
    return data_home() / "site"


# -- formatting filters -------------------------------------------------------------------------------------------
def _money(value, per: str | None = None) -> str:
    if value is None:
        return "-"
    amount = float(value)
    text = f"${amount:,.0f}" if amount >= 1000 else f"${amount:,.2f}" if amount >= 0.1 else f"${amount:,.4f}"
    return text + {"gpu_hour": "/GPU-h", "card": "/card"}.get(per or "", "")


def _short_money(value) -> str:
    """$5.5M, $850K, $0.26: the ends of an error band, short enough to sit under the figure."""
    if value is None:
        return "-"
    amount = float(value)
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if amount >= scale:
            return f"${amount / scale:,.1f}{suffix}"
    return _money(amount)


def _number(value, digits: int = 2) -> str:
    return "-" if value is None else f"{float(value):,.{digits}f}"


def _percent(value, plain: bool = False) -> str:
    if value is None:
        return "-"
    return f"{float(value) * 100:.0f}%" if plain else f"{float(value) * 100:+.1f}%"


def _chance(value) -> str:
    """A probability as a whole percentage, never a false 0% or 100%."""
    if value is None:
        return "-"
    share = float(value)
    return "under 1%" if share < 0.005 else "over 99%" if share > 0.995 else f"{share * 100:.0f}%"


def _skill(value) -> str:
    """A skill score to two decimals, a rounded zero never signed ("0.00", not "-0.00")."""
    if value is None:
        return "-"
    text = f"{float(value):.2f}"
    return "0.00" if text == "-0.00" else text


def _when(value) -> str:
    if value is None:
        return "-"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if isinstance(value, datetime) else str(value)


def _safe_url(value) -> str | None:
    """Only absolute http(s) URLs become links: a scraped `javascript:` or `data:` URL is dropped."""
    if not value:
        return None
    parts = urlsplit(str(value).strip())
    return str(value).strip() if parts.scheme in ("http", "https") and parts.netloc else None


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    env.filters.update(money=_money, number=_number, percent=_percent, chance=_chance, skill=_skill, when=_when,
                       safe_url=_safe_url, figure=figure_text,
                       short_money=_short_money)
    # ages by the clock and the explanation links: render() sets them for its clock and the pages it writes; a
    # template rendered on its own measures against now and links nothing
    env.globals.update(age=age_of, explained=lambda *_key: None, index_explained=lambda *_key: None,
                       training_explained=lambda *_key: None, stale_after_days=stale_after_days())
    return env


# -- chart specs (Plotly traces + layout, plain JSON types) -------------------------------------------------------
def _marked(trace: dict, rows: list[dict]) -> dict:
    """Every price trace says whether a made-up input is behind it: `meta.synthetic` (checked by the tests), and a
    "(synthetic)" legend name."""
    synthetic = any(r.get("is_synthetic") for r in rows)
    if synthetic and "name" in trace and "(synthetic)" not in trace["name"]:
        trace["name"] += " (synthetic)"
    return {**trace, "meta": {"synthetic": synthetic}}


def _bar_label(row: dict) -> str:
    return f"{row['gpu_id']} ({row['channel']})" if row.get("channel") else row["gpu_id"]


def _bar(rows: list[dict], y: str, y_title: str) -> dict:
    return {
        "data": [_marked({
            # one bar per row: a GPU listed on a cloud and on a marketplace gets a bar for each (a repeated
            # category would stack the two figures into one bar)
            "type": "bar", "x": [_bar_label(r) for r in rows], "y": [plain(r[y]) for r in rows],
            "marker": {"color": [SYNTHETIC_COLOR if r.get("is_synthetic") else REAL_COLOR for r in rows]},
            "hovertemplate": "%{x}: %{y:.1f}<extra></extra>",
        }, rows)],
        "layout": {"yaxis": {"title": {"text": y_title}}, "hovermode": "closest",
                   "xaxis": {"title": {"text": "GPU (amber bars: synthetic prices)", "standoff": 12}, "automargin": True}},
    }


# A gap longer than this between two days of a model's cost is not drawn over: nothing is known in between
TRAINING_HISTORY_GAP_DAYS = 14


# Plotly's own colour cycle, given explicitly so that the parts of one line (one model, one GPU) share a colour
LINE_COLORS = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880", "#ff97ff",
               "#fecb52")


def training_history_segments(series: list[dict]) -> list[list[dict]]:
    """One model's cheapest cost by day (in date order) cut where its panel changes: where the prices behind it go
    from one provider to several or back (the years priced from GCP's list-price history alone, then the whole
    market) and across a gap of more than TRAINING_HISTORY_GAP_DAYS. Each part is drawn as its own line, so no line
    joins one provider's price to the market's."""
    segments: list[list[dict]] = []
    for row in series:
        if segments:
            last = segments[-1][-1]
            gap = (row["price_date"] - last["price_date"]).days
            same_panel = (row.get("on_demand_provider_count") == 1) == (last.get("on_demand_provider_count") == 1)
            if gap <= TRAINING_HISTORY_GAP_DAYS and same_panel:
                segments[-1].append(row)
                continue
        segments.append([row])
    return segments


def _training_history_chart(rows: list[dict]) -> dict:
    """The cheapest feasible plan per model and day, with its error band in the hover: one line per constant panel
    (training_history_segments), a model's parts sharing its colour and legend entry."""
    data = []
    for index, model_id in enumerate(sorted({r["model_id"] for r in rows})):
        series = [r for r in rows if r["model_id"] == model_id]
        color = LINE_COLORS[index % len(LINE_COLORS)]
        for number, segment in enumerate(training_history_segments(series)):
            one = segment[-1].get("on_demand_provider_count") == 1
            data.append(_marked({"type": "scatter", "mode": "lines+markers", "name": model_id,
                                 "legendgroup": model_id, "showlegend": number == 0,
                                 "line": {"color": color}, "marker": {"color": color},
                                 "x": [plain(r["price_date"]) for r in segment],
                                 "y": [plain(r["cheapest_cost_usd"]) for r in segment],
                                 # the error band in the hover: bars on years of daily points would hide the lines
                                 "customdata": [[r["low_cost_usd"], r["high_cost_usd"]] for r in segment],
                                 "hovertemplate": "%{x|%Y-%m-%d}: $%{y:,.0f} (error band $%{customdata[0]:,.0f}"
                                                  "-$%{customdata[1]:,.0f}" + (", one provider's prices" if one else "")
                                                  + ")<extra>%{fullData.name}</extra>"},
                                segment))
    return {"data": data, "layout": {"yaxis": {"type": "log", "title": {"text": "USD per training run"}},
                                     "xaxis": {"title": {"text": "date (UTC)"}, "type": "date"}, "height": 480}}


def _training_by_gpu_chart(rows: list[dict]) -> dict:
    """Each model's ten cheapest GPUs over time, one model at a time (a dropdown switches model)."""
    models = sorted({r["model_id"] for r in rows})
    data, owners = [], []
    for model_id in models:
        for index, gpu_id in enumerate(sorted({r["gpu_id"] for r in rows if r["model_id"] == model_id})):
            series = [r for r in rows if r["model_id"] == model_id and r["gpu_id"] == gpu_id]
            color = LINE_COLORS[index % len(LINE_COLORS)]
            # one line per constant panel, as the history chart (training_history_segments)
            for number, segment in enumerate(training_history_segments(series)):
                data.append(_marked({"type": "scatter", "mode": "lines+markers", "name": gpu_id,
                                     "legendgroup": f"{model_id}|{gpu_id}", "showlegend": number == 0,
                                     "line": {"color": color}, "marker": {"color": color},
                                     "visible": model_id == models[0], "x": [plain(r["price_date"]) for r in segment],
                                     "y": [plain(r["cost_usd"]) for r in segment]}, segment))
                owners.append(model_id)
    buttons = [{"label": model_id, "method": "update",
                "args": [{"visible": [owner == model_id for owner in owners]}]} for model_id in models]
    return {"data": data, "layout": {
        "yaxis": {"type": "log", "title": {"text": "USD per training run (cheapest on-demand)"}},
        "xaxis": {"title": {"text": "date (UTC)"}, "type": "date"}, "height": 480,
        "updatemenus": [{"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.18, "yanchor": "top"}],
        "margin": {"t": 70}}}


def _runs_chart(rows: list[dict]) -> dict:
    data = []
    for status in sorted({r["status"] for r in rows}):
        series = [r for r in rows if r["status"] == status]
        data.append({"type": "bar", "name": status, "x": [plain(r["run_date"]) for r in series],
                     "y": [r["runs"] for r in series]})
    return {"data": data, "layout": {"barmode": "stack", "yaxis": {"title": {"text": "source-runs"}},
                                     "xaxis": {"title": {"text": "observation date (UTC)"}, "type": "date"}}}


def _gpu_rows(data: DashboardData) -> list[dict]:
    rows = []
    for page in data.gpus:
        latest = {}  # on_demand | spot -> the day's cheapest rental row (cloud or marketplace)
        for r in page.prices:
            kind = MARKETS[r["market"]].pricing_type  # a cloud's or a marketplace's on_demand | spot
            if r["channel"] in ("cloud", "marketplace") and kind in ("on_demand", "spot"):
                if r["price_date"] == data.latest_date and (
                        kind not in latest or r["min_price_usd"] < latest[kind]["min_price_usd"]):
                    latest[kind] = r
        memory = (page.catalogue_spec or page.spec or {}).get("memory_gib")  # marts.gpus: every GPU's memory
        rows.append({"gpu_id": page.gpu_id, "name": page.name, "memory_gib": memory,
                     "on_demand": latest["on_demand"]["min_price_usd"] if "on_demand" in latest else None,
                     "spot": latest["spot"]["min_price_usd"] if "spot" in latest else None,
                     "on_demand_market": latest.get("on_demand", {}).get("market"),
                     "spot_market": latest.get("spot", {}).get("market"),
                     "is_synthetic": any(r["is_synthetic"] for r in latest.values()),
                     "on_demand_is_synthetic": latest.get("on_demand", {}).get("is_synthetic", False),
                     "last_date": max(r["price_date"] for r in page.prices)})
    return rows


def _memory_vs_price_chart(gpu_rows: list[dict]) -> dict:
    points = [r for r in gpu_rows if r["memory_gib"] is not None and r["on_demand"] is not None]
    return {"data": [{"type": "scatter", "mode": "markers+text", "x": [plain(r["on_demand"]) for r in points],
                      "y": [plain(r["memory_gib"]) for r in points],
                      "text": [r["gpu_id"] + (" (synthetic)" if r["on_demand_is_synthetic"] else "") for r in points],
                      "marker": {"color": [SYNTHETIC_COLOR if r["on_demand_is_synthetic"] else REAL_COLOR
                                           for r in points]},
                      "meta": {"synthetic": any(r["on_demand_is_synthetic"] for r in points)},
                      "textposition": "top center", "textfont": {"size": 9},
                      "hovertemplate": "%{text}: %{y} GiB at $%{x:.2f}/GPU-h<extra></extra>"}],
            "layout": {"xaxis": {"title": {"text": "cheapest on-demand, USD per GPU-hour (amber: synthetic prices)"},
                                 "type": "log"},
                       "yaxis": {"title": {"text": "memory, GiB"}}, "hovermode": "closest", "height": 420}}


OUTLOOK_FEATURE_DAYS = 90  # the outlook's features look this far back (analytics/outlook.py feature_frame)


def _recent_gap(history: list[dict], as_of, days_of_history: int | None = None) -> dict | None:
    """The latest stretch of more than GAP_DAYS without an observation that ends within the OUTLOOK_FEATURE_DAYS
    days up to the outlook's day. Within one source's observations the outlook reads it as an unchanged price (its
    series holds the earlier price across the gap, and its features see the two prices side by side); where the
    sources before and after differ it is a splice, and the outlook's segment starts after it (analytics/outlook.py
    segment_bounds). The page reads no sources: the outlook's days_of_history tells, since a segment that starts at
    the gap's end has at most (as_of - after) + 1 days. {"before", "before_price", "after", "after_price", "days",
    "splice" (True, False, or None when days_of_history is unknown)} or None."""
    days = sorted((r for r in history if r["price_date"] <= as_of), key=lambda r: r["price_date"])
    for earlier, later in reversed(list(zip(days, days[1:]))):
        if (as_of - later["price_date"]).days > OUTLOOK_FEATURE_DAYS:
            return None
        gap = (later["price_date"] - earlier["price_date"]).days
        if gap > GAP_DAYS:
            splice = None if days_of_history is None else days_of_history <= (as_of - later["price_date"]).days + 1
            return {"before": earlier["price_date"], "before_price": earlier["min_price_usd"],
                    "after": later["price_date"], "after_price": later["min_price_usd"], "days": gap,
                    "splice": splice}
    return None


def outlook_charts(gpu: GpuPage) -> list[tuple[dict, dict]]:
    """Each outlook of a GPU page with its fan chart, drawn over its own series' price history (a provider's own
    prices for a provider's series, a market's cheapest for a market's), and the recent gap in that history (`_recent_gap`: an unchanged price the outlook's series holds across, or a splice it starts after;
    None: none)."""
    found = []
    for number, row in enumerate(gpu.outlooks):
        own = (row["market"], row.get("provider", "any"))
        if own in gpu.outlook_histories:  # a provider's own series: its own prices, never the market's cheapest
            history, label = gpu.outlook_histories[own], f"{row['provider']}'s own price"
        else:
            history, label = [r for r in gpu.prices
                              if (r["channel"], r["market"], r["price_per"]) == (row["channel"], row["market"],
                                                                                       row["price_per"])], "cheapest"
        found.append(({**row,
                       "recent_gap": _recent_gap(history, row["price_date"], row.get("days_of_history"))},
                      outlook_chart(history, row, number, label)))
    return found


# -- explanations (gpuprices explain, written beside the pages) ---------------------------------------------------
def _slug(text: str) -> str:
    """A file name part from an id of our own (GPU, market, model): anything but [a-z0-9._-] becomes '_'."""
    return re.sub(r"[^a-z0-9._-]", "_", str(text).lower())


def price_explanation_path(gpu_id: str, market: str, day: date) -> str:
    return f"explain/{_slug(gpu_id)}/{_slug(market)}-{day.isoformat()}.html"


def index_explanation_path(gpu_id: str, market: str, day: date) -> str:
    return f"explain/{_slug(gpu_id)}/{_slug(market)}-index-{day.isoformat()}.html"


def training_explanation_path(model_id: str, precision: str, day: date) -> str:
    return f"explain/training/{_slug(model_id)}-{_slug(precision)}-{day.isoformat()}.html"


def _json_default(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    return str(value)


def _explanation_json(found: dict) -> str:
    """What `gpuprices explain ... --json` prints for the headline (the offers listed up to the page's bound)."""
    return json.dumps(found, default=_json_default, ensure_ascii=False, allow_nan=False)


def _explanations(data: DashboardData, now: datetime) -> list[tuple[str, dict]]:
    """(page path, explanation) of every explained headline, each with its age by the build's clock."""
    found = []
    for (gpu_id, market, day), explanation in data.price_explanations.items():
        found.append((price_explanation_path(gpu_id, market, day), explanation))
    for (gpu_id, market, day), explanation in data.index_explanations.items():
        found.append((index_explanation_path(gpu_id, market, day), explanation))
    for (model_id, precision, day), explanation in data.training_explanations.items():
        found.append((training_explanation_path(model_id, precision, day), explanation))
    for _, explanation in found:
        age = age_of(explanation["price_date"], now)
        explanation["age"] = age.as_dict() if age else None
    return found


# -- the site -----------------------------------------------------------------------------------------------------
def render(data: DashboardData, target: Path, now: datetime | None = None) -> list[Path]:
    """Write every page of the site into `target` (which must not exist yet); the pages written. `now`: the clock the
    pages measure every age against (default: the build's)."""
    now = now or clock()
    env = environment()
    (target / "gpu").mkdir(parents=True)
    assets = target / "assets"
    assets.mkdir()
    for name in ("style.css", "charts.js"):
        shutil.copy(HERE / "assets" / name, assets / name)
    shutil.copy(_plotly_js(), assets / "plotly.min.js")

    def explained(gpu_id, market, day) -> str | None:
        """The page explaining a GPU x market x day's price, where the site wrote one."""
        return price_explanation_path(gpu_id, market, day) if (gpu_id, market, day) in data.price_explanations else None

    def index_explained(gpu_id, market, day) -> str | None:
        return index_explanation_path(gpu_id, market, day) if (gpu_id, market, day) in data.index_explanations else None

    def training_explained(model_id, precision, day) -> str | None:
        key = (model_id, precision, day)
        return training_explanation_path(*key) if key in data.training_explanations else None

    env.globals.update(age=lambda day: age_of(day, now), explained=explained, index_explained=index_explained,
                       training_explained=training_explained)
    for row in data.freshness:  # each source by the clock (warehouse/store/freshness.py), as `gpuprices status` says
        row["by_clock"] = source_age(row["last_loaded_at"], now, row["is_imported"])
    prices_age = age_of(data.latest_date, now)
    common = {"latest_date": data.latest_date, "has_synthetic": data.has_synthetic,
              "outlook_horizon": OUTLOOK_HORIZON_DAYS, "outlook_current_days": OUTLOOK_CURRENT_DAYS,
              "outlook_needed_days": MIN_HISTORY_DAYS + OUTLOOK_HORIZON_DAYS,
              "prices_age": prices_age, "page_age": prices_age, "stale_after_days": stale_after_days(),
              "built_at": now.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")}
    gpu_rows = _gpu_rows(data)
    written = []

    def dated(chart: dict) -> dict:
        """A headline chart of the newest day's prices says that day, and its age when over the stale limit."""
        if prices_age is not None and prices_age.is_stale:
            chart["layout"]["title"] = {"text": f"prices of {prices_age.day}: {prices_age.words()}", "font": {"size": 13}}
        return chart

    def page(template: str, path: str, root: str = "", **context) -> None:
        html = env.get_template(template).render(**{**common, **context}, root=root)
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_text(html, encoding="utf-8")
        written.append(target / path)

    page("index.html", "index.html", title="Overview", rent_best=data.rent_best, buy_best=data.buy_best,
         moves=data.moves, good_deals=data.good_deals, backtest=data.backtest, freshness=data.freshness,
         outlook_drops=data.outlook_drops, outlook_rises=data.outlook_rises, outlook_held_list_prices=data.outlook_held_list_prices,
         headline_includes_marketplaces=data.headline_includes_marketplaces,
         failures=data.failures, cheapest_available=data.cheapest_available,
         charts={"rent_best": dated(_bar(data.rent_best, "bf16_dense_tflops_per_usd",
                                         "BF16 dense TFLOPS-hours per USD")),
                 "buy_best": dated(_bar(data.buy_best, "bf16_dense_tflops_per_usd", "BF16 dense TFLOPS per USD"))})
    page("gpus.html", "gpus.html", title="GPUs", gpu_rows=gpu_rows,
         charts={"memory_vs_price": dated(_memory_vs_price_chart(gpu_rows))})
    for gpu in data.gpus:
        offers_date = gpu.cheapest_offers[0]["price_date"] if gpu.cheapest_offers else None
        gpu_latest = max((r["price_date"] for r in gpu.prices), default=None)
        page("gpu.html", f"gpu/{gpu.gpu_id}.html", root="../", title=gpu.name, gpu=gpu,
             page_age=age_of(gpu_latest, now),
             any_deal=any(v["buy_now"] and v["as_of"] == data.latest_date and not age_of(v["as_of"], now).is_stale
                          for v in gpu.verdicts),
             series_charts=price_charts(gpu.prices, gpu.provider_prices), index_chart=index_chart(gpu.price_index), gap_days=GAP_DAYS,
             provider_move_days=PROVIDER_MOVE_DAYS, outlook_charts=outlook_charts(gpu),
             offers_date=offers_date)
    assumed = {a["name"]: a["value"] for a in data.assumptions}
    page("training.html", "training.html", title="Training cost", training_cheapest=data.training_cheapest,
         training_infeasible=data.training_infeasible, training_not_priced=data.training_not_priced,
         max_training_days=assumed.get("training_max_days"),
         band_low=assumed.get("estimate_error_band_low"), band_high=assumed.get("estimate_error_band_high"),
         serving_vs_api=data.serving_vs_api, assumptions=data.assumptions,
         training_history_gap_days=TRAINING_HISTORY_GAP_DAYS, charts={"training_history": _training_history_chart(data.training_history),
                                              "training_by_gpu": _training_by_gpu_chart(data.training_by_gpu)})
    page("sources.html", "sources.html", title="Sources", freshness=data.freshness, failures=data.failures,
         quarantine=data.quarantine, unmatched=data.unmatched, suspect_prices=data.suspect_prices, runs=data.runs,
         charts={"runs_per_day": _runs_chart(data.runs_per_day)})
    for path, explanation in _explanations(data, now):
        page("explain.html", path, root="../../", title=f"How {explanation['headline']} is made", e=explanation,
             page_age=age_of(explanation["price_date"], now), json_name=Path(path).with_suffix(".json").name)
        (target / path).with_suffix(".json").write_text(_explanation_json(explanation), encoding="utf-8")
    return written


def _plotly_js() -> Path:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.exists():
        raise FileNotFoundError(f"plotly.min.js not found in the plotly package ({path})")
    return path


def build(data: DashboardData | None = None, site: Path | None = None, now: datetime | None = None) -> list[Path]:
    """Build the site beside the old one and swap it in, so a reader never sees half a site. `now`: the clock its
    ages are measured against (default: the build's)."""
    data = data if data is not None else load()
    site = site or site_root()
    staging, old = site.with_name(f".{site.name}.new"), site.with_name(f".{site.name}.old")
    shutil.rmtree(staging, ignore_errors=True)
    written = render(data, staging, now)
    shutil.rmtree(old, ignore_errors=True)
    if site.exists():
        site.rename(old)
    staging.rename(site)
    shutil.rmtree(old, ignore_errors=True)
    return [site / path.relative_to(staging) for path in written]
