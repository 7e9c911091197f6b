"""marts.buy_verdicts and marts.buy_signal_backtest (analytics/buy_verdicts.py): what the pages show is what
analytics/price_history computes from the same series, stored after the build instead of recomputed by the site."""

from __future__ import annotations

import math
from datetime import date, timedelta
from decimal import Decimal

import duckdb

from analytics import buy_verdicts, price_history
from analytics.price_history import PriceSeries
from warehouse.store.schema import create_raw_schema


def wave(days: int, phase: float, base: str = "1500") -> list[Decimal]:
    """A price that dips and recovers (the buy signal fires in the dips), two decimals."""
    return [(Decimal(base) * Decimal(1 + 0.08 * math.sin(day / 9 + phase))).quantize(Decimal("0.01"))
            for day in range(days)]


def series(gpu_id: str, market: str, days: int, phase: float, synthetic: bool = False,
           last_day_cut: str | None = None) -> PriceSeries:
    """`last_day_cut`: the last day's price that much under the day before (a deal the signal buys)."""
    first, prices = date(2024, 1, 1), wave(days, phase)
    if last_day_cut is not None:
        prices[-1] = (prices[-2] * (1 - Decimal(last_day_cut))).quantize(Decimal("0.01"))
    return PriceSeries(gpu_id, market, None, [first + timedelta(days=i) for i in range(days)], prices,
                       synthetic, ["shop-a", "shop-b"])


def marts_over(connection) -> None:
    """The two dbt views, as the build makes them."""
    connection.execute("CREATE SCHEMA IF NOT EXISTS marts")
    connection.execute(f"CREATE OR REPLACE VIEW marts.buy_verdicts AS SELECT * FROM {buy_verdicts.VERDICTS_TABLE}")
    connection.execute(
        f"CREATE OR REPLACE VIEW marts.buy_signal_backtest AS SELECT * FROM {buy_verdicts.BACKTEST_TABLE}")


def test_the_stored_verdicts_and_backtest_are_what_price_history_computes():
    found = [series("rtx-4090-24gb", "retail_new", 200, 0.0, last_day_cut="0.25"), series("rtx-4090-24gb", "retail_used", 150, 1.3, True),
             series("h100-sxm5-80gb", "on_demand", 20, 0.5)]  # too short to backtest: a verdict, no backtest
    expected_verdicts = price_history.verdicts(None, found_series=found)
    expected_report = price_history.backtest_report(None, found_series=found)
    with duckdb.connect() as connection:
        create_raw_schema(connection)  # the tables the series marts are written to, as the warehouse has them
        assert buy_verdicts.write_marts(connection, found) == 3
        marts_over(connection)
        stored = {(v["gpu_id"], v["market"]): v for v in buy_verdicts.read_verdicts(connection)}
        report = buy_verdicts.read_backtest(connection)
    assert set(stored) == {(v["gpu_id"], v["market"]) for v in expected_verdicts}
    for verdict in expected_verdicts:
        mine = stored[(verdict["gpu_id"], verdict["market"])]
        for key in ("price_per", "as_of", "price_usd", "buy_now", "days_of_history", "is_synthetic", "sources"):
            assert mine[key] == verdict[key], key
        if verdict["backtest"] is None:
            assert mine["backtest"] is None
            continue
        for key in ("savings", "oracle_savings", "share_of_oracle", "days"):
            assert mine["backtest"][key] == verdict["backtest"][key], key
        assert Decimal(mine["backtest"]["paid_signal"]) == verdict["backtest"]["paid_signal"]  # exact money
    assert any(v["buy_now"] for v in expected_verdicts) and any(not v["buy_now"] for v in expected_verdicts)
    assert report["overall"]["signal"]["share_of_oracle"] == expected_report["overall"]["signal"]["share_of_oracle"]
    assert len(report["series"]) == len(expected_report["series"]) == 2
    assert report["is_synthetic"] is True and report["decision_rule"] == expected_report["decision_rule"]


def test_a_new_write_replaces_both_tables_whole():
    with duckdb.connect() as connection:
        create_raw_schema(connection)  # the tables the series marts are written to, as the warehouse has them
        buy_verdicts.write_marts(connection, [series("rtx-4090-24gb", "retail_new", 200, 0.0),
                                              series("rtx-3090-24gb", "retail_new", 200, 2.0)])
        buy_verdicts.write_marts(connection, [series("rtx-4090-24gb", "retail_new", 201, 0.0)])
        marts_over(connection)
        assert [(v["gpu_id"], v["days_of_history"]) for v in buy_verdicts.read_verdicts(connection)] == \
            [("rtx-4090-24gb", 201)]
        assert len(buy_verdicts.read_backtest(connection)["series"]) == 1
        assert buy_verdicts.read_backtest(connection, window=14) is None
