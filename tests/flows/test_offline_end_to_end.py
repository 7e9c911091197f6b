"""The README's offline run, through the real CLI in a subprocess, on a fresh data home: recorded responses
served on 127.0.0.1 to the real fetch code, then load, dbt build (with its data and unit tests), export."""

from __future__ import annotations

import json
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from conftest import (
    ROOT,  # noqa: E402
    SINCE,
    gpuprices,
    row_counts,
    sql_rows,
)

from dashboards import data as dashboard_data

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it


def test_mart_has_real_prices_per_gpu_hour_from_both_sources(warehouse):
    result = gpuprices(warehouse, "sql", "--json",
                       "select * from marts.gpu_prices_by_source_daily where price_per = 'gpu_hour'")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    sources = {r["source"] for r in rows}
    assert {"azure", "skypilot-azure", "skypilot-gcp", "skypilot-lambda", "skypilot-vast"} <= sources
    replayed = {r["price_date"] for r in rows if r["source"] != "gcp-list-history"}  # the imported GCP history: years
    assert replayed == {"2026-04-28", "2026-04-29", "2026-04-30", "2026-05-01"}
    # rows from the reconstructed Azure API pages are flagged; rows from real catalogs are not
    assert all(r["is_synthetic"] for r in rows if r["source"] == "azure")
    dated = ("skypilot-azure", "skypilot-gcp", "skypilot-lambda", "skypilot-vast")  # anycloud-sh commits, dated
    assert not any(r["is_synthetic"] for r in rows if r["source"] in dated)
    # the v8 catalogs are real but undated (stale captures): flagged, and found through the schema discovery
    assert {r["is_synthetic"] for r in rows if r["source"] in ("skypilot-shadeform", "skypilot-nebius")} == {True}
    # the Lambda catalog lists one price for every region: e.g. gpu_8x_h100_sxm5 on 2026-04-20 at 8 GPUs
    lambda_h100 = [r for r in rows if r["source"] == "skypilot-lambda" and r["gpu_id"] == "h100-sxm5-80gb"]
    assert lambda_h100 and all(float(r["min_price_per_gpu_hour_usd"]) > 1 for r in lambda_h100)
    # a reserved or hourly price read wrong would be off by 100x+; every figure sits in a sane band
    assert all(0.02 <= float(r["min_price_per_gpu_hour_usd"]) <= 40 for r in rows)


def test_the_run_report_times_every_stage_and_every_source(warehouse):
    report = json.loads(sorted((warehouse / "reports").glob("run-*.json"))[0].read_text())
    assert {"collect", "build", "export", "dashboard", "snapshot"} <= set(report["stage_seconds"])
    assert set(report["source_stage_seconds"]) == {"fetch", "repeat", "parse", "normalize", "check", "load"}
    loaded = [s for s in report["sources"] if s["status"] == "loaded"]
    # a source served the same bytes as on its previous day takes that day's parse, normalization and check (repeat)
    parsed = {"fetch", "repeat", "parse", "normalize", "check", "load"}
    assert loaded and all(set(s["stage_seconds"]) in (parsed, {"fetch", "repeat", "load"}) for s in loaded)
    assert {"parse", "repeat"} <= {stage for s in loaded for stage in s["stage_seconds"]}
    assert any("parse" not in s["stage_seconds"] for s in loaded)
    # each source's stages fit inside the run's collect stage (sources overlap, so their sum may not)
    assert all(sum(s["stage_seconds"].values()) <= report["stage_seconds"]["collect"] for s in loaded)


def test_running_it_again_changes_no_row_count(own_warehouse):
    before = row_counts(own_warehouse)
    result = gpuprices(own_warehouse, "run", "--offline", "--since", SINCE)
    assert "already_loaded" in result.stdout
    assert row_counts(own_warehouse) == before


def test_status_reports_freshness_quarantine_and_unmatched_names(warehouse):
    report = json.loads(gpuprices(warehouse, "status", "--json").stdout)
    by_source = {s["source"]: s for s in report["sources"]}
    assert by_source["skypilot-gcp"]["last_status"] == "loaded"
    assert by_source["azure"]["has_synthetic_rows"] is True
    # every GPU name of the offline run resolves: to a variant, or to one whose form factor the offer does not say
    assert report["unmatched_gpu_names"] == []
    assert by_source["keepa-amazon"]["state"].startswith("imported history")
    text = gpuprices(warehouse, "status").stdout
    assert "Unmatched GPU names" in text and "keepa-amazon" in text


def test_parquet_export_is_partitioned_by_date_and_readable(warehouse):
    export = warehouse / "export" / "gpu_prices_daily"
    partitions = sorted(p.name for p in export.iterdir())
    first_day = sql_rows(warehouse, "select min(price_date) as day from marts.gpu_prices_daily")[0]["day"]
    # the imported idealo history starts in 2017; the replayed days from SINCE
    assert partitions[0] == f"price_date={first_day}" and f"price_date={SINCE}" in partitions
    with duckdb.connect() as connection:
        exported = connection.execute(
            f"SELECT count(*) FROM read_parquet('{export}/*/*.parquet', hive_partitioning = true)"
        ).fetchone()[0]
    assert exported == row_counts(warehouse)["marts.gpu_prices_daily"]


def test_parse_command_prints_normalized_offers(warehouse):
    result = gpuprices(warehouse, "parse", "skypilot-vast", str(ROOT / "recordings/skypilot/vast_2026-04-29.csv"))
    offers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(offers) == 64
    for field in ("source", "gpu_id", "gpu_count", "pricing_type", "price", "currency", "price_per_unit",
                  "region", "in_stock", "condition", "title"):
        assert field in offers[0]


def test_generated_docs_match_the_real_warehouse_and_the_code(warehouse):
    """Every generated block (warehouse/store/docs.py GENERATED_BLOCKS), those from the warehouse included (docs/schema.md,
    the README's offline counts), is what `gpuprices docs` would write from this offline warehouse."""
    result = gpuprices(warehouse, "docs", "--check", "--warehouse", check=False)
    assert result.returncode == 0 and result.stdout == "", \
        f"generated docs drifted ({result.stdout.strip()}{result.stderr.strip()}): run `gpuprices docs --warehouse` " \
        "on the offline run's home"


# -- analytics marts and the estimator, on the same warehouse ----------------------------------------------------------

def estimate_json(home: Path, *args: str):
    return json.loads(gpuprices(home, "estimate", *args, "--json").stdout)


def test_every_analytics_mart_is_built_and_exported_by_date(warehouse):
    counts = row_counts(warehouse)
    for mart in ("gpu_prices_daily", "price_performance_daily", "training_cost_daily", "inference_cost_daily",
                 "rent_vs_buy_daily", "buy_signals_daily"):
        assert counts[f"marts.{mart}"] > 0, mart
        partitions = sorted(p.name for p in (warehouse / "export" / mart).iterdir())
        assert partitions[-1] == "price_date=2026-05-01", mart


# Each price mart's is_synthetic against the made-up inputs behind it: a row is flagged exactly when one of them is.
SYNTHETIC_INPUTS = {
    "gpu_prices_daily": """
        select m.is_synthetic, bool_or(o.is_synthetic) as expected from marts.gpu_prices_daily m
        join intermediate.int_offers__credible_daily o using (price_date, gpu_id, channel, market, price_per)
        group by all""",
    "gpu_prices_by_source_daily": """
        select m.is_synthetic, bool_or(o.is_synthetic) as expected from marts.gpu_prices_by_source_daily m
        join intermediate.int_offers__daily o using (price_date, gpu_id, channel, provider, source, pricing_type,
                                                     includes_host_vm)
        where o.price_per_gpu_hour_usd is not null group by all""",
    "price_performance_daily": """
        select m.is_synthetic, p.is_synthetic as expected from marts.price_performance_daily m
        join marts.gpu_prices_daily p using (price_date, gpu_id, channel, market, price_per)""",
    "buy_signals_daily": """
        select m.is_synthetic, p.is_synthetic as expected from marts.buy_signals_daily m
        join marts.gpu_prices_daily p using (price_date, gpu_id, channel, market, price_per)""",
    "training_cost_daily": """
        select m.is_synthetic, coalesce(c.is_synthetic, false) or coalesce(b.is_synthetic, false) as expected
        from marts.training_cost_daily m  -- priced at the clouds renting the plan's cluster: its size tier
        asof left join marts.gpu_cluster_prices_daily c
            on c.price_date = m.price_date and c.gpu_id = m.gpu_id and m.cluster_gpus <= c.up_to_gpus
        left join intermediate.int_gpu_prices__purchase_daily b
            on b.price_date = m.price_date and b.gpu_id = m.gpu_id""",
    "inference_cost_daily": """
        select m.is_synthetic, r.is_synthetic as expected from marts.inference_cost_daily m
        join intermediate.int_gpu_prices__rental_daily r using (price_date, gpu_id)""",
    "inference_api_prices_daily": """
        select m.is_synthetic, p.is_synthetic as expected from marts.inference_api_prices_daily m
        join staging.stg_raw__api_token_prices p using (source, provider, model_slug, observed_at)""",
    # what a renter can get: each row made up when an offer behind it is
    "gpu_availability_daily": """
        select m.is_synthetic, bool_or(o.is_synthetic) as expected from marts.gpu_availability_daily m
        join intermediate.int_offers__market_daily o using (price_date, gpu_id, channel, market, provider)
        where o.price_per = 'gpu_hour' and m.headline_gap is not distinct from o.headline_gap
        group by m.price_date, m.gpu_id, m.channel, m.market, m.provider, m.headline_gap, m.is_synthetic""",
    "rent_vs_buy_daily": """
        select m.is_synthetic, r.is_synthetic or b.is_synthetic as expected from marts.rent_vs_buy_daily m
        join intermediate.int_gpu_prices__rental_daily r using (price_date, gpu_id)
        join intermediate.int_gpu_prices__purchase_daily b using (price_date, gpu_id)""",
}


def test_every_price_mart_flags_exactly_the_rows_built_on_made_up_inputs(warehouse):
    priced_marts = {row["table_name"] for row in sql_rows(warehouse, """
        select distinct table_name from information_schema.columns
        where table_schema = 'marts' and (column_name like '%usd%' or column_name like '%price%')""")}
    flagged = {row["table_name"] for row in sql_rows(warehouse, """
        select table_name from information_schema.columns where table_schema = 'marts' and column_name = 'is_synthetic'""")}
    assert priced_marts - {"gpus"} <= flagged, priced_marts - flagged  # gpus: the spec table's launch prices only
    assert set(SYNTHETIC_INPUTS) <= flagged
    for mart, query in SYNTHETIC_INPUTS.items():
        rows = sql_rows(warehouse, f"select count(*) as n, count(*) filter (where is_synthetic) as synthetic, "
                                   f"count(*) filter (where is_synthetic is distinct from expected) as wrong from ({query})")
        assert rows[0]["n"] > 0 and rows[0]["synthetic"] > 0 and rows[0]["wrong"] == 0, (mart, rows[0])


def test_observed_prices_stay_exact_decimals_up_to_the_marts(warehouse):
    types = {(row["t"], row["column_name"]): row["data_type"] for row in sql_rows(warehouse, """
        select table_schema || '.' || table_name as t, column_name, data_type from information_schema.columns
        where table_schema in ('intermediate', 'marts')""")}
    observed = [("intermediate.int_offers__daily", "price_usd"), ("intermediate.int_offers__daily", "price_per_gpu_hour_usd"),
                ("intermediate.int_offers__market_daily", "unit_price_usd"),
                ("marts.gpu_prices_daily", "min_price_usd"), ("marts.gpu_prices_daily", "p25_price_usd"),
                ("marts.gpu_prices_daily", "median_price_usd"),
                ("marts.gpu_prices_daily", "median_offer_price_usd"),
                ("marts.gpu_prices_by_source_daily", "median_offer_price_per_gpu_hour_usd"),
                ("marts.buy_signals_daily", "price_usd"), ("marts.buy_signals_daily", "trailing_30d_median_usd"),
                ("marts.rent_vs_buy_daily", "purchase_price_usd"), ("marts.training_cost_daily", "purchase_price_usd"),
                ("marts.inference_api_prices_daily", "usd_per_million_output_tokens"),
                ("marts.inference_cost_daily", "api_cheapest_usd_per_million_output_tokens")]
    inexact = {column: types[column] for column in observed if not types[column].startswith("DECIMAL")}
    assert not inexact, inexact
    # and the median of an even number of offers is the exact midpoint
    rows = sql_rows(warehouse, """
        select m.median_offer_price_usd, (select median(unit_price_usd) from intermediate.int_offers__credible_daily o
            where o.price_date = m.price_date and o.gpu_id = m.gpu_id and o.channel = m.channel
              and o.market = m.market and o.price_per = m.price_per)::varchar as exact
        from marts.gpu_prices_daily m where offer_count % 2 = 0 limit 20""")
    assert rows and all(abs(Decimal(r["exact"]) - Decimal(str(r["median_offer_price_usd"]))) <= Decimal("0.0000005")
                        for r in rows)


def test_the_estimate_says_synthetic_exactly_when_the_training_mart_does(warehouse):
    ranked = estimate_json(warehouse, "--model", "llama-3.1-70b")
    mart = {row["gpu_id"]: row["is_synthetic"] for row in sql_rows(warehouse, """
        select gpu_id, is_synthetic from marts.training_cost_daily
        where model_id = 'llama-3.1-70b' and training_precision = 'bf16' and not full_recomputation
          and price_date = (select max(price_date) from marts.training_cost_daily)""")}
    priced = [row for row in ranked if row["gpu_id"] in mart]
    assert len(priced) >= 10
    assert {row["gpu_id"]: row["is_synthetic"] for row in priced} == mart
    # a made-up price of either input makes the estimate synthetic, and the text says which inputs were made up
    # (the offline run has no GPU left with a made-up purchase price beside only real rental rows)
    for row in priced:
        assert row["is_synthetic"] == bool(row["rental_is_synthetic"] or row["purchase_is_synthetic"])
    # (made-up retail pages head no answer: a purchase price may be real while the rentals are made up)
    mixed = next((row for row in priced if row["purchase_is_synthetic"]), None) \
        or next(row for row in priced if row["rental_is_synthetic"])
    text = gpuprices(warehouse, "estimate", "--model", "llama-3.1-70b", "--gpu", mixed["gpu_id"]).stdout
    said = ", ".join(part for part, made_up in (("rental prices", mixed["rental_is_synthetic"]),
                                                ("purchase price", mixed["purchase_is_synthetic"])) if made_up)
    assert f"(synthetic: {said})" in text


def test_at_least_twelve_providers_and_every_pricing_type_in_the_loaded_offers(warehouse):
    # what the parsers really produced from the recordings, not what the source classes declare
    rows = sql_rows(warehouse, """
        select provider, list(distinct pricing_type) as pricing_types from raw.offers
        where channel = 'cloud' and price > 0 group by provider""")
    assert len(rows) >= 12, [r["provider"] for r in rows]
    covered = {pricing_type for row in rows for pricing_type in row["pricing_types"]}
    assert {"on_demand", "spot", "reserved_1y", "reserved_3y"} <= covered, covered


def test_the_price_index_starts_at_100_and_drives_the_weekly_moves(warehouse):
    first_days = sql_rows(warehouse, """
        select price_index from marts.gpu_price_index_daily
        qualify row_number() over (partition by gpu_id, channel, market, price_per order by price_date) = 1""")
    assert first_days and all(row["price_index"] == pytest.approx(100) for row in first_days)
    # the index moves only on days with matched offers
    held = sql_rows(warehouse, """
        select count(*) as n from (
            select price_index, lag(price_index) over (partition by gpu_id, channel, market, price_per
                                                       order by price_date) as previous, matched_provider_count
            from marts.gpu_price_index_daily)
        where matched_provider_count = 0 and previous is not null and abs(price_index - previous) > 1e-9""")
    assert held[0]["n"] == 0
    data = dashboard_data.load(warehouse / "gpuprices.duckdb")
    index = {(r["gpu_id"], r["channel"], r["market"]): r["price_index"] for r in sql_rows(warehouse, """
        select * from marts.gpu_price_index_daily where price_date = '2026-05-01'""")}
    assert data.moves, "the replayed week has index moves"
    for move in data.moves:
        assert move["price_index"] == pytest.approx(index[(move["gpu_id"], move["channel"], move["market"])])
        assert move["change"] == pytest.approx(move["price_index"] / move["week_ago_index"] - 1)
    # Jevons over providers: each day's index move is the geometric mean of that day's provider relatives
    jevons = sql_rows(warehouse, """
        with days as (
            select gpu_id, channel, market, price_per, price_date, price_index, matched_provider_count,
                   lag(price_index) over (partition by gpu_id, channel, market, price_per order by price_date)
                       as previous_index
            from marts.gpu_price_index_daily),
        relatives as (
            select gpu_id, channel, market, price_per, price_date, exp(avg(log_relative)) as geometric_mean,
                   count(*) as providers
            from marts.gpu_price_relatives_daily group by all)
        select count(*) as n, count(*) filter (where abs(days.price_index / days.previous_index
                                                         - relatives.geometric_mean) > 1e-9
                                               or days.matched_provider_count <> relatives.providers) as wrong
        from days join relatives using (gpu_id, channel, market, price_per, price_date)""")[0]
    assert jevons["n"] > 0 and jevons["wrong"] == 0, jevons
    # and the GPU pages list each mover with the product of its relatives
    moves = [(page.gpu_id, move) for page in data.gpus for move in page.provider_moves]
    for gpu_id, move in moves:
        product = sql_rows(warehouse, f"""
            select exp(sum(log_relative)) - 1 as change from marts.gpu_price_relatives_daily
            where gpu_id = '{gpu_id}' and channel = '{move["channel"]}' and market = '{move["market"]}'
              and provider = '{move["provider"]}' and price_date > date '{move["last_date"]}' - interval 30 day""")
        assert move["change"] == pytest.approx(product[0]["change"]) and move["change"] != 0


def test_what_each_shop_charged_for_a_card_is_one_query_on_a_mart(warehouse):
    rows = sql_rows(warehouse, """
        select price_date, provider, condition, currency, min_price, min_price_usd from marts.gpu_prices_by_source_daily
        where gpu_id = 'rtx-4090-24gb' and price_per = 'card' order by price_date, provider""")
    shops = {row["provider"] for row in rows}
    assert len(shops) >= 3 and {row["price_date"] for row in rows} >= {"2026-04-30", "2026-05-01"}, shops
    assert all(row["min_price_usd"] is not None and row["currency"] for row in rows)
    jd = [row for row in rows if row["provider"] == "jd"]
    assert jd and all(row["currency"] == "CNY" and float(row["min_price"]) > float(row["min_price_usd"]) for row in jd)


def test_a_provider_seen_by_two_sources_counts_once(warehouse):
    # skypilot-lambda (real catalog) and lambda (rebuilt from it, synthetic) both list Lambda: the market mart keeps one
    # (lambda-clusters, Lambda's cluster reservations, lists what neither does)
    rows = sql_rows(warehouse, "select sources, provider_count from marts.gpu_prices_daily "
                               "where sources like '%lambda%'")
    listed = [set(r["sources"].split(",")) for r in rows]
    assert listed and all("lambda" not in sources for sources in listed)
    assert all(sources & {"skypilot-lambda", "lambda-clusters"} for sources in listed)


def test_price_performance_uses_dense_never_sparse_figures(warehouse):
    rows = sql_rows(warehouse, """
        select p.bf16_dense_tflops_per_usd * p.min_price_usd as tflops, s.fp16_bf16_tensor_dense_tflops as dense,
               s.fp16_bf16_tensor_sparse_tflops as sparse
        from marts.price_performance_daily p join reference.gpu_specs s using (gpu_id)
        where s.fp16_bf16_tensor_sparse_tflops is not null""")
    assert rows
    for row in rows:
        assert abs(float(row["tflops"]) - float(row["dense"])) < 1e-6 * float(row["dense"])
        assert float(row["tflops"]) < float(row["sparse"])


def test_estimate_for_a_reference_model_matches_the_training_cost_mart(warehouse):
    result = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "A100 80GB")
    mart = sql_rows(warehouse, "select * from marts.training_cost_daily where model_id = 'llama-2-7b' "
                               "and gpu_id = 'a100-sxm4-80gb' and training_precision = 'bf16' "
                               "and price_date = '2026-05-01'")[0]
    assert result["gpu_id"] == "a100-sxm4-80gb"
    assert result["gpu_hours"] == pytest.approx(float(mart["gpu_hours"]), rel=1e-12)
    assert result["min_gpus"] == mart["min_gpus"] and result["cluster_gpus"] == mart["cluster_gpus"]
    assert result["cost_usd_cheapest"] == pytest.approx(float(mart["cost_usd_on_demand_cheapest"]), abs=0.01)
    assert result["wall_clock_days"] == pytest.approx(float(mart["wall_clock_days"]), rel=1e-12)


def test_one_training_and_one_serving_estimate_match_a_hand_computed_figure(warehouse):
    # Figures worked out from the published model and GPU numbers with the documented default assumptions
    # (models/dbt_project.yml vars), not through the formulas the estimator and the marts share.
    # Re-derived for the efficiency model (issue 17): attention FLOPs, the A100 family share x the width factor;
    # serving with prefill, the largest batch whose KV cache fits, and input and output prices.
    train = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")
    flops = (6 * 7e9 + 12 * 32 * 4096 * 4096) * 2000e9  # (6 x params + attention 12 x layers x d x 4096) x 2T tokens
    flop_per_byte = 312e12 / 2039e9                     # A100 SXM4 80GB: 312 dense BF16 TFLOPS over 2039 GB/s
    efficiency = 0.46 * 4096 / (4096 + 3 * flop_per_byte)  # A100 share of peak x the width factor (d = 4096)
    assert efficiency == pytest.approx(0.41364, rel=1e-4)
    gpu_hours = flops / (312e12 * efficiency * 3600)
    assert gpu_hours == pytest.approx(208_532.7, rel=1e-6)
    assert train["flops"] == pytest.approx(flops, rel=1e-12) and train["efficiency_basis"] == "measured"
    assert train["mfu"] == pytest.approx(efficiency, rel=1e-12)
    assert train["gpu_hours"] == pytest.approx(gpu_hours, rel=1e-12)
    assert train["wall_clock_days"] == pytest.approx(gpu_hours / 1024 / 24, rel=1e-9)  # the 1,024-GPU cluster
    price = float(train["on_demand_cheapest_usd_per_gpu_hour"])
    assert train["cost_usd_cheapest"] == pytest.approx(gpu_hours * price, rel=1e-9)

    serve = estimate_json(warehouse, "--model", "llama-3.1-8b", "--gpu", "h100-sxm5-80gb", "--inference")
    weights = 8e9 * 2                            # 8B parameters in 16-bit
    kv_per_token = 2048 * 32 * 2                 # values/token/layer x layers x 2 bytes = 128 KiB
    assert serve["min_gpus"] == 1                # 1.2 x 16 GB + one 2560-token sequence < 80 GiB
    batch = int((80 * 2**30 - 1.2 * weights) // (kv_per_token * (2048 + 512)))  # KV of prompt + output beside weights
    assert batch == 198 and serve["batch_size"] == batch and serve["throughput_bound"] == "memory"
    step_s = (weights + batch * kv_per_token * (2048 + 256)) / (3350e9 * 0.6)  # weights + KV at the mean context
    assert step_s > batch * (2 * 8e9 + 4 * 32 * 4096 * 2304) / (989.4e12 * 0.5)  # (compute is 5x shorter)
    tokens_per_second = batch / step_s
    assert tokens_per_second == pytest.approx(5250.7, rel=1e-4)
    assert serve["output_tokens_per_second"] == pytest.approx(tokens_per_second, rel=1e-12)
    prefill_s = (2 * 8e9 + 4 * 32 * 4096 * 1024) / (989.4e12 * 0.5)  # per prompt token, causal: half the prompt
    price = float(serve["on_demand_cheapest_usd_per_gpu_hour"])
    assert serve["usd_per_million_output_tokens_cheapest"] == pytest.approx(price / (tokens_per_second * 3600) * 1e6)
    assert serve["usd_per_million_input_tokens_cheapest"] == pytest.approx(price * prefill_s / 3600 * 1e6)


def test_the_a100_rule_of_thumb_falls_out_at_40_percent_mfu(warehouse):
    # "A100 count = tokens(B) x epochs x params(B) x 13.3 / hours": 7B params, 2T tokens, one epoch, in 30 days
    result = estimate_json(warehouse, "--params", "7B", "--tokens", "2000B", "--gpu", "a100-sxm4-80gb", "--mfu", "0.4")
    hours = 30 * 24
    rule_of_thumb_gpus = 2000 * 1 * 7 * 13.3 / hours
    assert result["flops"] == pytest.approx(6 * 7e9 * 2e12)
    assert result["gpu_hours"] / hours == pytest.approx(rule_of_thumb_gpus, rel=0.005)


def test_estimate_ranks_every_priced_gpu_cheapest_first(warehouse):
    rows = estimate_json(warehouse, "--model", "llama-3.1-70b")
    assert isinstance(rows, list) and len(rows) > 10
    for key in ("gpu_id", "flops", "gpu_hours", "min_gpus", "wall_clock_days", "cost_usd_cheapest", "cost_usd_median"):
        assert key in rows[0]
    costs = [r["cost_usd_cheapest"] for r in rows]
    priced = [c for c in costs if c is not None]
    assert priced == sorted(priced) and costs[: len(priced)] == priced  # unpriced GPUs last
    # fp8 ranks only GPUs with FP8 tensor cores
    fp8 = {r["gpu_id"] for r in estimate_json(warehouse, "--model", "llama-3.1-70b", "--precision", "fp8")}
    assert "h100-sxm5-80gb" in fp8 and "a100-sxm4-80gb" not in fp8


def test_estimate_serving_view_matches_the_inference_mart(warehouse):
    result = estimate_json(warehouse, "--model", "llama-3.1-8b", "--gpu", "H100", "--inference")
    mart = sql_rows(warehouse, "select * from marts.inference_cost_daily where model_id = 'llama-3.1-8b' "
                               "and gpu_id = 'h100-sxm5-80gb' and weight_precision = 'bf16' "
                               "and price_date = '2026-05-01'")[0]
    assert result["min_gpus"] == mart["gpus"]
    assert result["output_tokens_per_second"] == pytest.approx(mart["output_tokens_per_second"], rel=1e-12)
    assert result["usd_per_million_output_tokens_cheapest"] == pytest.approx(
        mart["usd_per_million_output_tokens_on_demand_cheapest"], rel=1e-12)


def test_validation_on_the_published_runs_meets_the_target_beside_the_naive_rule(warehouse):
    calibration = str(ROOT / "analytics" / "calibration" / "training_runs_calibration.csv")
    result = json.loads(gpuprices(warehouse, "estimate", "--validate", calibration, "--json").stdout)
    runs, model, naive = result["runs"], result["overall"]["model"], result["overall"]["naive"]
    assert len(runs) == 12 and model["runs"] == naive["runs"] == 12
    # the target: median absolute error <= 15%, every run within 2x; the naive 40% rule misses a run
    assert model["median_abs_error"] <= 0.15 and model["share_within_2x"] == 1.0
    assert naive["share_within_2x"] < 1.0 and naive["median_abs_error"] > model["median_abs_error"]
    for run in runs:
        assert run["model_estimate"]["ratio"] == pytest.approx(run["model_estimate"]["gpu_hours"]
                                                               / run["reported_gpu_hours"])
        assert run["naive_estimate"]["mfu"] == 0.40
    by_name = {run["model"]: run for run in runs}
    # the per-1T-token rate is estimated at 1T tokens; the H800 resolves through the aliases
    rate = by_name["DeepSeek LLM 67B (rate per 1T tokens)"]
    assert rate["gpu_id"] == "h800-sxm5-80gb" and "per 1T" in rate["scope"]
    assert rate["model_estimate"]["flops"] == pytest.approx((6 * 67e9 + 12 * 95 * 8192 * 4096) * 1e12)
    assert rate["naive_estimate"]["flops"] == pytest.approx(6 * 67e9 * 1e12)
    assert by_name["Llama 4 Scout (17Bx16E)"]["precision"] == "fp8"
    assert by_name["Pythia-1B"]["gpu_id"] == "a100-sxm4-40gb"
    text = gpuprices(warehouse, "estimate", "--validate", calibration).stdout
    assert "efficiency model, in sample: median absolute error" in text and "naive 40% rule" in text
    assert "1,300,000" in text
    missing = gpuprices(warehouse, "estimate", "--validate", "no-such-file.csv", check=False)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_training_rows_carry_precision_and_efficiency_basis(warehouse):
    rows = sql_rows(warehouse, """
        select gpu_id, training_precision, mfu, efficiency_basis from marts.training_cost_daily
        where model_id = 'llama-3.1-70b' and price_date = '2026-05-01'""")
    by_key = {(r["gpu_id"], r["training_precision"]): r for r in rows}
    h100_bf16, h100_fp8 = by_key[("h100-sxm5-80gb", "bf16")], by_key[("h100-sxm5-80gb", "fp8")]
    assert h100_bf16["efficiency_basis"] == "measured"
    assert h100_fp8["mfu"] == pytest.approx(h100_bf16["mfu"] * 0.67)  # FP8 keeps a smaller share of its peak
    assert by_key[("rtx-4090-24gb", "bf16")]["efficiency_basis"] == "unmeasured"
    # new 2025 models: training rows where tokens are disclosed, serving rows always
    trained = {r["model_id"] for r in sql_rows(warehouse, "select distinct model_id from marts.training_cost_daily")}
    served = {r["model_id"] for r in sql_rows(warehouse, "select distinct model_id from marts.inference_cost_daily")}
    assert {"llama-4-scout", "qwen3-235b-a22b", "kimi-k2", "gemma-3-27b", "deepseek-v3.1"} <= trained
    assert "gpt-oss-120b" not in trained and "gpt-oss-120b" in served


def test_estimate_text_is_rounded_and_bad_requests_say_why(warehouse):
    text = gpuprices(warehouse, "estimate", "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb").stdout
    assert "a100-sxm4-80gb" in text and "208,533" in text and "208532.7" not in text
    for args, message in (
        (("--params", "70", "--tokens", "2T"), "did you mean 70B"),
        (("--model", "llama-2-7b", "--gpu", "Voodoo 5"), "unknown GPU"),
        (("--model", "mixtral-8x7b"), "pass --tokens"),
        (("--model", "no-such-model"), "no reference model"),
    ):
        result = gpuprices(warehouse, "estimate", *args, check=False)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)


def test_every_model_and_column_is_described_in_the_yaml_beside_it(warehouse):
    import yaml

    documented, described_models = {}, set()
    for sql in [*(ROOT / "models" / "models").glob("*/*.sql"), *(ROOT / "models" / "seeds").glob("*.csv")]:
        if sql.parent.name in ("macros", "tests"):
            continue
        beside = sql.with_suffix(".yml")
        assert beside.exists(), f"{sql.relative_to(ROOT)} has no YAML beside it"
        entries = yaml.safe_load(beside.read_text())
        for model in entries.get("models", []) + entries.get("seeds", []):
            if model.get("description"):
                described_models.add(model["name"])
            documented[model["name"]] = {c["name"] for c in model.get("columns", []) if c.get("description")}
    with duckdb.connect(str(warehouse / "gpuprices.duckdb"), read_only=True) as connection:
        columns = connection.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema IN ('staging', 'intermediate', 'marts', 'monitoring', 'reference')"
        ).fetchall()
    assert {t for t, _ in columns} <= described_models
    undocumented = sorted(f"{t}.{c}" for t, c in columns if c not in documented.get(t, set()))
    assert not undocumented, f"describe these columns in models/<layer>/<model>.yml: {undocumented}"


def test_estimate_resolves_aliases_counts_recomputation_and_takes_a_stated_throughput(warehouse):
    assert estimate_json(warehouse, "--params", "70B", "--tokens", "2T", "--gpu", "H100-80GB")["gpu_id"] == "h100-sxm5-80gb"
    # what a person types: scientific notation with a sign, a spec-sheet spelling with the memory
    typed = estimate_json(warehouse, "--params", "1.75e+11", "--tokens", "2.1e+12", "--gpu", "A100 40GB")
    assert typed["gpu_id"] == "a100-sxm4-40gb" and typed["flops"] == pytest.approx(6 * 1.75e11 * 2.1e12)
    h800 = estimate_json(warehouse, "--model", "deepseek-v3", "--gpu", "H800", "--precision", "fp8")
    assert h800["gpu_id"] == "h800-sxm5-80gb"
    # active parameters, not 671B, plus attention at its 4096-token sequences
    assert h800["flops"] == pytest.approx((6 * 37e9 + 12 * 61 * 7168 * 4096) * 14.8e12)
    plain = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")
    recomputed = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb", "--recompute")
    assert recomputed["flops"] / plain["flops"] == pytest.approx(8 / 6)
    assert recomputed["min_gpus"] <= plain["min_gpus"]  # recomputation keeps fewer activations
    stated = estimate_json(warehouse, "--model", "llama-3.1-8b", "--gpu", "H100", "--inference",
                           "--tokens-per-second", "3600")
    hourly = float(stated["on_demand_cheapest_usd_per_gpu_hour"]) * stated["min_gpus"]
    assert stated["usd_per_million_output_tokens_cheapest"] == pytest.approx(hourly / (3600 * 3600) * 1e6)
    # each cheapest cost names its offer: a training cluster that of the cheapest cloud renting that many GPUs as one
    # job (the smallest size tier holding it), serving any channel's
    for stated_gpu, view, prices in (
            (plain, "training", f"""
                select on_demand_cheapest_provider as provider, on_demand_cheapest_source as source,
                       on_demand_cheapest_usd_per_gpu_hour as price
                from marts.gpu_cluster_prices_daily where up_to_gpus >= {plain["cluster_gpus"]}"""),
            (stated, "serving", """
                select on_demand_cheapest_provider as provider, on_demand_cheapest_source as source,
                       on_demand_cheapest_usd_per_gpu_hour as price
                from intermediate.int_gpu_prices__rental_daily where true""")):
        (offer,) = sql_rows(warehouse, f"""{prices}
            and gpu_id = '{stated_gpu["gpu_id"]}' and price_date = '{stated_gpu["price_date"]}'
            {"order by up_to_gpus limit 1" if view == "training" else ""}""")
        assert offer["provider"] and (stated_gpu["on_demand_cheapest_provider"], stated_gpu["on_demand_cheapest_source"],
                                      float(stated_gpu["on_demand_cheapest_usd_per_gpu_hour"])) == \
            (offer["provider"], offer["source"], float(offer["price"])), view
        credible = sql_rows(warehouse, f"""
            select min(unit_price_usd) as price from intermediate.int_offers__credible_daily
            where gpu_id = '{stated_gpu["gpu_id"]}' and price_date = '{stated_gpu["price_date"]}'
              and pricing_type = 'on_demand' and price_per = 'gpu_hour' and provider = '{offer["provider"]}'
              {"and channel = 'cloud'" if view == "training" else ""}""")[0]
        assert float(credible["price"]) == pytest.approx(float(offer["price"]))


def test_assumptions_are_configurable_per_build(own_warehouse):
    # it rebuilds one mart with another A100 efficiency, then puts the defaults back
    default = estimate_json(own_warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")["mfu"]
    try:
        gpuprices(own_warehouse, "build", "--select", "estimate_assumptions", "--vars", "{efficiency_ampere: 0.35}")
        assert sql_rows(own_warehouse, "select value from monitoring.estimate_assumptions "
                                       "where name = 'efficiency_ampere'")[0]["value"] == 0.35
        changed = estimate_json(own_warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")["mfu"]
        assert changed == pytest.approx(default * 0.35 / 0.46, rel=1e-12)
    finally:
        gpuprices(own_warehouse, "build", "--select", "estimate_assumptions")
    assert estimate_json(own_warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")["mfu"] == default


def test_euro_prices_get_usd_at_the_ecb_rate_of_their_day(warehouse):
    rates = sql_rows(warehouse, "select rate_date, count(*) as n from raw.fx_rates group by 1 order by 1")
    assert rates and all(r["n"] >= 29 for r in rates if r["rate_date"] >= "2026-04-01")  # the replayed days
    # and the real ECB history before them, every business day since 1999 (27 currencies then)
    assert rates[0]["rate_date"] == "1999-01-04" and all(r["n"] >= 27 for r in rates)
    assert len([r for r in rates if r["rate_date"] <= "2026-04-01"]) == 6977
    seeweb = sql_rows(warehouse, """
        select o.price_date, o.price_per_unit, o.price_per_gpu_hour_usd, o.fx_rate_date, f.usd_per_unit
        from intermediate.int_offers__current o
        join intermediate.int_fx_rates__daily f on f.currency = 'EUR' and f.rate_date = o.fx_rate_date
        where o.source = 'seeweb'""")
    assert seeweb, "Seeweb EUR offers should have a USD figure"
    for row in seeweb:
        assert row["fx_rate_date"] <= row["price_date"]
        expected = float(row["price_per_unit"]) * float(row["usd_per_unit"])
        assert abs(float(row["price_per_gpu_hour_usd"]) - expected) < 1e-5
    # and they reach the market mart
    assert sql_rows(warehouse, "select count(*) as n from marts.gpu_prices_by_source_daily where source = 'seeweb'")[0]["n"] > 0


# -- retail (issue 4) --------------------------------------------------------------------------------------------------
def test_retail_cards_reach_the_market_marts_new_and_used_in_usd(warehouse):
    # every market's figures (gpu_market_prices_daily: every provider, the made-up pages' prices included)
    markets = {(r["market"], r["gpu_id"]) for r in sql_rows(warehouse, """
        select distinct market, gpu_id from marts.gpu_market_prices_daily
        where price_per = 'card' and channel = 'retail' and price_date = '2026-05-01'""")}
    assert {("retail_new", "rtx-4090-24gb"), ("retail_new", "h100-pcie-80gb"), ("retail_used", "rtx-3090-24gb"),
            ("retail_used", "h100-pcie-80gb"), ("retail_used", "a100-pcie-80gb")} <= markets
    # every replayed retail row comes from a stale or made-up page: flagged, so no one takes it for a market price;
    # the imported Amazon histories are real observations
    flags = sql_rows(warehouse, """select source in ('keepa-amazon', 'idealo-de') as imported,
                                   list(distinct is_synthetic) as flags
                                   from raw.offers where channel = 'retail' group by 1 order by 1""")
    assert flags == [{"imported": False, "flags": [True]}, {"imported": True, "flags": [False]}]
    # the cheapest new RTX 4090 of the day is the market's minimum; a made-up page's card heads no answer
    cheapest = sql_rows(warehouse, """
        select min(unit_price_usd) as low, min(unit_price_usd) filter (where headline_gap is null) as credible
        from intermediate.int_offers__market_daily
        where gpu_id = 'rtx-4090-24gb' and market = 'retail_new' and price_date = '2026-05-01'""")[0]
    mart = sql_rows(warehouse, """
        select min_price_usd, credible_min_price_usd from marts.gpu_market_prices_daily
        where gpu_id = 'rtx-4090-24gb' and market = 'retail_new' and price_date = '2026-05-01'""")[0]
    assert float(mart["min_price_usd"]) == pytest.approx(float(cheapest["low"]))
    assert (mart["credible_min_price_usd"] is None) == (cheapest["credible"] is None)
    # the H100 PCIe's street prices of the day are all made-up pages': rent vs buy does not take them
    basis = sql_rows(warehouse, """select purchase_price_basis from marts.rent_vs_buy_daily
        where gpu_id = 'h100-pcie-80gb' and price_date = '2026-05-01' limit 1""")
    assert basis in ([], [{"purchase_price_basis": "launch_price"}])


def test_cny_and_eur_card_prices_are_converted_at_their_days_rate(warehouse):
    rows = sql_rows(warehouse, """
        select m.source, m.currency, m.price_date, m.price_per_unit, m.fx_rate_date, m.unit_price_usd,
               f.usd_per_unit
        from intermediate.int_offers__market_daily m
        join intermediate.int_fx_rates__daily f on f.currency = m.currency and f.rate_date = m.fx_rate_date
        where m.source in ('jd', 'shops')""")
    assert {r["currency"] for r in rows} == {"CNY", "EUR"}
    for row in rows:
        assert row["fx_rate_date"] <= row["price_date"]
        assert float(row["unit_price_usd"]) == pytest.approx(float(row["price_per_unit"]) * float(row["usd_per_unit"]))


def test_out_of_stock_cards_are_kept_and_set_aside_listings_quarantined_with_reasons(warehouse):
    sold_out = sql_rows(warehouse, """select count(*) as n, min(price) as low from raw.offers
        where source = 'newegg' and in_stock = false and gpu_id = 'rtx-3080-10gb'""")[0]
    assert sold_out["n"] > 0 and float(sold_out["low"]) > 0  # a price still, never 0
    in_market = sql_rows(warehouse, """select count(*) as n from intermediate.int_offers__market_daily
        where source = 'newegg' and not coalesce(in_stock, true)""")[0]
    assert in_market["n"] == 0
    reasons = {r["reason"] for r in sql_rows(warehouse, "select distinct reason from raw.quarantine")}
    assert {"prebuilt PC", "bundle (combo: a GPU priced with other parts)", "box only"} <= reasons


def test_a_retailer_with_an_empty_watch_list_is_skipped_with_the_reason(home, tmp_path, monkeypatch):
    watch_list = tmp_path / "watchlist.toml"
    watch_list.write_text("[amazon]\nproducts = []\nqueries = []\n")
    monkeypatch.setenv("GPUPRICES_WATCHLIST", str(watch_list))
    result = gpuprices(home, "run", "--sources", "amazon", "--no-build", check=False)
    runs = sql_rows(home, "select status, error from raw.ingest_runs where source = 'amazon'")
    assert runs and runs[0]["status"] == "skipped" and "watch list names nothing" in runs[0]["error"], result.stdout


def test_imported_history_is_history_like_any_other_and_the_buy_signal_is_backtested_on_it(warehouse):
    # the eight real Amazon histories reach the marts as real (not synthetic) retail_new prices per card
    imported = sql_rows(warehouse, """
        select gpu_id, count(*) as days, bool_or(is_synthetic) as synthetic, min(price_date) as first_day
        from marts.gpu_prices_by_source_daily where source = 'keepa-amazon' and condition = 'new' group by 1""")
    assert len(imported) == 8 and not any(row["synthetic"] for row in imported)
    assert {"t4-16gb", "rtx-3070-8gb", "rtx-5080-16gb", "quadro-rtx-5000-16gb"} <= {row["gpu_id"] for row in imported}
    assert sql_rows(warehouse, """select count(*) as n from marts.gpu_price_index_daily
                                  where gpu_id = 't4-16gb' and market = 'retail_new'""")[0]["n"] > 200
    # the backtest on them: the signal captures at least half of perfect foresight's savings, more than either baseline
    report = json.loads(gpuprices(warehouse, "backtest", "--source", "keepa-amazon", "--json").stdout)
    assert len(report["series"]) == 8
    signal, baselines = report["overall"]["signal"], report["overall"]["baselines"]
    assert signal["share_of_oracle"] >= 0.5
    assert signal["share_of_oracle"] > max(b["share_of_oracle"] for b in baselines.values())
    assert set(baselines) == {"lowest_5pct", "median_drop_5pct"} and not report["is_synthetic"]
    text = gpuprices(warehouse, "backtest", "--source", "keepa-amazon").stdout
    assert "overall, 8 series" in text and "[synthetic]" not in text
    assert gpuprices(warehouse, "backtest", "--source", "nowhere", check=False).returncode == 1
    # the pages: today's verdict with its backtest, the imported mark, the overview's backtest figures
    page = (warehouse / "site" / "gpu" / "t4-16gb.html").read_text()
    assert "Buy now or wait?" in page and "imported: keepa-amazon" in page and "too short to backtest" in page
    every_source = json.loads(gpuprices(warehouse, "backtest", "--json").stdout)["overall"]["signal"]
    overview = (warehouse / "site" / "index.html").read_text()
    assert f"{every_source['share_of_oracle']:.0%}" in overview.split("Buy signals on ")[1][:1500]


def test_the_imported_gcp_and_idealo_histories_reach_the_marts_with_commitments_and_years_of_days(warehouse):
    # GCP's list prices, 2022-2025: every market of the four GPUs, per GPU-hour, on years of revision days
    gcp = {(r["gpu_id"], r["market"]): r for r in sql_rows(warehouse, """
        select gpu_id, market, count(*) as days, min(price_date) as first_day, max(price_date) as last_day,
               median(median_price_usd) as typical, bool_or(is_synthetic) as synthetic
        from marts.gpu_prices_daily where channel = 'cloud' and sources like '%gcp-list-history%' group by all""")}
    for gpu_id in ("a100-sxm4-40gb", "h100-sxm5-80gb", "l4-24gb"):
        for market in ("on_demand", "spot", "reserved_1y", "reserved_3y"):
            assert gcp[gpu_id, market]["days"] >= 60 and not gcp[gpu_id, market]["synthetic"], (gpu_id, market)
        # a commitment is cheaper than on demand, 3 years cheaper than 1
        typical = {market: float(gcp[gpu_id, market]["typical"]) for market in ("on_demand", "reserved_1y",
                                                                              "reserved_3y")}
        assert typical["reserved_3y"] < typical["reserved_1y"] < typical["on_demand"], gpu_id
    assert gcp["a100-sxm4-40gb", "on_demand"]["first_day"] == "2022-02-09"
    assert gcp["a100-sxm4-40gb", "on_demand"]["last_day"] == "2025-06-26"
    assert gcp["a100-sxm4-40gb", "on_demand"]["days"] == 211 and gcp["a100-sxm4-80gb", "on_demand"]["days"] > 150
    assert 3 < float(gcp["a100-sxm4-40gb", "on_demand"]["typical"]) < 5  # $3.67 a2-highgpu-1g in us-central1
    assert 10 < float(gcp["h100-sxm5-80gb", "on_demand"]["typical"]) < 16  # $88.49 / 8 for an a3-highgpu-8g
    us_central = sql_rows(warehouse, """
        select title, pricing_type, price_per_unit from raw.offers where source = 'gcp-list-history'
        and region = 'us-central1' and title in ('a2-highgpu-1g', 'a3-highgpu-8g')
        and cast(observed_at as date) = '2024-07-11' order by 1, 2""")
    assert {(r["title"], r["pricing_type"]): Decimal(r["price_per_unit"]) for r in us_central} == {
        ("a2-highgpu-1g", "on_demand"): Decimal("3.673385"), ("a2-highgpu-1g", "spot"): Decimal("1.469355"),
        ("a2-highgpu-1g", "reserved_1y"): Decimal("2.314207"),  # 1689.3711392 a month / 730 hours
        ("a2-highgpu-1g", "reserved_3y"): Decimal("1.285708"),  # 938.56707798 / 730
        ("a3-highgpu-8g", "on_demand"): Decimal("11.06125"),  # 88.4899999026 an hour / 8 GPUs
        ("a3-highgpu-8g", "spot"): Decimal("6.095868"), ("a3-highgpu-8g", "reserved_1y"): Decimal("7.672959"),
        ("a3-highgpu-8g", "reserved_3y"): Decimal("4.858048")}
    # the regions listing an A100 machine without its A100 are held back with their reason, not in the marts
    held = sql_rows(warehouse, """select reason, count(*) as n from raw.quarantine where source = 'gcp-list-history'
        and json_extract_string(detail, '$.region') = 'northamerica-northeast2' group by 1""")
    assert held == [{"reason": "relative_outlier", "n": 2174}]
    # (its commitments of 2022 carry the GPU: they load; from 2023-01-31 they do not either)
    assert sql_rows(warehouse, """select count(*) as n from intermediate.int_offers__daily
        where source = 'gcp-list-history' and region = 'northamerica-northeast2' and gpu_id = 'a100-sxm4-40gb'
        and price_date < '2024-08-18' and (pricing_type in ('on_demand', 'spot') or price_date >= '2023-01-31')
        """)[0]["n"] == 0
    # idealo's euro card prices of 2017-2018 in dollars at the ECB rate of their day
    cards = sql_rows(warehouse, """
        select m.gpu_id, m.price_date, m.price_per_unit, m.unit_price_usd, m.fx_rate_date, f.usd_per_unit
        from intermediate.int_offers__market_daily m
        join intermediate.int_fx_rates__daily f on f.currency = 'EUR' and f.rate_date = m.fx_rate_date
        where m.source = 'idealo-de'""")
    assert {row["gpu_id"] for row in cards} == {"gtx-1070-8gb", "gtx-1070-ti-8gb", "gtx-1080-8gb", "gtx-1080-ti-11gb",
                                                "rx-570-4gb", "rx-580-8gb"}
    for row in cards:
        assert 0 <= (date.fromisoformat(row["price_date"]) - date.fromisoformat(row["fx_rate_date"])).days <= 4  # Xmas
        assert float(row["unit_price_usd"]) == pytest.approx(float(row["price_per_unit"]) * float(row["usd_per_unit"]))
    # the ECB's own USD rate of Friday 2017-08-11 converts that weekend's prices
    assert {Decimal(row["usd_per_unit"]) for row in cards if row["fx_rate_date"] == "2017-08-11"} == {
        Decimal("1.1765")}
    days = sql_rows(warehouse, """select gpu_id, count(*) as days from marts.gpu_prices_by_source_daily
        where source = 'idealo-de' group by 1""")
    assert {row["gpu_id"]: row["days"] for row in days}["gtx-1080-8gb"] == 185
    # the GTX 1080 Ti listing the file also files under "GTX 1080" is one GTX 1080 Ti offer a day, never a GTX 1080
    listings = {(r["gpu_id"], r["url"].split("/")[-1].split("_")[0]) for r in sql_rows(warehouse, """
        select distinct gpu_id, url from intermediate.int_offers__daily where source = 'idealo-de'""")}
    assert ("gtx-1080-ti-11gb", "5489383") in listings and len(listings) == 17
    assert sql_rows(warehouse, """select max(n) as n from (select count(*) as n from intermediate.int_offers__daily
        where source = 'idealo-de' group by price_date, url)""")[0]["n"] == 1


def test_thirty_rental_providers_marketplaces_apart_and_aggregator_copies_counted_once(warehouse, monkeypatch):
    recordings = json.loads((ROOT / "recordings" / "index.json").read_text())["recordings"]
    real = {r["source"] for r in recordings if r["data_origin"] in ("captured", "stale_capture")}
    providers = [{**row, "real_capture": row["source"] in real} for row in sql_rows(warehouse, """
        select distinct channel, provider, source from marts.gpu_prices_by_source_daily
        where channel in ('cloud', 'marketplace')""")]
    assert len({row["provider"] for row in providers}) >= 30
    assert len({row["provider"] for row in providers if row["real_capture"]}) >= 10
    # peer-to-peer asks are their own channel, as their sources declare it in raw, and so in the marts
    marketplace = {row["provider"] for row in providers if row["channel"] == "marketplace"}
    assert {"vast", "tensordock", "lium"} <= marketplace and "lambda" not in marketplace
    declared = {row["provider"] for row in sql_rows(warehouse, """
        select distinct provider from raw.offers where channel = 'marketplace'""")}
    assert marketplace <= declared and "lambda" not in declared
    assert sql_rows(warehouse, """select count(*) as n from raw.offers where channel = 'cloud'
        and provider in (select provider from reference.marketplace_providers)""")[0]["n"] == 0
    # an aggregator's copy of a provider a direct source lists never reaches the market figures
    doubled = sql_rows(warehouse, """
        select count(*) as n from intermediate.int_offers__market_daily as market
        where via is not null and exists (
            select 1 from intermediate.int_offers__market_daily as direct
            where direct.via is null and direct.price_date = market.price_date and direct.provider = market.provider
              and direct.gpu_id = market.gpu_id and direct.pricing_type = market.pricing_type)""")
    assert doubled[0]["n"] == 0
    assert sql_rows(warehouse, "select count(*) as n from marts.gpu_prices_by_source_daily where via = 'shadeform'"
                    )[0]["n"] > 0  # both kept where analysts compare sources
    # how the GPUs and the nodes are linked, where a source says so, reaches the models
    networks = sql_rows(warehouse, """
        select distinct source, interconnect, cluster_network from intermediate.int_offers__daily
        where cluster_network is not null""")
    assert {(r["source"], r["interconnect"], r["cluster_network"]) for r in networks} == {
        ("voltagepark", "sxm", "infiniband"), ("voltagepark", "sxm", "ethernet"), ("latitudesh", None, "roce")}
    # the cheapest-rental headline takes marketplace asks or leaves them out, as the user says
    monkeypatch.setenv("GPUPRICES_HEADLINE_MARKETPLACES", "0")
    clouds_only = dashboard_data.load(warehouse / "gpuprices.duckdb")
    assert clouds_only.rent_best and {r["channel"] for r in clouds_only.rent_best} == {"cloud"}


def test_the_models_unit_tests_pass_on_the_built_warehouse(own_warehouse):
    """The daily build leaves the formulas' unit tests out (they test the SQL, not the day's data); they run here."""
    found = re.search(r"dbt unit tests: (\d+) passed", gpuprices(own_warehouse, "build", "--unit-tests").stdout)
    assert found and int(found.group(1)) >= 35  # every unit test of models/*/*.yml


def test_the_marts_hold_only_the_categorical_values_schema_md_lists_and_every_offer_its_data_origin(warehouse):
    from warehouse.store.docs import categorical_values

    columns = sql_rows(warehouse, "select table_schema, table_name, column_name from information_schema.columns "
                                  "where table_schema in ('marts', 'monitoring') order by all")
    checked = 0
    for column in columns:
        schema, table, name = column["table_schema"], column["table_name"], column["column_name"]
        listed = categorical_values(table, name)
        if listed:
            found = {r["v"] for r in sql_rows(warehouse, f'select distinct "{name}" as v from {schema}.{table}')}
            assert found - {None} <= set(listed), (table, name, found - set(listed))
            checked += 1
    assert checked >= 25
    # the offers mart: one row per offer and day of int_offers__daily, each with what its run loaded
    origins = {r["data_origin"]: r["n"] for r in sql_rows(
        warehouse, "select data_origin, count(*) as n from marts.offers_daily group by all")}
    assert set(origins) == {"captured", "imported", "stale_capture", "reconstructed", "synthetic"}
    assert sum(origins.values()) == row_counts(warehouse)["intermediate.int_offers__daily"]
    # what is not real data is flagged synthetic, whatever it is
    assert sql_rows(warehouse, "select count(*) as n from marts.offers_daily "
                               "where data_origin not in ('captured', 'imported') and not is_synthetic")[0]["n"] == 0
    assert (warehouse / "export" / "offers_daily" / f"price_date={SINCE}").is_dir()
    assert (warehouse / "export" / "gpu_price_index_daily" / f"price_date={SINCE}").is_dir()
