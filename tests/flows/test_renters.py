"""Renters on the README's offline warehouse: `gpuprices estimate --term 1y|3y` prices a run at the day's cheapest
credible commitment, and the renter marts (spot_discount_daily, commitment_outcomes) hold the real GCP list-price
history the offline run imports. The marts' formulas are the dbt unit tests of models/models/marts/*.yml."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import gpuprices, sql_rows

pytestmark = pytest.mark.slow  # an offline run



def estimate_json(home: Path, *args: str):
    return json.loads(gpuprices(home, "estimate", *args, "--json").stdout)


def committed_price(home: Path, gpu_id: str, market: str, price_date: str) -> dict:
    return sql_rows(home, f"select credible_min_price_usd, credible_min_provider from marts.gpu_market_prices_daily "
                          f"where gpu_id = '{gpu_id}' and market = '{market}' and price_per = 'gpu_hour' "
                          f"and price_date = '{price_date}'")[0]


def test_estimate_term_prices_a_training_run_at_the_cheapest_commitment(warehouse):
    plain = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "h100-sxm5-80gb")
    assert plain["term"] is None and plain["cost_usd_committed"] is None and plain["commitment_usd"] is None
    prices = {}
    for term, market, days in (("1y", "reserved_1y", 365), ("3y", "reserved_3y", 1095)):
        row = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "h100-sxm5-80gb", "--term", term)
        mart = committed_price(warehouse, "h100-sxm5-80gb", market, row["price_date"])
        price = prices[term] = float(mart["credible_min_price_usd"])
        assert row["term"] == term and row["term_days"] == days
        assert float(row["committed_cheapest_usd_per_gpu_hour"]) == price
        assert row["committed_cheapest_provider"] == mart["credible_min_provider"]
        # the run and its on-demand cost do not change; the committed figures come beside them
        assert row["gpu_hours"] == plain["gpu_hours"] and row["cost_usd_cheapest"] == plain["cost_usd_cheapest"]
        assert row["cost_usd_committed"] == pytest.approx(row["gpu_hours"] * price, rel=1e-12)
        terms = math.ceil(row["wall_clock_days"] / days)  # the cluster commits for as many terms as the run lasts
        committed_hours = row["cluster_gpus"] * 24 * days * terms
        assert row["commitment_usd"] == pytest.approx(committed_hours * price, rel=1e-12)
        assert row["commitment_utilisation"] == pytest.approx(row["gpu_hours"] / committed_hours, rel=1e-12)
        assert row["break_even_utilisation"] == pytest.approx(
            price / float(row["on_demand_cheapest_usd_per_gpu_hour"]), rel=1e-12)
    assert prices["3y"] < prices["1y"]  # a longer commitment is cheaper by the hour

    text = gpuprices(warehouse, "estimate", "--model", "llama-2-7b", "--term", "1y").stdout
    assert "cheapest 1y commitment" in text and "cost 1y" in text and "commit 1y" in text and "break-even" in text
    assert "1y: no commitment price" in text  # a GPU no cloud commits to is listed, not dropped


def test_estimate_term_prices_serving_at_the_cheapest_commitment(warehouse):
    row = estimate_json(warehouse, "--model", "llama-3.1-8b", "--gpu", "h100-sxm5-80gb", "--inference", "--term", "3y")
    mart = committed_price(warehouse, "h100-sxm5-80gb", "reserved_3y", row["price_date"])
    price = float(mart["credible_min_price_usd"])
    per_second = row["output_tokens_per_second"]
    assert row["usd_per_million_output_tokens_committed"] == pytest.approx(
        price * row["min_gpus"] / (per_second * 3600) * 1e6, rel=1e-9)
    assert row["usd_per_million_output_tokens_cheapest"] == pytest.approx(
        float(row["on_demand_cheapest_usd_per_gpu_hour"]) * row["min_gpus"] / (per_second * 3600) * 1e6, rel=1e-9)


def test_a_term_the_estimator_does_not_know_is_one_usage_line(warehouse):
    result = gpuprices(warehouse, "estimate", "--model", "llama-2-7b", "--term", "2y", check=False)
    assert result.returncode == 2 and "invalid choice: '2y'" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) <= 2


def test_the_real_gcp_history_gives_commitment_outcomes_and_spot_discounts(warehouse):
    # the GCP list prices 2022-2025: an A100 40GB committed for a year at 2.194717 against 3.483719 on demand
    a100 = sql_rows(warehouse, "select * from marts.commitment_outcomes where provider = 'gcp' "
                               "and gpu_id = 'a100-sxm4-40gb' and term = '1y' and commit_date = '2022-02-09'")[0]
    assert a100["is_term_complete"] and a100["observed_days"] == 365 and not a100["is_synthetic"]
    assert a100["break_even_utilisation"] == pytest.approx(2.194717 / 3.483719, rel=1e-6)
    assert a100["spot_days"] == 0  # GCP's spot list prices start in 2023
    # a term that outruns the history is compared over its covered days only, and says so
    cut = sql_rows(warehouse, "select * from marts.commitment_outcomes where provider = 'gcp' and term = '3y' "
                              "and gpu_id = 'h100-sxm5-80gb' order by commit_date limit 1")[0]
    assert not cut["is_term_complete"] and 0 < cut["observed_days"] < 1095
    spot = sql_rows(warehouse, "select * from marts.spot_discount_daily where provider = 'gcp' "
                               "and gpu_id = 'h100-sxm5-80gb' and price_date < '2026-01-01'")
    assert spot and all(0 < r["spot_discount"] < 1 and 1 <= r["week_days"] <= 7 for r in spot)
    assert any(r["week_days_above_risk_share"] > 0 for r in spot)  # 2024: H100 spot above half of on-demand
