"""The outlook never reads across a splice (analytics/outlook.py segments): a series is split at every stretch of
over MAX_GAP_DAYS days between two observed days of other sources (or of unknown sources: a series made by hand),
and each segment is a series of its own for the features, the outcomes, the scores, the mart and the outlook buy
rule; a weekly series stays one, and so does one source's change-only history across a long quiet stretch."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from decimal import Decimal

import duckdb
import pytest

from analytics import outlook, outlook_features, outlook_scoring, price_history
from analytics.price_history import PriceSeries
from warehouse.store.schema import create_raw_schema

START = date(2023, 1, 1)
GAP_DAYS = 200


def prices_walk(days: int, seed: int, level: float = 500.0) -> list[Decimal]:
    generator, price, found = random.Random(seed), level, []
    for _ in range(days):
        price *= math.exp(generator.gauss(0, 0.02)) if generator.random() < 0.3 else 1
        found.append(Decimal(f"{price:.2f}"))
    return found


def gapped(before: int, after: int, market: str = "on_demand") -> PriceSeries:
    """`before` daily observations, the next one GAP_DAYS days after the last, then `after` daily observations at
    about a fifth of the price (other sellers: the offline warehouse's splice)."""
    first = [(START + timedelta(days=i), price) for i, price in enumerate(prices_walk(before, 1))]
    resume = START + timedelta(days=before - 1 + GAP_DAYS)
    second = [(resume + timedelta(days=i), price) for i, price in enumerate(prices_walk(after, 2, level=100.0))]
    return PriceSeries.from_observations("h100-sxm5-80gb", market, None, first + second, False, ["test"])


def test_the_series_keeps_which_days_were_observed_and_splits_at_the_long_gap():
    found = gapped(100, 100)
    assert len(found.days) == 100 + GAP_DAYS - 1 + 100 == len(found.prices) == len(found.observed)
    assert found.observed[:100] == [True] * 100 and not any(found.observed[100:99 + GAP_DAYS])
    assert found.observed[99 + GAP_DAYS:] == [True] * 100
    assert found.prices[150] == found.prices[99]  # the dense series still carries the price (the buy signal's)
    assert outlook.segment_bounds(found) == [(0, 100), (99 + GAP_DAYS, len(found.days))]
    first, second = outlook.segments(found)
    assert (first.days[-1], second.days[0]) == (START + timedelta(days=99), START + timedelta(days=99 + GAP_DAYS))
    assert all(first.observed) and all(second.observed) and len(second.prices) == 100
    assert not outlook.has_outlook(gapped(100, 59)) and outlook.has_outlook(gapped(100, 60))


def test_no_outlook_within_min_history_days_after_the_gap_and_none_sees_across_it():
    found = gapped(200, 120)
    resume = START + timedelta(days=199 + GAP_DAYS)
    every = outlook.outlooks(found, every_day=True)
    days = [one.as_of for one in every]
    assert days == sorted(days)
    after_gap = [one for one in every if one.as_of >= resume]
    # no outlook on the gap's carried days nor on the first MIN_HISTORY_DAYS - 1 days after it
    assert not [day for day in days if START + timedelta(days=199) < day < resume + timedelta(days=59)]
    assert after_gap[0].as_of == resume + timedelta(days=outlook.MIN_HISTORY_DAYS - 1)
    assert after_gap[0].days_of_history == outlook.MIN_HISTORY_DAYS and len(after_gap) == 120 - 59
    # the days after the gap are forecast as if the series began there: the earlier prices are not seen
    (_first, second) = outlook.segments(found)
    alone = PriceSeries(found.gpu_id, found.market, None, second.days, second.prices, False, ["test"])
    assert [one.as_dict() for one in after_gap] == [one.as_dict() for one in outlook.outlooks(alone, every_day=True)]
    (latest,) = outlook.outlooks(found)
    assert latest.as_of == found.days[-1] and latest.days_of_history == 120
    assert len(every) == (200 - 59) + (120 - 59)  # read as one series: 200 + 199 + 120 - 59 days


def test_a_series_too_short_since_its_gap_has_no_outlook_and_says_why():
    found = gapped(200, 30)
    with pytest.raises(outlook.OutlookError, match=rf"^h100-sxm5-80gb on_demand: 30 days of history since a "
                                                   rf"{GAP_DAYS}-day gap without an observation \(2023-07-19 to "
                                                   rf"2024-02-04\), the outlook needs 60$"):
        outlook.outlooks(found)
    # every day: the segment before the gap still has its outlooks, none after the gap
    assert max(one.as_of for one in outlook.outlooks(found, every_day=True)) == START + timedelta(days=199)
    assert outlook.outlooks(found, since=START + timedelta(days=300)) == []


def test_scored_days_never_span_the_gap_and_a_window_past_a_segment_end_is_not_scored():
    found = gapped(100, 80)  # 100 days, the gap, 80 days: the second part has an outlook, no known outcome yet
    h = 30
    report = outlook_scoring.backtest_report([found], h)
    (row,) = report["series"]
    # the first part: days 59 .. 69 only (day 70's window (70, 100] would reach past its end, into the gap)
    assert row["days"] == 100 - (outlook.MIN_HISTORY_DAYS - 1) - h == 11 and row["segments"] == 1
    (scores,) = outlook_scoring.series_scores([found], h)
    assert scores["scored_days"] == 11 and scores["days_of_history"] == 80 and scores["as_of"] == found.days[-1]
    assert scores["first_scored_date"] == START + timedelta(days=59)
    assert scores["last_scored_date"] == START + timedelta(days=69)  # + 30 = the segment's last day, 99
    # with a long enough second part, both parts are scored, each on its own days
    both = outlook_scoring.backtest_report([gapped(100, 120)], h)["series"][0]
    assert both["days"] == 11 + (120 - 59 - 30) and both["segments"] == 2
    # each scored day's outcome lies within its segment: the frames know no outcome in a segment's last h days
    for part in outlook.segments(gapped(100, 120)):
        frame = outlook_features.feature_frame(part.prices, h)
        assert frame["end_ratio"][-h:].null_count() == h and frame["end_ratio"][:-h].null_count() == 0
        assert frame["low_ratio"][-h:].null_count() == h


def test_a_weekly_series_stays_one_segment_and_a_longer_stretch_splits_it():
    steps = [7] * 40 + [14] + [7] * 40  # weekly list prices, one revision missing
    day, observations = START, []
    for i, step in enumerate([0, *steps]):
        day += timedelta(days=step)
        observations.append((day, Decimal(100 + i % 5)))
    weekly = PriceSeries.from_observations("l4-24gb", "on_demand", None, observations, False, ["test"])
    assert outlook.segment_bounds(weekly) == [(0, len(weekly.days))]
    assert sum(weekly.observed) == len(observations) and len(weekly.days) == sum(steps) + 1
    (latest,) = outlook.outlooks(weekly)
    assert latest.days_of_history == len(weekly.days)
    assert outlook_scoring.backtest_report([weekly])["series"][0]["days"] == len(weekly.days) - 59 - 30
    # a stretch of MAX_GAP_DAYS + 1 between two observations splits it
    longer = [(d + timedelta(days=1), p) if d > observations[40][0] else (d, p) for d, p in observations]
    split = PriceSeries.from_observations("l4-24gb", "on_demand", None, longer, False, ["test"])
    assert len(outlook.segment_bounds(split)) == 2 and outlook.MAX_GAP_DAYS == 14


def test_a_long_gap_splits_a_series_where_its_sources_change_not_within_one_sources_history():
    """Keepa records a price when it changes: months without a row are months at that price, one series. A history
    that ended and a market of other sources after a long gap is a splice: two."""
    first = [(START + timedelta(days=i), price) for i, price in enumerate(prices_walk(100, 1))]
    resume = START + timedelta(days=99 + GAP_DAYS)
    second = [(resume + timedelta(days=i), price) for i, price in enumerate(prices_walk(100, 2))]
    one_source = PriceSeries.from_observations("rtx-4090-24gb", "retail_new", None, first + second, False,
                                               ["keepa-amazon"], ["keepa-amazon"] * 200)
    assert outlook.segment_bounds(one_source) == [(0, len(one_source.days))]
    assert one_source.observed_sources[150] is None and one_source.observed_sources[0] == "keepa-amazon"
    spliced = PriceSeries.from_observations("rtx-4090-24gb", "retail_new", None, first + second, False,
                                            ["keepa-amazon", "newegg"], ["keepa-amazon"] * 100 + ["newegg"] * 100)
    assert outlook.segment_bounds(spliced) == [(0, 100), (99 + GAP_DAYS, len(spliced.days))]
    (kept,) = outlook.outlooks(one_source)
    assert kept.days_of_history == len(one_source.days)


def test_the_mart_drops_a_row_it_no_longer_has_and_writes_none_after_the_gap():
    found = gapped(200, 30)
    resume = START + timedelta(days=199 + GAP_DAYS)
    with duckdb.connect() as connection:
        create_raw_schema(connection)  # the table the outlook writes, with the others
        for day in (found.days[-1], resume + timedelta(days=5)):  # rows an older build wrote across the gap
            connection.execute(f"INSERT INTO {outlook.TABLE} VALUES (?, 'h100-sxm5-80gb', 'on_demand', 'any', 30, 1, "
                               "0.5, 0.5, 1, 1, 1, 1, 300, 'rental_list', 'model', '', 0, false)", [day])
        assert outlook.write_mart(connection, [found]) == 0  # a daily build: the last day has no outlook
        kept = connection.execute(f"SELECT price_date FROM {outlook.TABLE} ORDER BY 1").fetchall()
        assert kept == [(resume + timedelta(days=5),)]
        written = outlook.write_mart(connection, [found], since=START + timedelta(days=150))  # an incremental one
        assert written == 50  # days 150 .. 199 before the gap; none after it
        dates = [row[0] for row in connection.execute(f"SELECT price_date FROM {outlook.TABLE}").fetchall()]
        assert max(dates) == START + timedelta(days=199) and len(dates) == 50
        assert outlook_scoring.write_scores(connection, [found]) == 0  # no outlook on its last day: not on the pages


def test_the_outlook_buy_rule_never_fires_where_the_segment_has_no_outlook():
    found = gapped(120, 100, market="retail_new")
    fires = price_history.outlook_fires(found, 30)
    start = 120 + GAP_DAYS - 1
    assert not any(fires[:59]) and not any(fires[120:start + 59])
    first, second = outlook.segments(found)
    # each segment's days fire as the segment alone would (its own features), and on some day of each
    assert fires[:120] == price_history.outlook_fires(first, 30) and any(fires[:120])
    assert fires[start:] == price_history.outlook_fires(second, 30) and any(fires[start:])


def flat_after_gap(after: list[Decimal], market: str = "on_demand") -> PriceSeries:
    """gapped()'s history, then a young segment of the given prices (a provider's list price, say)."""
    first = [(START + timedelta(days=i), price) for i, price in enumerate(prices_walk(200, 1))]
    resume = START + timedelta(days=199 + GAP_DAYS)
    second = [(resume + timedelta(days=i), price) for i, price in enumerate(after)]
    return PriceSeries.from_observations("h100-sxm5-80gb", market, None, first + second, False, ["test"])


def test_a_young_list_price_that_has_held_gets_the_pooled_cut_rate_stated_as_such_not_silence():
    fit = outlook.model_for(outlook.DEFAULT_HORIZON_DAYS)
    held = flat_after_gap([Decimal("2.49")] * 40)
    assert outlook.has_outlook(held)
    (latest,) = outlook.outlooks(held)
    assert (latest.basis, latest.days_unchanged, latest.days_of_history) == ("list_cut_rate", 40, 40)
    assert latest.drop_5pct == fit["flat_list"]["drop_5pct"] and "no change seen in 40 days" in latest.note
    assert latest.p10_usd == latest.p50_usd == latest.p90_usd == 2.49  # a list price holds until it is cut
    # every day: the young segment's days from the 30th on, none before
    young = [one for one in outlook.outlooks(held, every_day=True) if one.as_of > START + timedelta(days=199)]
    assert [one.days_of_history for one in young] == list(range(outlook.FLAT_LIST_DAYS, 41))
    # too few days held, a price that moved within them, or a market that is no list price: no outlook
    for series in (flat_after_gap([Decimal("2.49")] * 29),
                   flat_after_gap([Decimal("2.99")] * 15 + [Decimal("2.49")] * 25),
                   flat_after_gap([Decimal("700")] * 40, market="retail_new"),
                   flat_after_gap([Decimal("0.80")] * 40, market="marketplace_on_demand")):
        assert not outlook.has_outlook(series)
        with pytest.raises(outlook.OutlookError, match="the outlook needs 60"):
            outlook.outlooks(series)
