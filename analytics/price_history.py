"""Price series from the warehouse for the buy signal (analytics/buy_signal.py): `gpuprices backtest`, today's
verdict on the GPU pages, and `alerts add --good-deal`.

A series is one GPU in one market (retail_new, retail_used, on_demand, spot, reserved_1y, reserved_3y, and
marketplace_on_demand / marketplace_spot for peer-to-peer asks): per day, the cheapest price (per card, or per
GPU-hour with the host VM included) in USD, from marts.gpu_prices_daily (the market's cheapest; days whose every
offer is a carried-forward snapshot left out, they are no observation); with `source`, that source's own, from
marts.gpu_prices_by_source_daily. The days between observations carry the last price (buy_signal.daily_series);
`observed` says which days were observed (the outlook splits a series at long gaps: outlook.segments).

A series the buy signal is scored on never joins panels (issue 40; `panel_series`): the market's cheapest joins the
prices of whichever providers were priced each day, so where the providers change (GCP's list price alone in 2024-25,
twenty replayed providers in 2026) it moves with no price having moved. `panel_series` gives each provider's own
series (marts.gpu_provider_prices_daily) and each constant-panel segment of the market's cheapest with two providers
or more (marts.gpu_price_panels; a one-provider segment is that provider's series), each cut again at a splice
(outlook.segment_bounds: a long gap whose sources differ on either side). The backtest, the verdicts and the pages'
verdicts read these; `series` (the market's cheapest whole) stays for the outlook.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal

import duckdb

from analytics import buy_signal, outlook, outlook_features

SOURCE_SERIES_SQL = """
    SELECT gpu_id, market, price_date, min(min_price_usd) AS price_usd,
           bool_or(is_synthetic) AS is_synthetic, string_agg(DISTINCT source, ',' ORDER BY source) AS sources,
           NULL::DOUBLE AS others_median_usd
    FROM marts.gpu_prices_by_source_daily
    WHERE NOT is_carried_forward AND (price_per = 'card' OR includes_host_vm) AND market IS NOT NULL
      AND source = $source AND ($gpu IS NULL OR gpu_id = $gpu) AND ($market IS NULL OR market = $market)
    GROUP BY ALL"""
SERIES_SQL = """
    SELECT gpu_id, market, price_date, min_price_usd AS price_usd, is_synthetic, sources
    FROM marts.gpu_prices_daily
    WHERE offer_count > carried_forward_offer_count
      AND ($gpu IS NULL OR gpu_id = $gpu) AND ($market IS NULL OR market = $market)"""
# Each provider's own series: one constant panel (itself)
PROVIDER_SERIES_SQL = """
    SELECT gpu_id, market, 'provider' AS series_kind, provider, NULL::DATE AS panel_start, NULL AS panel_id,
           provider AS panel_providers, price_date, min(price_usd) AS price_usd, bool_or(is_synthetic) AS is_synthetic,
           string_agg(DISTINCT source, ',' ORDER BY source) AS sources, min(others_median_usd) AS others_median_usd
    FROM marts.gpu_provider_prices_daily
    WHERE NOT is_carried_forward AND ($gpu IS NULL OR gpu_id = $gpu) AND ($market IS NULL OR market = $market)
      AND (NOT $rentals OR channel <> 'retail')
    GROUP BY ALL"""
# One source's prices, each provider apart (a catalog source lists many providers)
SOURCE_PROVIDER_SERIES_SQL = """
    SELECT gpu_id, market, 'provider' AS series_kind, provider, NULL::DATE AS panel_start, NULL AS panel_id,
           provider AS panel_providers, price_date, min(min_price_usd) AS price_usd,
           bool_or(is_synthetic) AS is_synthetic, string_agg(DISTINCT source, ',' ORDER BY source) AS sources,
           NULL::DOUBLE AS others_median_usd
    FROM marts.gpu_prices_by_source_daily
    WHERE NOT is_carried_forward AND (price_per = 'card' OR includes_host_vm) AND market IS NOT NULL
      AND source = $source AND ($gpu IS NULL OR gpu_id = $gpu) AND ($market IS NULL OR market = $market)
    GROUP BY ALL"""
# The market's cheapest, one constant-panel segment at a time, where the panel has two providers or more
PANEL_SERIES_SQL = """
    SELECT daily.gpu_id, daily.market, 'panel' AS series_kind, NULL AS provider, panels.panel_start,
           panels.panel_id, panels.panel_providers, daily.price_date, daily.min_price_usd AS price_usd,
           daily.is_synthetic, daily.sources, NULL::DOUBLE AS others_median_usd
    FROM marts.gpu_prices_daily AS daily
    JOIN marts.gpu_price_panels AS panels
      ON panels.gpu_id = daily.gpu_id AND panels.channel = daily.channel AND panels.market = daily.market
     AND panels.price_per = daily.price_per AND daily.price_date BETWEEN panels.panel_start AND panels.panel_end
    WHERE daily.offer_count > daily.carried_forward_offer_count AND panels.provider_count >= 2
      AND ($gpu IS NULL OR daily.gpu_id = $gpu) AND ($market IS NULL OR daily.market = $market)"""
PANEL_SERIES_LISTS_SQL = """
    SELECT gpu_id, market, series_kind, provider, panel_start, any_value(panel_id), any_value(panel_providers),
           list(price_date ORDER BY price_date), list(price_usd::VARCHAR ORDER BY price_date), bool_or(is_synthetic),
           string_agg(sources, ','), list(sources ORDER BY price_date),
           list(others_median_usd::DOUBLE ORDER BY price_date)
    FROM ({rows}) GROUP BY ALL ORDER BY gpu_id, market, series_kind, provider, panel_start"""
# One row per series: its days and prices as lists (prices as text, read back exactly as Decimal): ~100k daily rows
# at three years come back in a few dozen rows, fast enough for every dashboard build.
SERIES_LISTS_SQL = """
    SELECT gpu_id, market, list(price_date ORDER BY price_date), list(price_usd::VARCHAR ORDER BY price_date),
           bool_or(is_synthetic), string_agg(sources, ','), list(sources ORDER BY price_date)
    FROM ({rows}) GROUP BY ALL ORDER BY gpu_id, market"""


@dataclass
class PriceSeries:
    gpu_id: str
    market: str
    source: str | None  # None: every source's cheapest
    days: list[date]  # dense: first to last observed day
    prices: list[Decimal]  # USD per card or per GPU-hour, carried over days without an observation
    is_synthetic: bool  # any price behind it from a recording that is not a real capture
    sources: list[str]
    # parallel to days: True on a day with an observation, False on a day that carries the last observed price;
    # None: every day observed (a series made by hand)
    observed: list[bool] | None = None
    # parallel to days: the sources of the day's observation (comma-separated), None on a carried day; None: unknown
    # (a series made by hand). A long gap between two observations of other sources is a splice (outlook.segments).
    observed_sources: list[str | None] | None = None
    # which series of the market (issue 40): "market" (its cheapest whole, every panel: `series`), "provider" (one
    # provider's own prices) or "panel" (the cheapest over one constant panel of two providers or more)
    kind: str = "market"
    provider: str | None = None  # a provider's own series (kind "provider"); None: a market's or a panel's cheapest
    # parallel to days: the other providers' median price that day (None: none, or a carried day); None: not known
    panel_medians: list[float | None] | None = None
    context: dict | None = None  # the GPU's launch and its successor's (outlook_features.gpu_context)
    panel_id: str | None = None
    panel_providers: list[str] | None = None

    @property
    def series_key(self) -> str:
        """What the series is, unique within its GPU and market: "cheapest", "provider gcp from 2022-02-09",
        "panel from 2026-04-02" (a provider's or a panel's series from its first day)."""
        if self.kind == "market":
            return "cheapest"
        start = self.days[0].isoformat() if self.days else "-"
        return f"provider {self.provider} from {start}" if self.kind == "provider" else f"panel from {start}"

    @property
    def label(self) -> str:
        """In words, for a page: "gcp's own price" or "cheapest of 19 providers"."""
        if self.kind == "provider":
            return f"{self.provider}'s own price"
        if self.kind == "panel":
            return f"cheapest of {len(self.panel_providers or [])} providers"
        return "cheapest"

    @property
    def price_per(self) -> str:
        return "card" if self.market.startswith("retail_") else "gpu_hour"

    def observed_flags(self) -> list[bool]:
        return list(self.observed) if self.observed is not None else [True] * len(self.days)

    @classmethod
    def from_observations(cls, gpu_id: str, market: str, source: str | None, observations, is_synthetic: bool,
                          sources: list[str], observation_sources: list[str] | None = None) -> PriceSeries:
        """A dense daily series (buy_signal.daily_series) from (day, price) observations, the observed days marked
        (and, given `observation_sources` parallel to the observations, each observed day's sources)."""
        observations = list(observations)
        dense = buy_signal.daily_series(observations)
        day_sources = {(when.astimezone(UTC) if when.tzinfo else when).date() if isinstance(when, datetime) else when:
                       None if observation_sources is None else observation_sources[index]
                       for index, (when, _) in enumerate(observations)}  # the days daily_series counts them on
        return cls(gpu_id, market, source, [day for day, _ in dense], [price for _, price in dense], is_synthetic,
                   sources, [day in day_sources for day, _ in dense],
                   None if observation_sources is None else [day_sources.get(day) for day, _ in dense])


def provider_series(connection: duckdb.DuckDBPyConnection, gpu_id: str | None = None,
                    market: str | None = None, rentals_only: bool = True) -> list[PriceSeries]:
    """Every provider's own series (provider x GPU x market, marts.gpu_provider_prices_daily: the query the
    backtest reads too; rentals only unless told), whole (the outlook cuts its own segments), with the other
    providers' median of each day (the outlook's distance from the panel median)."""
    return [dataclasses.replace(whole, panel_medians=medians)
            for whole, medians in _series_lists(connection, PROVIDER_SERIES_SQL,
                                                {"gpu": gpu_id, "market": market, "rentals": rentals_only})]


def _series_lists(connection: duckdb.DuckDBPyConnection, sql: str, values: dict,
                  source: str | None = None) -> list[tuple[PriceSeries, list[float | None]]]:
    """Each series the rows of `sql` hold (PANEL_SERIES_LISTS_SQL), whole, with its others' medians per dense day."""
    found = []
    for (gpu, market_name, kind, provider, _start, panel_id, providers, days, prices, synthetic, sources,
         day_sources, medians) in connection.execute(PANEL_SERIES_LISTS_SQL.format(rows=sql), values).fetchall():
        whole = PriceSeries.from_observations(
            gpu, market_name, source, zip(days, (Decimal(price) for price in prices), strict=True),
            bool(synthetic), sorted(set((sources or "").split(",")) - {""}), [value or "" for value in day_sources])
        whole = dataclasses.replace(whole, kind=kind, provider=provider, panel_id=panel_id,
                                    panel_providers=sorted(set((providers or "").split(",")) - {""}))
        by_day = dict(zip(days, medians, strict=True))
        found.append((whole, [by_day.get(day) for day in whole.days]))
    return found


def outlook_series(connection: duckdb.DuckDBPyConnection, gpu_id: str | None = None,
                   market: str | None = None) -> list[PriceSeries]:
    """The series the outlook answers for (issue 40): each seller's or provider's own series (provider_series:
    never a market's cheapest across sellers, whose panel changes as shops come and go; an imported history is its
    source's provider's own: Amazon's buy box, idealo's lowest), each with its GPU's context
    (outlook_features.gpu_context)."""
    found = provider_series(connection, gpu_id, market, rentals_only=False)
    contexts = outlook_features.gpu_context(connection)
    for one in found:
        one.context = contexts.get(one.gpu_id)
    return found


def series(connection: duckdb.DuckDBPyConnection, source: str | None = None, gpu_id: str | None = None,
           market: str | None = None) -> list[PriceSeries]:
    sql, parameters = (SERIES_SQL, {}) if source is None else (SOURCE_SERIES_SQL, {"source": source})
    rows = connection.execute(SERIES_LISTS_SQL.format(rows=sql), {**parameters, "gpu": gpu_id, "market": market}
                              ).fetchall()
    found = []
    for gpu, market_name, days, prices, synthetic, sources, day_sources in rows:
        found.append(PriceSeries.from_observations(
            gpu, market_name, source, zip(days, (Decimal(price) for price in prices), strict=True), bool(synthetic),
            sorted(set((sources or "").split(",")) - {""}), [value or "" for value in day_sources]))
    return found


def panel_series(connection: duckdb.DuckDBPyConnection, source: str | None = None, gpu_id: str | None = None,
                 market: str | None = None) -> list[PriceSeries]:
    """The series the buy signal is scored on, none joining panels (module docstring): each provider's own series,
    and each constant-panel segment of a market's cheapest with two providers or more; with `source`, that source's
    prices per provider. Each is cut at a splice (outlook.segment_bounds), the parts series of their own."""
    parameters = {"gpu": gpu_id, "market": market}
    if source is not None:
        queries = [(SOURCE_PROVIDER_SERIES_SQL, {**parameters, "source": source})]
    else:
        queries = [(PROVIDER_SERIES_SQL, {**parameters, "rentals": False}), (PANEL_SERIES_SQL, parameters)]
    found = []
    for sql, values in queries:
        for whole, _medians in _series_lists(connection, sql, values, source):
            for part in outlook.segments(whole):
                sources_seen = {name for value in part.observed_sources or [] if value for name in value.split(",")}
                found.append(dataclasses.replace(part, sources=sorted(sources_seen) or whole.sources))
    return sorted(found, key=lambda one: (one.gpu_id, one.market, one.kind, one.provider or "", one.days[0]))


def series_fields(found: PriceSeries) -> dict:
    """What names a series in the backtest's and the verdicts' rows."""
    return {"series_key": found.series_key, "series_kind": found.kind, "series_label": found.label,
            "provider": found.provider, "panel_id": found.panel_id, "panel_providers": found.panel_providers,
            "panel_start": found.days[0] if found.days else None}


def backtest_report(connection: duckdb.DuckDBPyConnection | None, window: int = 30, source: str | None = None,
                    found_series: list[PriceSeries] | None = None) -> dict:
    """Every series long enough to backtest (36 days of history plus a full window), the project's signal and the
    baselines side by side: {"series": [...], "overall": {"signal": {...}, "baselines": {...}}, "skipped": [...]}.
    By default the series of `panel_series`: one provider's, or one constant panel's, never a join of panels."""
    results, skipped = [], []
    for found in found_series if found_series is not None else panel_series(connection, source):
        if len(found.prices) < buy_signal.FIRST_DECISION_INDEX + window + 1:
            skipped.append({"gpu_id": found.gpu_id, "market": found.market, "series_key": found.series_key,
                            "days": len(found.prices)})
            continue
        by_rule = {name: buy_signal.backtest(found.prices, rule(found.prices), window)
                   for name, rule in buy_signal.RULES.items()}
        if window in outlook_horizons():  # the outlook rule beside the others (issue 26); not the decision rule
            by_rule[buy_signal.OUTLOOK_RULE] = buy_signal.backtest(found.prices, outlook_fires(found, window), window)
        results.append({"gpu_id": found.gpu_id, "market": found.market, **series_fields(found),
                        "source": source or ",".join(found.sources),
                        "first_day": found.days[0], "last_day": found.days[-1], "is_synthetic": found.is_synthetic,
                        **{name: result.as_dict() for name, result in by_rule.items()}})
    overall = {name: buy_signal.overall([row[name] for row in results]) for name in buy_signal.RULES}
    return {
        "window": window,
        "series": results,
        "overall": {"signal": overall[buy_signal.SIGNAL],
                    "baselines": {name: value for name, value in overall.items() if name != buy_signal.SIGNAL},
                    **({buy_signal.OUTLOOK_RULE: buy_signal.overall([row[buy_signal.OUTLOOK_RULE] for row in results])}
                       if window in outlook_horizons() else {})},
        "decision_rule": buy_signal.DECISION_RULE,
        "is_synthetic": any(row["is_synthetic"] for row in results),
        "skipped": skipped,
    }


def outlook_horizons() -> set[int]:
    return {int(horizon) for horizon in outlook.load_model()["horizons"]}


def outlook_fires(found: PriceSeries, window: int) -> list[bool]:
    """The outlook rule (issue 26): buy on a day whose P(drop >= 5% within the window) is under
    buy_signal.OUTLOOK_BUY_THRESHOLD; never on a day without an outlook (in the first outlook.MIN_HISTORY_DAYS - 1
    days of the series, or of its segment after a gap of over outlook.MAX_GAP_DAYS days: outlook.segments)."""
    fires = [False] * len(found.prices)
    fit = None
    for start, stop in outlook.segment_bounds(found):
        if stop - start < outlook.MIN_HISTORY_DAYS:
            continue
        fit = fit or outlook.model_for(window)
        for row in outlook.predict_frame(outlook.segment_frame(found, start, stop, window), fit, None, window):
            fires[start + row["t"]] = row["drop_5pct"] < buy_signal.OUTLOOK_BUY_THRESHOLD
    return fires


def verdicts(connection: duckdb.DuckDBPyConnection | None, window: int = 30,
             found_series: list[PriceSeries] | None = None) -> list[dict]:
    """Today's verdict per series (its last day): buy now or wait, with the series' own backtested savings. By
    default per series of `panel_series` (one provider's, or one constant panel's)."""
    found_verdicts = []
    for found in found_series if found_series is not None else panel_series(connection):
        fires = buy_signal.RULES[buy_signal.DECISION_RULE](found.prices)
        backtested = None
        if len(found.prices) >= buy_signal.FIRST_DECISION_INDEX + window + 1:
            backtested = buy_signal.backtest(found.prices, fires, window).as_dict()
        found_verdicts.append({
            "gpu_id": found.gpu_id, "market": found.market, **series_fields(found), "price_per": found.price_per,
            "first_day": found.days[0], "as_of": found.days[-1],
            "price_usd": found.prices[-1], "buy_now": bool(fires[-1]), "days_of_history": len(found.prices),
            "backtest": backtested, "is_synthetic": found.is_synthetic, "sources": found.sources,
        })
    return found_verdicts
