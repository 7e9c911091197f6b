"""The buy signal's verdicts and backtest as marts: written by Python after each build, beside the outlook (the same
stage reads every price series once), so the pages read them instead of backtesting every series at every site
build.

marts.buy_verdicts: per series, its verdict on its last day: buy now or wait, with the series' own backtested savings
(analytics/price_history.verdicts). marts.buy_signal_backtest: the buy signal and its baselines backtested on every
long-enough series (analytics/price_history.backtest_report, what `gpuprices backtest` prints). A series is one
provider's own prices or the cheapest over one constant panel of providers (price_history.panel_series, issue 40):
never a line that joins panels, so a GPU and market has several (series_key).
"""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal

import polars as pl

from analytics import price_history
from warehouse.store import schema

VERDICTS_TABLE = "meta.buy_verdicts"
BACKTEST_TABLE = "meta.buy_signal_backtest"
VERDICT_COLUMNS = ("gpu_id", "market", "series_key", "series_kind", "series_label", "provider", "panel_id",
                   "panel_providers", "panel_start", "price_per", "as_of", "price_usd", "buy_now", "days_of_history",
                   "is_synthetic", "sources")



def _json(value) -> str:
    """JSON of a verdict's or report's figures: shares as numbers, money as exact text, days as ISO dates."""
    def plain(item):
        if isinstance(item, Decimal):
            return str(item)
        if isinstance(item, date | datetime):
            return item.isoformat()
        raise TypeError(f"{type(item).__name__} is not JSON")
    return json.dumps(value, default=plain, allow_nan=False)


def write_marts(connection, found_series: list | None = None, window: int = 30) -> int:
    """Both tables rewritten whole from every series of the warehouse as it is now (a series gone is gone; by default
    price_history.panel_series: one provider's or one constant panel's). Returns the verdicts written."""
    schema.create_series_tables(connection)  # the tables' DDL lives with the others'
    if found_series is None:
        found_series = price_history.panel_series(connection)
    verdicts = price_history.verdicts(None, window, found_series=found_series)
    report = price_history.backtest_report(None, window, found_series=found_series)
    rows = pl.DataFrame(  # noqa: F841 (read by the SQL below)
        [{**{key: verdict[key] for key in VERDICT_COLUMNS},
          "backtest": None if verdict["backtest"] is None else _json(verdict["backtest"])} for verdict in verdicts],
        schema={"gpu_id": pl.String, "market": pl.String, "series_key": pl.String, "series_kind": pl.String,
                "series_label": pl.String, "provider": pl.String, "panel_id": pl.String,
                "panel_providers": pl.List(pl.String), "panel_start": pl.Date, "price_per": pl.String, "as_of": pl.Date,
                "price_usd": pl.Decimal(18, 6), "buy_now": pl.Boolean, "days_of_history": pl.Int32,
                "is_synthetic": pl.Boolean, "sources": pl.List(pl.String), "backtest": pl.String}).to_arrow()
    connection.execute(f"DELETE FROM {VERDICTS_TABLE}")
    connection.execute(f"""INSERT INTO {VERDICTS_TABLE} BY NAME
                           SELECT * REPLACE (backtest::JSON AS backtest) FROM rows""")
    connection.execute(f"DELETE FROM {BACKTEST_TABLE}")
    connection.execute(f"INSERT INTO {BACKTEST_TABLE} VALUES (?, ?, ?)", [window, _json(report), report["is_synthetic"]])
    return len(verdicts)


def read_verdicts(connection) -> list[dict]:
    """marts.buy_verdicts as price_history.verdicts gives them (the backtest's figures as numbers)."""
    cursor = connection.execute(f"""SELECT {', '.join(VERDICT_COLUMNS)}, backtest
                                    FROM marts.buy_verdicts ORDER BY gpu_id, market, series_kind, series_key""")
    names = [column[0] for column in cursor.description]
    found = []
    for row in cursor.fetchall():
        verdict = dict(zip(names, row, strict=True))
        verdict["backtest"] = json.loads(verdict["backtest"]) if verdict["backtest"] is not None else None
        found.append(verdict)
    return found


def read_backtest(connection, window: int = 30) -> dict | None:
    """marts.buy_signal_backtest's report for the window, or None before the first analysis stage."""
    row = connection.execute("SELECT report FROM marts.buy_signal_backtest WHERE window_days = ?", [window]).fetchone()
    return json.loads(row[0]) if row is not None else None
