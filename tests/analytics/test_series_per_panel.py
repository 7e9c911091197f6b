"""Series per panel (issue 40): the buy signal's backtest and verdicts score one provider's prices or the cheapest over
one constant panel of providers, never a series joined across a panel change (analytics/price_history.panel_series).

A warehouse is planted with the marts the series are read from: GCP's list price alone for 200 days (about $11), then
three providers for 100 days (the cheapest $1.29). Read as one line that is an 88% crash that foresight "saves" on;
read per panel it is GCP's own series, each other provider's own, and one panel segment."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import duckdb
import pytest

from analytics import buy_signal, buy_verdicts, price_history

GPU, MARKET = "h100-sxm5-80gb", "on_demand"
FIRST, CHANGE, LAST = date(2024, 1, 1), date(2024, 7, 19), date(2024, 10, 26)  # 200 days, then 100


def days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def gcp_price(day: date) -> Decimal:
    """GCP's list price: 11.06, cut to 10.98 for a week now and then (a dip its own series can be scored on)."""
    return Decimal("10.98") if (day - FIRST).days % 45 in range(40, 45) else Decimal("11.06")


OTHERS = {"lambda": Decimal("1.29"), "runpod": Decimal("1.99")}


def provider_rows() -> list[tuple]:
    rows = [(day, "gcp", "gcp-list-history", gcp_price(day)) for day in days(FIRST, LAST)]
    rows += [(day, provider, provider, price) for provider, price in OTHERS.items() for day in days(CHANGE, LAST)]
    return rows


@pytest.fixture
def planted():
    """marts.gpu_provider_prices_daily, gpu_prices_daily and gpu_price_panels as the build makes them from the
    planted providers (the panels: gcp until the day before CHANGE, then gcp, lambda and runpod)."""
    connection = duckdb.connect()
    connection.execute("CREATE SCHEMA marts")
    connection.execute("""CREATE TABLE marts.gpu_provider_prices_daily (price_date DATE, gpu_id VARCHAR,
        channel VARCHAR, market VARCHAR, price_per VARCHAR, provider VARCHAR, source VARCHAR, price_usd DECIMAL(18, 6),
        others_median_usd DECIMAL(18, 6), is_imported BOOLEAN, is_synthetic BOOLEAN, is_carried_forward BOOLEAN)""")
    connection.executemany("INSERT INTO marts.gpu_provider_prices_daily VALUES (?, ?, 'cloud', ?, 'gpu_hour', ?, ?, ?, "
                           "NULL, false, false, false)",
                           [(day, GPU, MARKET, provider, source, price) for day, provider, source, price in
                            provider_rows()])
    connection.execute("""CREATE TABLE marts.gpu_prices_daily AS
        SELECT price_date, gpu_id, channel, market, price_per, min(price_usd) AS min_price_usd, count(*) AS offer_count,
               0 AS carried_forward_offer_count, count(*) AS provider_count,
               string_agg(provider, ',' ORDER BY provider) AS panel_providers,
               left(md5(string_agg(provider, ',' ORDER BY provider)), 12) AS panel_id,
               string_agg(source, ',' ORDER BY source) AS sources, false AS is_synthetic
        FROM marts.gpu_provider_prices_daily GROUP BY ALL""")
    connection.execute("""CREATE TABLE marts.gpu_price_panels AS
        SELECT gpu_id, channel, market, price_per, any_value(panel_id) AS panel_id,
               any_value(panel_providers) AS panel_providers, any_value(provider_count) AS provider_count,
               min(price_date) AS panel_start, max(price_date) AS panel_end
        FROM marts.gpu_prices_daily GROUP BY gpu_id, channel, market, price_per, panel_providers""")
    yield connection
    connection.close()


def test_the_joined_series_is_the_crash_the_old_backtest_scored(planted):
    """The market's cheapest whole (price_history.series, what the backtest read before): 11.06 to 1.29, and the
    signal 'captures' about all of what foresight saves across the join."""
    (joined,) = price_history.series(planted)
    assert joined.prices[0] == Decimal("11.06") and joined.prices[-1] == Decimal("1.29")
    (row,) = price_history.backtest_report(None, found_series=[joined])["series"]
    assert row["signal"]["oracle_savings"] > 0.1  # the join, read as a price drop (under 1% on its own prices)


def test_a_series_joined_from_two_panels_is_scored_as_two(planted):
    found = price_history.panel_series(planted)
    keys = {one.series_key: one for one in found}
    assert set(keys) == {f"provider gcp from {FIRST}", f"provider lambda from {CHANGE}",
                         f"provider runpod from {CHANGE}", f"panel from {CHANGE}"}
    gcp, panel = keys[f"provider gcp from {FIRST}"], keys[f"panel from {CHANGE}"]
    assert gcp.prices == [gcp_price(day) for day in days(FIRST, LAST)] and gcp.kind == "provider"
    assert panel.days[0] == CHANGE and set(panel.prices) == {Decimal("1.29")}
    assert panel.panel_providers == ["gcp", "lambda", "runpod"]
    for one in found:  # no scored series holds both an $11 and a $1.29 price
        assert not (max(one.prices) > 10 and min(one.prices) < 2), one.series_key

    report = price_history.backtest_report(planted)
    scored = {row["series_key"]: row for row in report["series"]}
    # GCP's own series scored on its own prices; the three 100-day series too; nothing across the change
    assert set(scored) == set(keys)
    own = buy_signal.backtest(gcp.prices, buy_signal.dip_fires(gcp.prices)).as_dict()
    assert scored[f"provider gcp from {FIRST}"]["signal"] == own
    assert scored[f"provider gcp from {FIRST}"]["signal"]["oracle_savings"] < 0.01  # its dips are under 1%
    assert scored[f"panel from {CHANGE}"]["signal"]["oracle_savings"] == 0  # a flat panel: nothing to capture
    assert scored[f"panel from {CHANGE}"]["panel_start"] == CHANGE and scored[f"panel from {CHANGE}"]["provider"] is None


def test_a_splice_within_one_provider_is_two_series(planted):
    """GCP's list history ends and, after a gap of months, its scraped price follows (other sources): two series."""
    planted.execute("DELETE FROM marts.gpu_provider_prices_daily WHERE provider <> 'gcp' OR price_date BETWEEN ? AND ?",
                    [date(2024, 5, 1), date(2024, 8, 31)])
    planted.execute("UPDATE marts.gpu_provider_prices_daily SET source = 'gcp' WHERE price_date > ?", [date(2024, 8, 31)])
    found = price_history.panel_series(planted, gpu_id=GPU)
    assert [(one.days[0], one.days[-1], one.sources) for one in found if one.kind == "provider"] == [
        (FIRST, date(2024, 4, 30), ["gcp-list-history"]), (date(2024, 9, 1), LAST, ["gcp"])]


def test_verdicts_are_stored_per_series(planted):
    assert buy_verdicts.write_marts(planted) == 4
    planted.execute(f"CREATE VIEW marts.buy_verdicts AS SELECT * FROM {buy_verdicts.VERDICTS_TABLE}")
    stored = buy_verdicts.read_verdicts(planted)
    assert {(v["series_kind"], v["provider"], v["panel_start"]) for v in stored} == {
        ("provider", "gcp", FIRST), ("provider", "lambda", CHANGE), ("provider", "runpod", CHANGE),
        ("panel", None, CHANGE)}
    (panel,) = [v for v in stored if v["series_kind"] == "panel"]
    assert panel["days_of_history"] == 100 and panel["series_label"] == "cheapest of 3 providers"
    assert panel["panel_providers"] == ["gcp", "lambda", "runpod"]
