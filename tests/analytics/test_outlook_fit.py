"""The outlook's scikit-learn fit and what it shows (issue 40, parts 2 and 3): walk-forward features that never see
the future, ranges calibrated on out-of-sample errors, the base rate where a kind of market's model does no better,
and a flat rental list price's pooled cut rate with its days unchanged. Every series here is made up (synthetic)."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

import pytest

from analytics import outlook, outlook_features, outlook_fit
from analytics.price_history import PriceSeries

START = date(2024, 1, 1)


def synthetic_walk(seed: int, days: int = 220, volatility: float = 0.02) -> list[float]:
    """A made-up retail price: a random walk in log price, each series with its own volatility (half to twice)."""
    rng = random.Random(seed)
    price, found, own = 500.0, [], volatility * (0.5 + 1.5 * rng.random())
    for _ in range(days):
        price *= math.exp(rng.gauss(0, own))
        found.append(round(price, 2))
    return found


def frames_of(seeds, horizon=30, market="retail_new"):
    return [outlook_features.feature_frame(synthetic_walk(seed), horizon, market,
                                  [START + timedelta(days=i) for i in range(220)],
                                  {"release_date": date(2022, 1, 1), "successor_release_date": date(2024, 3, 1)})
            for seed in seeds]


@pytest.fixture(scope="module")
def synthetic_fit():
    frames = frames_of(range(8))
    rows = outlook.training_rows(frames)
    groups = [index for index, frame in enumerate(frames) for _ in range(outlook.training_rows([frame]).height)]
    fit = outlook_fit.fit_model(rows, groups, 30)
    fit["kinds"] = {"retail_new": {"uses_model": True, "skill_drop_5pct": 0.05}}
    fit["flat_list"] = {"windows": 400, "series": 7, "any_cut": 0.04, "drop_5pct": 0.03, "drop_10pct": 0.01}
    return fit


def test_walk_forward_never_sees_the_future(synthetic_fit):
    """Two series equal up to day 120 and different after it (one crashes, one soars): every feature and every
    outlook of days up to 120 is the same; the outcomes differ."""
    common = synthetic_walk(7, days=121)
    crash = common + [common[-1] * 0.5] * 99
    soar = common + [common[-1] * 2.0] * 99
    dated = [START + timedelta(days=i) for i in range(220)]
    first, second = (outlook_features.feature_frame(prices, 30, "retail_new", dated) for prices in (crash, soar))
    features = list(outlook_fit.FEATURES) + ["past_windows", "past_drop_5pct", "past_drop_10pct"]
    assert first.filter(first["t"] <= 120).select(features).equals(second.filter(second["t"] <= 120).select(features))
    early = list(range(59, 121))
    assert (outlook.predict_frame(first, synthetic_fit, early, 30)
            == outlook.predict_frame(second, synthetic_fit, early, 30))
    assert first["low_ratio"][100] != second["low_ratio"][100]  # the outcome windows did see the future


def test_the_range_is_calibrated_on_out_of_sample_errors_and_holds_about_80_percent_on_new_series(synthetic_fit):
    assert synthetic_fit["range_errors"] == "out of sample"
    held_out = frames_of(range(100, 130))
    inside = total = 0
    for frame in held_out:
        for row in outlook.predict_frame(frame, synthetic_fit, None, 30):
            end = frame["end_ratio"][row["t"]]
            if end is not None:
                total += 1
                inside += row["p10"] * (1 - 1e-9) <= end <= row["p90"] * (1 + 1e-9)
    assert total > 3000 and 0.74 <= inside / total <= 0.86


def test_a_kind_whose_model_does_no_better_shows_its_base_rate(synthetic_fit):
    frame = frames_of([3])[0]
    model_rows = outlook.predict_frame(frame, synthetic_fit, [150], 30)
    fallback = {**synthetic_fit, "kinds": {"retail_new": {"uses_model": False, "skill_drop_5pct": 0.013}}}
    base_rows = outlook.predict_frame(frame, fallback, [150], 30)
    assert model_rows[0]["basis"] == "model" and base_rows[0]["basis"] == "base_rate"
    assert "0.013" in base_rows[0]["note"] and "does no better" in base_rows[0]["note"]
    one = frame.filter(frame["t"] == 150)
    pooled = synthetic_fit["pooled_rate_by_kind"]["retail_new"]["drop_5pct"]
    expected = (one["past_drop_5pct"][0] + outlook_fit.SHRINK_WINDOWS * pooled) / (
        one["past_windows"][0] + outlook_fit.SHRINK_WINDOWS)
    assert base_rows[0]["drop_5pct"] == pytest.approx(expected)
    assert base_rows[0]["drop_5pct"] != pytest.approx(model_rows[0]["drop_5pct"])
    # a kind never scored out of sample (no real history of it) is not trusted either
    untested = outlook.predict_frame(frames_of([3], market="retail_used")[0], synthetic_fit, [150], 30)
    assert untested[0]["basis"] == "base_rate" and "untested" in untested[0]["note"]


def test_a_flat_rental_list_price_gets_the_pooled_cut_rate_with_its_days_unchanged(synthetic_fit):
    prices = [2.5] * 40 + [2.2] * 100  # a list cut on day 40, then 99 days without a change
    found = PriceSeries("h100-sxm5-80gb", "on_demand", None, [START + timedelta(days=i) for i in range(140)],
                        prices, True, ["synthetic-list"], provider="synthetic-cloud")
    [one] = outlook.outlooks(found, 30, model={"horizons": {"30": synthetic_fit}})
    assert (one.basis, one.kind, one.provider, one.days_unchanged) == ("list_cut_rate", "rental_list",
                                                                       "synthetic-cloud", 99)
    assert one.drop_5pct == pytest.approx(0.03) and one.drop_10pct == pytest.approx(0.01)
    assert "no change seen in 99 days" in one.note and "4.0%" in one.note and "7 provider x GPU" in one.note
    # a list price that moved within FLAT_LIST_DAYS is not flat: the kind's basis applies
    moved = PriceSeries("h100-sxm5-80gb", "on_demand", None, found.days, [2.5] * 120 + [2.2] * 20, True,
                        ["synthetic-list"], provider="synthetic-cloud")
    [recent] = outlook.outlooks(moved, 30, model={"horizons": {"30": synthetic_fit}})
    assert recent.days_unchanged == 19 and recent.basis == "base_rate"


def test_kinds_of_market():
    assert [outlook_features.kind_of(m) for m in ("retail_new", "retail_used", "on_demand", "reserved_3y", "spot",
                                                  "marketplace_spot")] == [
        "retail_new", "retail_used", "rental_list", "rental_list", "spot", "marketplace"]
    assert outlook_features.days_unchanged([1, 2, 2, 2]) == 2 and outlook_features.days_unchanged([1, 2]) == 0


def test_the_gpu_context_counts_only_what_was_known_by_the_day():
    days = [date(2023, 12, 31), date(2024, 1, 1), date(2025, 1, 1)]
    columns = outlook_features.context_columns(days, [1.0, 1.0, 2.0], {
        "release_date": date(2023, 1, 1), "successor_release_date": date(2024, 1, 1)}, [None, 0.5, 4.0])
    assert columns["successor_age"][0] == 0 and columns["successor_age"][1] == 0  # launched that day: 0 years
    assert columns["successor_age"][2] == pytest.approx(math.log1p(366 / 365.25))
    assert columns["from_panel_median"] == pytest.approx([0.0, math.log(2.0), math.log(0.5)])
    assert columns["log_days_unchanged"] == pytest.approx([0.0, math.log(2), 0.0])


def test_rental_outlook_series_are_each_providers_own_with_the_panel_median_and_no_suspect_price():
    import duckdb

    from analytics.price_history import outlook_series

    with duckdb.connect() as connection:
        connection.execute("CREATE SCHEMA intermediate; CREATE SCHEMA marts")
        connection.execute("""CREATE TABLE intermediate.int_provider_prices__daily (price_date DATE, gpu_id VARCHAR,
            channel VARCHAR, market VARCHAR, price_per VARCHAR, provider VARCHAR, source VARCHAR,
            price_usd DECIMAL(18, 6), others_median_usd DECIMAL(18, 6), is_suspect BOOLEAN,
            is_carried_forward BOOLEAN, is_synthetic BOOLEAN)""")
        rows = []
        for day in range(70):
            when = START + timedelta(days=day)
            rows += [(when, "h100-sxm5-80gb", "cloud", "on_demand", "gpu_hour", "synthetic-a", "a", 3.0, 2.0, False,
                      False, True),
                     (when, "h100-sxm5-80gb", "cloud", "on_demand", "gpu_hour", "synthetic-b", "b",
                      1.0 if day != 30 else 0.01, 3.0, day == 30, day == 31, True)]
        connection.executemany("INSERT INTO intermediate.int_provider_prices__daily VALUES "
                               "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        # the mart as models/models/marts/gpu_provider_prices_daily.sql makes it: suspect prices left out
        connection.execute("""CREATE VIEW marts.gpu_provider_prices_daily AS
            SELECT price_date, gpu_id, channel, market, price_per, provider, source, price_usd, others_median_usd,
                   false AS is_imported, is_synthetic, is_carried_forward
            FROM intermediate.int_provider_prices__daily WHERE NOT is_suspect""")
        connection.execute("""CREATE TABLE marts.gpus AS SELECT 'h100-sxm5-80gb' AS gpu_id, 'NVIDIA' AS vendor,
            DATE '2022-09-20' AS release_date, 80.0 AS memory_gib, 66.9 AS fp32_tflops, 989.4 AS bf16_dense_tflops
            UNION ALL SELECT 'h200-sxm-141gb', 'NVIDIA', DATE '2024-11-18', 141.0, 66.9, 989.5
            UNION ALL SELECT 'b200-180gb', 'NVIDIA', DATE '2024-12-01', 180.0, 80.0, 2250.0""")
        found = outlook_series(connection, market="on_demand")
    assert [(one.provider, one.market) for one in found] == [("synthetic-a", "on_demand"), ("synthetic-b", "on_demand")]
    first, second = found
    assert first.panel_medians[0] == 2.0 and len(first.days) == 70
    assert 0.01 not in [float(price) for price in second.prices]  # the suspect price is no observation
    assert second.observed[30] is False and second.observed[31] is False  # nor is a carried-forward one
    # its successor: the B200 (2.3x its BF16, though barely more FP32), not the H200 (the same compute)
    assert first.context == {"release_date": date(2022, 9, 20), "successor_release_date": date(2024, 12, 1)}
    [one] = outlook.outlooks(first, 30)  # the stored model: a flat list price, the pooled list-price cut rate
    assert (one.provider, one.basis, one.days_unchanged) == ("synthetic-a", "list_cut_rate", 69)


def test_the_stored_model_uses_its_fit_only_where_its_own_out_of_sample_skill_reaches_the_threshold():
    for horizon, fit in outlook.load_model()["horizons"].items():
        assert fit["range_errors"] == "out of sample"
        for kind, figures in fit["kinds"].items():
            skill = figures["skill_drop_5pct"]
            scored = [figures[split]["drop_5pct"]["skill"] for split in ("leave_one_out", "later") if figures[split]]
            assert skill == (min(scored) if len(scored) == 2 and None not in scored else None), (horizon, kind)
            assert figures["uses_model"] == (skill is not None and skill >= outlook.MIN_SKILL), (horizon, kind)
