"""The buy signal and its backtest (analytics/buy_signal.py): daily series, the two baseline rules and the
backtest's arithmetic on hand-worked examples, no look-ahead, and the signal's result on the eight bundled real
Amazon/Keepa histories (recordings/retail_history/)."""

from __future__ import annotations

import json
import random
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from analytics.buy_signal import (
    BASELINES,
    FIRST_DECISION_INDEX,
    LAUNCH_DAYS,
    RULES,
    SIGNAL,
    SeriesBacktest,
    backtest,
    backtest_rules,
    buyer_days,
    daily_series,
    dip_fires,
    lowest_5pct_fires,
    median_drop_5pct_fires,
    overall,
)
from dev.tune_buy_signal import bundled_retail_series
from warehouse.ingest.histories import KEEPA_HISTORIES


def prices(*values) -> list[Decimal]:
    return [Decimal(str(value)) for value in values]


@pytest.fixture(scope="module")
def bundled() -> dict[str, list[Decimal]]:
    return bundled_retail_series()


def test_daily_series_takes_the_last_price_of_each_day_by_timestamp_and_carries_it_over():
    observations = [
        (datetime(2024, 1, 1, 18, 0), Decimal("105")),  # given first, but later in the day than the 09:00 price
        (datetime(2024, 1, 1, 9, 0), Decimal("100")),
        (datetime(2024, 1, 4, 12, 0), Decimal("90")),
        (datetime(2024, 1, 4, 13, 0), Decimal("95")),
        (date(2024, 1, 6), Decimal("80")),
    ]
    assert daily_series(observations) == [
        (date(2024, 1, 1), Decimal("105")), (date(2024, 1, 2), Decimal("105")), (date(2024, 1, 3), Decimal("105")),
        (date(2024, 1, 4), Decimal("95")), (date(2024, 1, 5), Decimal("95")), (date(2024, 1, 6), Decimal("80"))]


def test_daily_series_counts_aware_timestamps_by_their_utc_day_and_keeps_money_exact():
    tokyo = timezone(timedelta(hours=9))
    series = daily_series([(datetime(2024, 3, 2, 8, 0, tzinfo=tokyo), Decimal("699.99")),  # 2024-03-01 23:00 UTC
                           (datetime(2024, 3, 1, 22, 0, tzinfo=UTC), Decimal("649.99"))])
    assert series == [(date(2024, 3, 1), Decimal("699.99"))]
    assert daily_series([]) == []
    with pytest.raises(TypeError, match="not a Decimal"):
        daily_series([(date(2024, 3, 1), 699.99)])


def test_lowest_5pct_fires_within_5_percent_of_the_lowest_price_once_35_days_are_tracked():
    # day 10 sets the low (80) but is before day 35; 84 = 1.05 x 80 fires, 84.01 does not
    series = prices(*[100] * 10, 80, *[100] * 24, 100, 84, "84.01", 83)
    assert [t for t, fires in enumerate(lowest_5pct_fires(series)) if fires] == [36, 38]
    assert lowest_5pct_fires(prices(*[100] * 40)) == [False] * 35 + [True] * 5  # flat: always within 5% of the low


def test_median_drop_5pct_needs_a_full_30_day_window_and_5_percent_under_its_median():
    # day 28 (90) is 10% under the median so far but has no full window; on day 30 the window [1, 30] holds
    # 27 x 100, 90, 100, 95: median 100, and 95 <= 0.95 x 100 fires; 96 on day 31 does not
    series = prices(*[100] * 28, 90, 100, 95, 96)
    assert [t for t, fires in enumerate(median_drop_5pct_fires(series)) if fires] == [30]


def test_backtest_buys_at_the_first_fire_else_at_the_deadline_against_buying_at_once_and_the_window_low():
    # window 2, buyer days 35..38 (38 + 2 = 40, the last day); the rule fires on days 36 and 40
    series = prices(*[100] * 35, 10, 12, 9, 11, 7, 13)
    fires = [t in (36, 40) for t in range(len(series))]
    result = backtest(series, fires, window=2)
    # d=35: fires on 36 -> 12 (not the window's 9); d=36: 12; d=37: no fire in [37, 39] -> deadline 39 -> 7;
    # d=38: fires on 40, its deadline -> 13.  At once: 10+12+9+11.  Oracle: min of each window 9, 9, 7, 7.
    assert result == SeriesBacktest(days=4, paid_signal=Decimal(44), paid_at_once=Decimal(42),
                                    paid_oracle=Decimal(32))
    assert result.savings == pytest.approx(1 - 44 / 42)
    assert result.oracle_savings == pytest.approx(1 - 32 / 42)
    assert result.share_of_oracle == pytest.approx(-0.2)
    assert buyer_days(len(series), 2) == range(FIRST_DECISION_INDEX, 39)
    assert backtest(series, fires, window=2, days=range(37, 100)) == SeriesBacktest(
        days=2, paid_signal=Decimal(20), paid_at_once=Decimal(20), paid_oracle=Decimal(14))


def test_backtest_without_buyer_days_or_without_anything_to_capture():
    short = backtest(prices(*[100] * 60), [True] * 60, window=30)
    assert (short.days, short.savings, short.share_of_oracle) == (0, None, None)
    flat = backtest(prices(*[100] * 70), [False] * 70, window=30)
    assert (flat.days, flat.savings, flat.oracle_savings, flat.share_of_oracle) == (5, 0.0, 0.0, None)
    with pytest.raises(ValueError, match="signal days"):
        backtest(prices(100, 101), [True])


def test_overall_share_is_the_mean_of_savings_over_the_mean_of_oracle_savings():
    first = SeriesBacktest(10, Decimal(90), Decimal(100), Decimal(80))  # saves 10%, oracle 20%
    second = SeriesBacktest(10, Decimal(100), Decimal(100), Decimal(50))  # saves 0%, oracle 50%
    empty = SeriesBacktest(0, Decimal(0), Decimal(0), Decimal(0))  # no buyer days: not counted
    # objects or their dicts; the share is 0.05 / 0.35, not 0.25 (the mean of the shares)
    assert overall([first, second.as_dict(), empty]) == pytest.approx(
        {"series": 2, "savings": 0.05, "oracle_savings": 0.35, "share_of_oracle": 0.05 / 0.35})
    assert overall([empty])["share_of_oracle"] is None


def test_the_signal_fires_on_a_dip_that_is_large_for_the_series_but_not_in_its_launch_period():
    calm = [103 if t % 10 == 0 else 100 for t in range(200)]  # a price that moves, but never under its median
    dip_day = LAUNCH_DAYS + 30
    after_launch = prices(*calm[:dip_day], 90, *calm[dip_day + 1:])
    assert [t for t, fires in enumerate(dip_fires(after_launch)) if fires] == [dip_day]
    in_launch = prices(*calm[:60], 90, *calm[61:])
    assert not any(dip_fires(in_launch))
    assert not any(dip_fires(prices(*[100] * 200)))  # a flat history has no dip


@pytest.mark.parametrize("rule", list(RULES))
def test_no_rule_looks_ahead(bundled, rule):
    randomness = random.Random(18)
    checked_fires = 0
    for name in ("NVIDIA_GeForce_RTX_3090_Ti", "NVIDIA_RTX_A4500", "NVIDIA_GeForce_RTX_5080"):
        series = bundled[name]
        fires = RULES[rule](series)
        for t in (36, LAUNCH_DAYS + 5, len(series) // 2, len(series) - 2):
            future = series[t + 1:]
            changed = series[:t + 1] + [price * Decimal(randomness.choice(("0.5", "0.9", "1.3"))) for price in future]
            assert RULES[rule](changed)[:t + 1] == fires[:t + 1], (name, t)
            assert RULES[rule](series[:t + 1]) == fires[:t + 1], (name, t)
        checked_fires += sum(fires)
    assert checked_fires > 0  # the check covered days on which the rule fires


def test_the_bundled_histories_are_the_eight_real_keepa_files_with_their_provenance(bundled):
    names = sorted(path.stem for path in KEEPA_HISTORIES.glob("*.json"))
    assert len(names) == 8 and sorted(bundled) == names
    provenance = (KEEPA_HISTORIES / "README.md").read_text()
    assert "United-Compute/gpu-price-tracker" in provenance
    assert "477e041647617ff88395194f8e5c698f5ce9e91e" in provenance
    assert all(f"{name}.json" in provenance for name in names)
    t4 = bundled["NVIDIA_Tesla_T4"]  # 2019-07-17 .. 2025-06-30, daily
    assert (len(t4), t4[0], t4[-1]) == (2176, Decimal("2336.99"), Decimal("729.00"))


def test_on_the_bundled_histories_the_signal_captures_half_the_oracle_savings_and_beats_both_baselines(bundled):
    report = backtest_rules(bundled, window=30)
    json.dumps(report, default=str)  # the shape `gpuprices backtest --json` prints (paid totals are Decimal)
    assert [row["series"] for row in report["series"]] == list(bundled)
    signal = report["overall"][SIGNAL]
    baselines = report["overall"]["baselines"]
    assert set(baselines) == set(BASELINES) == {"lowest_5pct", "median_drop_5pct"}
    assert signal["share_of_oracle"] == pytest.approx(signal["savings"] / signal["oracle_savings"])
    assert signal["share_of_oracle"] >= 0.5
    for baseline in baselines.values():
        assert baseline["oracle_savings"] == pytest.approx(signal["oracle_savings"])  # same buyer days
        assert signal["share_of_oracle"] > baseline["share_of_oracle"] + 0.1
