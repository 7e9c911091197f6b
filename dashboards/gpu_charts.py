"""A GPU page's charts: each market's price over its whole history, and the matched-offer price index per market.

A market's cheapest is drawn one constant-panel segment at a time (marts.gpu_price_panels: the same providers behind
it), each segment its own traces, so no line runs across a change of providers (issue 40); beside them, each
provider with history as its own line ("gcp's own price"). The market's trend over time is the index chart.

Every observation the warehouse holds is drawn, years of it, with the x axis over the whole history. Rows flagged
`is_synthetic` are the offline replay's days (recordings replayed by `gpuprices run --offline`: stale captures,
reconstructed and made-up pages), not observed history: they are drawn as their own dashed amber traces, named
"replay (synthetic)", over a shaded band labelled "replay". A line never crosses a gap of more than GAP_DAYS
between two observations (Plotly leaves a None point undrawn), so nothing looks observed where nothing was.
Prices are steps (a price holds until the next observation) with markers, so weekly or irregular history reads as
what it is. A market with more than MAX_DRAWN_POINTS days is drawn thinned (the lowest price of each few days):
the drawing only; the marts keep every day."""

from __future__ import annotations

import math
import statistics
from datetime import date, datetime, timedelta
from decimal import Decimal

GAP_DAYS = 14  # a longer stretch without an observation breaks the line
MAX_DRAWN_POINTS = 700  # per market and trace: the page of a GPU with years of daily history stays light
SYNTHETIC_COLOR, REAL_COLOR = "#d4a72c", "#1f6feb"
REPLAY_SHADE = "rgba(212,167,44,0.14)"
PER_LABEL = {"gpu_hour": "USD per GPU-hour", "card": "USD per card"}
MARKET_COLORS = ("#1f6feb", "#1a7f37", "#8250df", "#cf222e", "#bc4c00", "#0a7d8c", "#6e7781", "#bf3989")


def plain(value):
    """A value as plain JSON for a chart spec: Decimal as float, dates as ISO text."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    return value


def _day(row: dict) -> date:
    return row["price_date"]


def market_label(channel: str, market: str) -> str:
    """cloud on demand, marketplace spot, retail new: the channel once."""
    return (market if market.startswith(channel) else f"{channel} {market}").replace("_", " ")


def _runs(rows: list[dict], replay_of, gap_days: int) -> list[tuple[bool, list[dict]]]:
    """The rows (in date order) cut into runs of one kind (replay or observed): a new run where the kind changes
    or after more than `gap_days` without a row."""
    runs: list[tuple[bool, list[dict]]] = []
    for row in rows:
        kind = bool(replay_of(row))
        if runs and runs[-1][0] == kind and (_day(row) - _day(runs[-1][1][-1])).days <= gap_days:
            runs[-1][1].append(row)
        else:
            runs.append((kind, [row]))
    return runs


def _broken_line(runs: list[tuple[bool, list[dict]]], kind: bool | None, column: str) -> tuple[list, list]:
    """x and y of the runs of one kind (None: every run), a None point between runs: the line breaks there."""
    x: list = []
    y: list = []
    for run_kind, rows in runs:
        if kind is not None and run_kind != kind:
            continue
        if x:
            x.append(x[-1])
            y.append(None)
        x += [plain(_day(r)) for r in rows]
        y += [plain(r[column]) for r in rows]
    return x, y


def _band(runs: list[tuple[bool, list[dict]]], kind: bool, lower: str, upper: str) -> tuple[list, list]:
    """A filled band between two columns over the runs of one kind: one closed outline per run (lower forward,
    upper back), None between them; Plotly's fill "toself" fills each piece on its own, so no band spans a gap."""
    x: list = []
    y: list = []
    for run_kind, rows in runs:
        if run_kind != kind:
            continue
        rows = [r for r in rows if r[lower] is not None and r[upper] is not None]
        if not rows:
            continue
        if x:
            x.append(x[-1])
            y.append(None)
        x += [plain(_day(r)) for r in rows] + [plain(_day(r)) for r in reversed(rows)]
        y += [plain(r[lower]) for r in rows] + [plain(r[upper]) for r in reversed(rows)]
    return x, y


def _points(y: list) -> int:
    return sum(v is not None for v in y)


def _marker_size(x: list, y: list) -> int:
    """Bigger markers where observations are sparse (weekly, irregular), small ones on daily history."""
    days = sorted({d for d, v in zip(x, y, strict=True) if v is not None})
    if len(days) < 3:
        return 6
    spacing = statistics.median((date.fromisoformat(b) - date.fromisoformat(a)).days for a, b in zip(days, days[1:]))
    return 6 if spacing >= 3 or len(days) <= 40 else 3


def thinned(rows: list[dict], replay_of, limit: int = MAX_DRAWN_POINTS) -> tuple[list[dict], int]:
    """The rows to draw: all of them up to `limit`; beyond, one row per stretch of N days and kind (the stretch's
    cheapest day, its median the median of the days' medians). Returns (rows, N); N = 1: nothing thinned."""
    if len(rows) <= limit:
        return rows, 1
    span = (_day(rows[-1]) - _day(rows[0])).days + 1
    period = max(2, math.ceil(span / limit))
    buckets: dict[tuple, list[dict]] = {}
    for row in rows:  # never one bucket over two panels (panel_segments)
        buckets.setdefault((bool(replay_of(row)), str(_panel_key(row)), _day(row).toordinal() // period),
                           []).append(row)
    drawn = []
    for bucket in buckets.values():
        cheapest = min(bucket, key=lambda r: (r["min_price_usd"] is None, r["min_price_usd"] or 0))
        medians = [r["median_price_usd"] for r in bucket if r.get("median_price_usd") is not None]
        drawn.append({**cheapest, "median_price_usd": statistics.median(medians) if medians else None})
    return sorted(drawn, key=_day), period


def _replay_bands(runs: list[tuple[bool, list[dict]]]) -> list[tuple[date, date]]:
    """The date spans of the replay runs, touching ones merged."""
    bands: list[tuple[date, date]] = []
    for kind, rows in runs:
        if not kind:
            continue
        start, end = _day(rows[0]), _day(rows[-1])
        if bands and (start - bands[-1][1]).days <= GAP_DAYS:
            bands[-1] = (bands[-1][0], max(end, bands[-1][1]))
        else:
            bands.append((start, end))
    return bands


def _replay_shapes(bands: list[tuple[date, date]]) -> dict:
    """A shaded band labelled "replay" over each span of replayed days."""
    shapes, annotations = [], []
    for start, end in bands:
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": f"{start - timedelta(days=1)}T12:00:00",
                       "x1": f"{end}T12:00:00", "y0": 0, "y1": 1, "fillcolor": REPLAY_SHADE,
                       "line": {"width": 0}, "layer": "below", "name": "replay"})
        annotations.append({"xref": "x", "yref": "paper", "x": plain(start), "y": 1, "xanchor": "right",
                            "yanchor": "top", "showarrow": False, "text": "replay", "textangle": -90,
                            "font": {"size": 10, "color": "#9a6700"}})
    return {"shapes": shapes, "annotations": annotations}


def _x_axis(first: date, last: date) -> dict:
    """A date axis over the whole history (a little room either side)."""
    pad = timedelta(days=max(1, round(((last - first).days or 1) * 0.02)))
    return {"title": {"text": "date (UTC)"}, "type": "date", "range": [plain(first - pad), plain(last + pad)]}


# Above the plot: Plotly grows the top margin to fit it, so a long legend on a phone covers no axis.
LEGEND = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}


def _trace(name: str, x: list, y: list, *, replay: bool, synthetic: bool, role: str, panel: dict | None = None,
           **style) -> dict:
    """A scatter trace that says what it is: meta.synthetic (a made-up input behind it; the name says
    "(synthetic)"), meta.replay (the offline replay's days), meta.role and, for a market's prices, its panel
    (meta.panel_id, panel_providers, panel_start, panel_end: every point of the trace is of that one panel)."""
    if synthetic and "(synthetic)" not in name:
        name += " (synthetic)"
    return {"type": "scatter", "name": name, "x": x, "y": y, **style,
            "meta": {"synthetic": synthetic, "replay": replay, "role": role, **(panel or {})}}


def _panel_key(row: dict):
    """The panel segment a market's row belongs to (gpu_price_panels: its first day), else its panel; None for rows
    that say nothing of their panel (one segment)."""
    return row.get("panel_start") or row.get("panel_id")


def panel_segments(rows: list[dict]) -> list[list[dict]]:
    """The rows (in date order) cut where the panel changes: each part is one constant panel's, drawn as its own
    series (issue 40: a line across a change of providers would read the change as a price move)."""
    segments: list[list[dict]] = []
    for row in rows:
        if segments and _panel_key(segments[-1][-1]) == _panel_key(row):
            segments[-1].append(row)
        else:
            segments.append([row])
    return segments


def segment_name(rows: list[dict]) -> str:
    """"cheapest of 19 providers from 2026-04-02", "gcp alone from 2024-05-17", or "cheapest" (no panel known)."""
    providers, count = rows[-1].get("panel_providers"), rows[-1].get("provider_count")
    if not providers:
        return "cheapest"
    who = f"{providers} alone" if count == 1 else f"cheapest of {count} providers"
    return f"{who} from {plain(_day(rows[0]))}"


def price_chart(rows: list[dict], index: int, provider_rows: list[dict] | None = None) -> dict:
    """One market's prices over its whole history, one series per constant-panel segment (panel_segments): each
    segment's cheapest and median (observed solid, replay dashed amber) with its trailing 30- and 90-day min-median
    bands behind, never a line from one segment to the next; beside them each provider with history as its own line
    (`provider_rows`, role "provider"); the replay span shaded. Every trace's meta says its panel."""
    def replay_of(row):
        return row["is_synthetic"]

    drawn, period = thinned(rows, replay_of)
    gap_days = max(GAP_DAYS, 2 * period)
    segments = panel_segments(drawn)
    every_run: list[tuple[bool, list[dict]]] = []
    shown: set[str] = set()  # one legend entry per band and median across the segments
    data = []
    observed = any(not replay_of(row) for row in drawn)  # the replay pieces get legend entries only without it
    for number, segment in enumerate(segments):
        runs = _runs(segment, replay_of, gap_days)
        every_run += runs
        name = segment_name(segment)
        panel = {"panel_id": segment[-1].get("panel_id"), "panel_providers": segment[-1].get("panel_providers"),
                 "panel_start": plain(_day(segment[0])), "panel_end": plain(_day(segment[-1]))}
        real_color = MARKET_COLORS[number % len(MARKET_COLORS)] if len(segments) > 1 else REAL_COLOR
        for days, fill in ((90, "rgba(31,111,235,0.10)"), (30, "rgba(31,111,235,0.22)")):
            for replay in (False, True):
                x, y = _band(runs, replay, f"trailing_{days}d_min_usd", f"trailing_{days}d_median_usd")
                if _points(y):  # one legend entry per band: the replay piece has its own only where nothing else is
                    label = f"{days}-day min-median" + (", replay" if replay else "")
                    data.append(_trace(label, x, y, replay=replay, synthetic=replay, role="band", panel=panel,
                                       mode="lines", line={"width": 0}, fill="toself", fillcolor=fill,
                                       hoverinfo="skip", legendgroup=f"band-{days}",
                                       showlegend=label not in shown and not (replay and observed)))
                    shown.add(label)
        for replay in (False, True):
            x, y = _broken_line(runs, replay, "min_price_usd")
            if _points(y):
                color = SYNTHETIC_COLOR if replay else real_color
                data.append(_trace(f"{name}, replay" if replay else name, x, y, replay=replay, synthetic=replay,
                                   role="cheapest", panel=panel, mode="lines+markers",
                                   line={"color": color, "shape": "hv", "width": 1.5,
                                         **({"dash": "dash"} if replay else {})},
                                   marker={"color": color, "size": _marker_size(x, y)}))
            x, y = _broken_line(runs, replay, "median_price_usd")
            if _points(y):
                label = "median, replay" if replay else "median"
                data.append(_trace(label, x, y, replay=replay, synthetic=replay, role="median", panel=panel,
                                   mode="lines", legendgroup=label, showlegend=label not in shown,
                                   line={"color": "#c9a86a" if replay else "#8c959f", "dash": "dot", "shape": "hv",
                                         "width": 1.2}))
                shown.add(label)
    for provider in sorted({r["provider"] for r in provider_rows or []}):
        own = [r for r in provider_rows if r["provider"] == provider]
        own_drawn, own_period = thinned([{**r, "median_price_usd": None} for r in own], replay_of)
        runs = _runs(own_drawn, replay_of, max(GAP_DAYS, 2 * own_period))
        every_run += runs
        panel = {"panel_id": None, "panel_providers": provider, "panel_start": plain(_day(own[0])),
                 "panel_end": plain(_day(own[-1]))}
        for replay in (False, True):
            x, y = _broken_line(runs, replay, "min_price_usd")
            if _points(y):
                data.append(_trace(f"{provider}'s own price" + (", replay" if replay else ""), x, y, replay=replay,
                                   synthetic=replay, role="provider", panel=panel, mode="lines",
                                   line={"color": "#57606a", "dash": "dashdot" if replay else "solid", "shape": "hv",
                                         "width": 1}, opacity=0.8))
    first = min([_day(rows[0]), *(_day(r) for r in provider_rows or [])])
    last = max([_day(rows[-1]), *(_day(r) for r in provider_rows or [])])
    layout = {"yaxis": {"title": {"text": PER_LABEL.get(rows[0]["price_per"], "USD")}, "rangemode": "tozero"},
              "xaxis": _x_axis(first, last), "legend": LEGEND, "height": 360,
              **_replay_shapes(_replay_bands(sorted(every_run, key=lambda run: _day(run[1][0]))))}
    return {"id": f"series-{index}", "label": market_label(rows[0]["channel"], rows[0]["market"]),
            "price_per": rows[0]["price_per"], "first_date": _day(rows[0]), "last_date": _day(rows[-1]),
            "days": len(rows), "replay_days": sum(1 for r in rows if r["is_synthetic"]),
            "thinned_to_days": period if period > 1 else None,
            "segments": [{"name": segment_name(seg), "first_date": _day(seg[0]), "last_date": _day(seg[-1]),
                          "providers": seg[-1].get("panel_providers")} for seg in panel_segments(rows)],
            "providers_drawn": sorted({r["provider"] for r in provider_rows or []}),
            "spec": {"data": data, "layout": layout}}


def price_charts(prices: list[dict], provider_prices: list[dict] | None = None) -> list[dict]:
    """One chart per channel x market (x unit), each over its market's whole history, with the market's providers
    that have history (provider_prices) beside its panel segments."""
    keys = sorted({(r["channel"], r["market"], r["price_per"]) for r in prices})
    charts = []
    for index, key in enumerate(keys):
        rows = sorted((r for r in prices if (r["channel"], r["market"], r["price_per"]) == key), key=_day)
        own = sorted((r for r in provider_prices or [] if (r["channel"], r["market"], r["price_per"]) == key),
                     key=lambda r: (r["provider"], _day(r)))
        charts.append(price_chart(rows, index, own))
    return charts


def index_chart(index_rows: list[dict]) -> dict | None:
    """The matched-offer price index (marts.gpu_price_index_daily) of every market of the GPU on one chart, over
    the GPU's whole history: observed days solid, replay days dashed in the market's colour, the replay span shaded.
    None when the GPU has no index row."""
    if not index_rows:
        return None

    def replay_of(row):
        return row["is_synthetic"]

    keys = sorted({(r["channel"], r["market"], r["price_per"]) for r in index_rows})
    data: list[dict] = []
    every_run: list[tuple[bool, list[dict]]] = []
    periods: list[int] = []
    for number, key in enumerate(keys):
        rows = sorted((r for r in index_rows if (r["channel"], r["market"], r["price_per"]) == key), key=_day)
        drawn, period = thinned([{**r, "min_price_usd": round(r["price_index"], 3), "median_price_usd": None}
                                 for r in rows], replay_of)
        periods.append(period)
        runs = _runs(drawn, replay_of, max(GAP_DAYS, 2 * period))
        every_run += runs
        color = MARKET_COLORS[number % len(MARKET_COLORS)]
        label = market_label(key[0], key[1]) + (" (per card)" if key[2] == "card" else "")
        observed = any(not kind for kind, _rows in runs)
        for replay in (False, True):
            x, y = _broken_line(runs, replay, "min_price_usd")
            if not _points(y):
                continue
            data.append(_trace(f"{label}, replay" if replay else label, x, y, replay=replay, synthetic=replay,
                               role="index", mode="lines+markers", legendgroup=label,
                               showlegend=not (replay and observed), opacity=0.75 if replay else 1.0,
                               line={"color": color, "shape": "hv", "width": 1.5,
                                     **({"dash": "dash"} if replay else {})},
                               marker={"color": color, "size": _marker_size(x, y),
                                       **({"symbol": "circle-open"} if replay else {})}))
    first, last = min(_day(r) for r in index_rows), max(_day(r) for r in index_rows)
    bands = _replay_bands(sorted(every_run, key=lambda run: _day(run[1][0])))
    layout = {"yaxis": {"title": {"text": "price index, first day = 100"}},
              "xaxis": _x_axis(first, last), "legend": LEGEND, "height": 420, **_replay_shapes(bands)}
    return {"id": "price-index", "first_date": first, "last_date": last,
            "thinned_to_days": max(periods) if max(periods) > 1 else None,
            "spec": {"data": data, "layout": layout}}


OUTLOOK_HISTORY_DAYS = 180  # the fan chart's history: the days before the outlook's day drawn beside the fan
FAN_FILL, FAN_FILL_SYNTHETIC = "rgba(31,111,235,0.18)", "rgba(212,167,44,0.28)"


def outlook_chart(history: list[dict], outlook: dict, index: int, label: str = "cheapest") -> dict:
    """A fan chart of one series' outlook (a marts.gpu_price_outlook_daily row with its market's price_per): the
    series' price over the OUTLOOK_HISTORY_DAYS days up to the outlook's day (its provider's own prices, `label`
    naming them, or the market's cheapest: gpu_prices_daily rows of that market;
    observed solid, replay days dashed amber, lines broken after GAP_DAYS), then from today's price a band widening
    to the 10th and 90th percentile of the price on t + h and a dashed line to the median: straight lines, only the
    ends at t + h are forecast. Every outlook trace carries the series' synthetic flag (meta.synthetic, "(synthetic)"
    in its name, the band amber)."""
    as_of, end = outlook["price_date"], outlook["horizon_date"]
    rows = sorted((r for r in history if as_of - timedelta(days=OUTLOOK_HISTORY_DAYS) < _day(r) <= as_of), key=_day)

    def replay_of(row):
        return row["is_synthetic"]

    runs = _runs(rows, replay_of, GAP_DAYS)
    synthetic = bool(outlook["is_synthetic"])
    data = []
    for replay in (False, True):
        x, y = _broken_line(runs, replay, "min_price_usd")
        if _points(y):
            color = SYNTHETIC_COLOR if replay else REAL_COLOR
            line = {"color": color, "shape": "hv", "width": 1.5, **({"dash": "dash"} if replay else {})}
            data.append(_trace(f"{label}, replay" if replay else label, x, y, replay=replay, synthetic=replay,
                               role="history", mode="lines+markers", line=line,
                               marker={"color": color, "size": _marker_size(x, y)}))
    price, p10, p50, p90 = (plain(outlook[name]) for name in ("price_usd", "p10_price_usd", "p50_price_usd",
                                                               "p90_price_usd"))
    horizon = outlook["horizon_days"]
    fan_color = SYNTHETIC_COLOR if synthetic else REAL_COLOR
    data.append(_trace(f"10-90% range in {horizon} days", [plain(as_of), plain(end), plain(end), plain(as_of)],
                       [price, p90, p10, price], replay=False, synthetic=synthetic, role="outlook_band", mode="lines",
                       fill="toself", fillcolor=FAN_FILL_SYNTHETIC if synthetic else FAN_FILL,
                       line={"width": 0.5, "color": fan_color}, hoverinfo="skip"))
    data.append(_trace(f"median in {horizon} days", [plain(as_of), plain(end)], [price, p50], replay=False,
                       synthetic=synthetic, role="outlook_p50", mode="lines",
                       line={"color": fan_color, "dash": "dash", "width": 1.5}, hoverinfo="skip"))
    data.append(_trace(f"p10 / p50 / p90 on {plain(end)}", [plain(end)] * 3, [p10, p50, p90], replay=False,
                       synthetic=synthetic, role="outlook_quantiles", mode="markers",
                       marker={"color": fan_color, "size": 7, "symbol": "line-ew-open", "line": {"width": 2}},
                       customdata=["p10", "p50", "p90"], hovertemplate="%{customdata}: $%{y:,.3~f}<extra></extra>"))
    first = _day(rows[0]) if rows else as_of
    layout = {"yaxis": {"title": {"text": PER_LABEL.get(outlook["price_per"], "USD")}},
              "xaxis": {**_x_axis(first, end), "title": {"text": "date (UTC)"}}, "legend": LEGEND, "height": 340,
              "hovermode": "closest",
              "shapes": [{"type": "line", "xref": "x", "yref": "paper", "x0": plain(as_of), "x1": plain(as_of),
                          "y0": 0, "y1": 1, "line": {"color": "#8c959f", "width": 1, "dash": "dot"}}],
              "annotations": [{"xref": "x", "yref": "paper", "x": plain(as_of), "y": 1, "xanchor": "right",
                               "yanchor": "top", "showarrow": False, "text": "as of", "textangle": -90,
                               "font": {"size": 10, "color": "#57606a"}}]}
    return {"id": f"outlook-{index}", "market": outlook["market"], "spec": {"data": data, "layout": layout}}
