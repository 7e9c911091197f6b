"""The price outlook (analytics/outlook.py, issue 26): the scoring math on hand-worked examples, the baselines'
bookkeeping on a tiny series, no look-ahead, and the one-line refusal for a series with too little history."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from decimal import Decimal

import pytest

from analytics import outlook, outlook_features, outlook_scoring
from analytics.price_history import PriceSeries
from warehouse.store.schema import create_raw_schema


def test_brier_skill_coverage_and_pinball_on_hand_worked_numbers():
    assert outlook_scoring.brier([0.2, 0.9], [False, True]) == pytest.approx((0.04 + 0.01) / 2)
    assert outlook_scoring.brier([0.5, 0.5, 0.5, 0.5], [True, False, False, False]) == pytest.approx(0.25)
    assert outlook_scoring.skill(0.025, 0.25) == pytest.approx(0.9)
    assert outlook_scoring.skill(0.5, 0.25) == pytest.approx(-1.0)
    assert outlook_scoring.skill(0.1, 0.0) is None
    # [1, 2] holds 1.5 and 2 (ends count), not 3 nor 0.5
    assert outlook_scoring.coverage([1, 1, 1, 1], [2, 2, 2, 2], [1.5, 2, 3, 0.5]) == pytest.approx(0.5)
    assert outlook_scoring.pinball(0.1, 10, 12) == pytest.approx(0.2)   # under-predicted: q x 2
    assert outlook_scoring.pinball(0.1, 10, 8) == pytest.approx(1.8)    # over-predicted: (1 - q) x 2
    assert outlook_scoring.pinball(0.9, 10, 12) == pytest.approx(0.2 * 9)
    assert outlook_scoring.pinball(0.5, 10, 10) == 0
    assert outlook_features.quantile_of([1.0, 2.0, 3.0, 4.0, 5.0], 0.1) == pytest.approx(1.4)
    assert outlook_features.quantile_of([7.0], 0.9) == 7.0


def test_the_feature_frame_counts_only_windows_that_ended_and_knows_each_outcome():
    frame = outlook_features.feature_frame([100, 90, 100, 100, 100], horizon=1)
    # the lowest price in (t, t + 1] against today's, and the price at t + 1 against today's (none at the end)
    assert frame["low_ratio"][:4].to_list() == pytest.approx([0.9, 100 / 90, 1.0, 1.0]) and frame["low_ratio"][4] is None
    assert frame["end_ratio"][:4].to_list() == pytest.approx([0.9, 100 / 90, 1.0, 1.0])
    # day 0's 10% drop is known from day 1 on (its window (0, 1] has ended); nothing is known on day 0
    assert frame["past_windows"].to_list() == [0, 1, 2, 3, 4]
    assert frame["past_drop_5pct"].to_list() == [0, 1, 1, 1, 1]
    assert frame["past_drop_10pct"].to_list() == [0, 1, 1, 1, 1]
    # the naive quantiles: of the 1-day log changes seen so far
    assert frame["naive_p50"][0] is None
    assert frame["naive_p50"][1] == pytest.approx(math.log(0.9))
    assert frame["naive_p50"][4] == pytest.approx(0.0)  # changes -0.105, +0.105, 0, 0: median 0


def scored_rows(prices, horizon, prediction):
    days = [date(2024, 1, 1) + timedelta(days=i) for i in range(len(prices))]
    frame = outlook_features.feature_frame(prices, horizon)
    predictions = [{"t": t, **prediction} for t in range(len(prices))]
    return outlook_scoring.score_rows([outlook_scoring.ScoredSeries({"source": "s", "gpu_id": "g", "market": "retail_new"}, days,
                                                    frame, predictions)], horizon)


def test_climatology_and_naive_baselines_use_the_past_windows_and_the_figures_follow():
    # a price that halves every other day: 1-day drops on days 0, 2, 4, ... (each low is half the price)
    prices = [100 if t % 2 == 0 else 50 for t in range(8)]
    flat = {"drop_5pct": 0.5, "drop_10pct": 0.5, "p10": 0.5, "p50": 1.0, "p90": 2.0, "expected_low": 1.0}
    rows = scored_rows(prices, 1, flat)
    # day 0 has no past window and there is no other series to pool: not scored; day 7 has no outcome
    assert [row["t"] for row in rows] == [1, 2, 3, 4, 5, 6]
    # the climatology on day t: the share of drops among the windows that ended by t (days 0 .. t - 1)
    assert [row["drop_5pct"][1] for row in rows] == pytest.approx([1, 1 / 2, 2 / 3, 2 / 4, 3 / 5, 3 / 6])
    assert [row["drop_5pct"][2] for row in rows] == [False, True, False, True, False, True]
    summary = outlook_scoring.summarize(rows)
    climatology = [1, 1 / 2, 2 / 3, 2 / 4, 3 / 5, 3 / 6]
    outcomes = [0, 1, 0, 1, 0, 1]
    expected = sum((c - o) ** 2 for c, o in zip(climatology, outcomes)) / 6
    assert summary["drop_5pct"]["brier"] == pytest.approx(0.25)
    assert summary["drop_5pct"]["brier_climatology"] == pytest.approx(expected)
    assert summary["drop_5pct"]["skill"] == pytest.approx(1 - 0.25 / expected)
    assert summary["drop_5pct"]["n"] == 6
    # [0.5, 2] x today's price holds every next price (half or double: the ends count)
    assert summary["interval_80"] == {"coverage": pytest.approx(1.0), "n": 6}
    # the model's loss: end ratios alternate 2 (from 50) and 0.5 (from 100)
    losses = {2.0: outlook_scoring.pinball(0.1, 0.5, 2.0) + outlook_scoring.pinball(0.5, 1.0, 2.0) + outlook_scoring.pinball(0.9, 2.0, 2.0),
              0.5: outlook_scoring.pinball(0.1, 0.5, 0.5) + outlook_scoring.pinball(0.5, 1.0, 0.5) + outlook_scoring.pinball(0.9, 2.0, 0.5)}
    assert summary["quantile_loss"]["model"] == pytest.approx(sum(losses[r["end_ratio"]] for r in rows) / 18)
    # the naive baseline on day 1: the only past 1-day change (x 0.5), every quantile of it
    assert rows[0]["naive"] == pytest.approx([0.5, 0.5, 0.5])


def test_a_perfect_forecast_has_skill_one_and_an_empty_score_has_no_figures():
    prices = [100 if t % 2 == 0 else 50 for t in range(8)]
    rows = scored_rows(prices, 1, {"drop_5pct": 0.0, "drop_10pct": 0.0, "p10": 1.0, "p50": 1.0, "p90": 1.0,
                                   "expected_low": 1.0})
    for row in rows:  # make each forecast the outcome
        row["drop_5pct"] = (float(row["drop_5pct"][2]), row["drop_5pct"][1], row["drop_5pct"][2])
        row["quantiles"] = [row["end_ratio"]] * 3
    summary = outlook_scoring.summarize(rows)
    assert summary["drop_5pct"]["brier"] == 0 and summary["drop_5pct"]["skill"] == pytest.approx(1.0)
    assert summary["quantile_loss"]["model"] == 0 and summary["quantile_loss"]["skill"] == pytest.approx(1.0)
    assert outlook_scoring.summarize([])["drop_5pct"] == {"brier": None, "brier_climatology": None, "skill": None, "n": 0}


def random_walk(days: int, seed: int) -> list[Decimal]:
    generator, price, found = random.Random(seed), 500.0, []
    for _ in range(days):
        price *= math.exp(generator.gauss(0, 0.02)) if generator.random() < 0.3 else 1
        found.append(Decimal(f"{price:.2f}"))
    return found


def one_series(prices, market="retail_new") -> PriceSeries:
    days = [date(2023, 1, 1) + timedelta(days=i) for i in range(len(prices))]
    return PriceSeries("rtx-4090", market, None, days, list(prices), False, ["test"])


def test_no_look_ahead_the_outlook_on_a_day_ignores_every_later_price():
    prices = random_walk(300, seed=7)
    cut = 200
    changed = prices[:cut] + [price * Decimal("0.5") for price in prices[cut:]]
    before = outlook.outlooks(one_series(prices), every_day=True)
    after = outlook.outlooks(one_series(changed), every_day=True)
    assert [o.as_dict() for o in before[:cut - outlook.MIN_HISTORY_DAYS + 1]] == \
        [o.as_dict() for o in after[:cut - outlook.MIN_HISTORY_DAYS + 1]]
    # and the later days do see the change (the check can fail)
    assert before[-1].as_dict() != after[-1].as_dict()
    short = outlook.outlooks(one_series(prices[:cut]))
    assert short[0].as_dict() == before[cut - outlook.MIN_HISTORY_DAYS].as_dict()


def test_an_outlook_is_probabilities_and_ordered_prices_and_needs_enough_history():
    found = outlook.outlooks(one_series(random_walk(120, seed=3), market="on_demand"))
    (latest,) = found
    assert 0 <= latest.drop_10pct <= latest.drop_5pct <= 1
    assert 0 < latest.p10_usd <= latest.p50_usd <= latest.p90_usd
    assert latest.days_of_history == 120 and latest.as_of == date(2023, 1, 1) + timedelta(days=119)
    with pytest.raises(outlook.OutlookError, match=r"^rtx-4090 retail_new: 59 days of history, the outlook needs 60$"):
        outlook.outlooks(one_series(random_walk(59, seed=3)))
    with pytest.raises(outlook.OutlookError, match="no outlook model for a 11-day horizon"):
        outlook.outlooks(one_series(random_walk(120, seed=3)), horizon=11)


@pytest.fixture
def cli_series(monkeypatch):
    """`gpuprices` in-process on hand-made series instead of a warehouse: one long retail series, one short."""
    import contextlib

    import analytics.price_history
    from flows.cli import outlook as outlook_cli

    found = [one_series(random_walk(200, seed=11)),
             PriceSeries("rtx-4090", "retail_used", None, [date(2024, 1, 1) + timedelta(days=i) for i in range(12)],
                         random_walk(12, seed=1), False, ["test"])]

    def series(connection, source=None, gpu_id=None, market=None):
        return [one for one in found if market in (None, one.market)]

    monkeypatch.setattr(analytics.price_history, "series", series)
    monkeypatch.setattr(outlook_cli, "price_series", series)  # bound when flows.cli.outlook was imported

    def per_panel(connection, gpu_id=None, market=None):
        return series(connection, None, gpu_id, market)

    monkeypatch.setattr(outlook_cli, "outlook_series", per_panel)
    monkeypatch.setattr(outlook_cli.db, "connect", lambda read_only=False: contextlib.nullcontext(None))
    return found


def test_backtest_outlook_json_has_the_issue_shape(cli_series, capsys):
    import json

    from flows.cli.main import main

    assert main(["backtest", "--outlook", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    figures = {"brier", "brier_climatology", "skill", "n"}
    for part in (report["overall"], *report["series"]):
        assert set(part["drop_5pct"]) == set(part["drop_10pct"]) == figures
        assert set(part["interval_80"]) == {"coverage", "n"}
        assert set(part["quantile_loss"]) == {"model", "naive", "skill"}
    (row,) = report["series"]  # the 12-day series is skipped
    assert (row["source"], row["gpu_id"], row["market"]) == ("test", "rtx-4090", "retail_new")
    assert row["days"] == 200 - (outlook.MIN_HISTORY_DAYS - 1) - 30 == report["overall"]["drop_5pct"]["n"]
    assert report["skipped"] == [{"gpu_id": "rtx-4090", "market": "retail_used", "days": 12}]


def test_outlook_with_too_little_history_is_one_line(cli_series, capsys):
    from flows.cli.main import main

    assert main(["outlook", "--market", "retail_used"]) == 1
    error = capsys.readouterr().err
    assert error == "gpuprices outlook: rtx-4090 retail_used: 12 days of history, the outlook needs 60\n"
    assert main(["outlook", "--horizon", "11"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["outlook", "--market", "retail_new", "--json"]) == 0
    import json

    (latest,) = json.loads(capsys.readouterr().out)
    assert latest["as_of"] == "2023-07-19" and latest["horizon_days"] == 30


def test_the_scores_mart_holds_each_series_own_backtest_as_backtest_outlook_reports_it():
    """marts.gpu_price_outlook_scores (what the pages show) is each series' row of `gpuprices backtest --outlook`,
    every series with an outlook has a row (0 scored days while too short to score), and a new write replaces the
    horizon's rows: a series gone is gone."""
    import duckdb

    long_one, other = one_series(random_walk(260, seed=5)), one_series(random_walk(200, seed=9), market="on_demand")
    other.is_synthetic = True
    short = PriceSeries("h100-sxm5-80gb", "spot", None, [date(2024, 1, 1) + timedelta(days=i) for i in range(75)],
                        random_walk(75, seed=2), False, ["test"])
    too_short = PriceSeries("h100-sxm5-80gb", "on_demand", None, [date(2024, 1, 1) + timedelta(days=i)
                                                                  for i in range(40)], random_walk(40, seed=4),
                            False, ["test"])
    found = [long_one, other, short, too_short]
    report = outlook_scoring.backtest_report(found)
    with duckdb.connect() as connection:
        create_raw_schema(connection)  # the tables the series marts are written to, as the warehouse has them
        assert outlook_scoring.write_scores(connection, found) == 3  # the 40-day series has no outlook
        stored = {(r[0], r[1]): dict(zip([c[0] for c in connection.description], r, strict=True)) for r in
                  connection.execute(f"SELECT * FROM {outlook_scoring.SCORES_TABLE}").fetchall()}
        for row in report["series"]:
            mine = stored[(row["gpu_id"], row["market"])]
            assert mine["scored_days"] == row["days"] == row["drop_5pct"]["n"] > 0
            for name in ("drop_5pct", "drop_10pct"):
                for figure in ("brier", "brier_climatology", "skill"):
                    assert mine[f"{name}_{figure}"] == pytest.approx(row[name][figure]), (name, figure)
            assert mine["interval_80_coverage"] == pytest.approx(row["interval_80"]["coverage"])
            assert mine["quantile_skill"] == pytest.approx(row["quantile_loss"]["skill"])
        assert stored[("rtx-4090", "retail_new")]["scored_days"] == 260 - (outlook.MIN_HISTORY_DAYS - 1) - 30
        assert stored[("rtx-4090", "retail_new")]["as_of"] == long_one.days[-1]
        assert stored[("rtx-4090", "on_demand")]["is_synthetic"] is True
        assert stored[("rtx-4090", "retail_new")]["is_synthetic"] is False
        unscored = stored[("h100-sxm5-80gb", "spot")]  # 75 days: an outlook, no day with a known outcome yet
        assert unscored["scored_days"] == 0 and unscored["drop_5pct_skill"] is None
        assert unscored["first_scored_date"] is None and unscored["days_of_history"] == 75
        assert outlook_scoring.write_scores(connection, [long_one]) == 1
        assert connection.execute(f"SELECT gpu_id, market FROM {outlook_scoring.SCORES_TABLE}").fetchall() == [
            ("rtx-4090", "retail_new")]
