"""The README's offline run, through the real CLI in a subprocess, on a fresh data home: recorded responses
served on 127.0.0.1 to the real fetch code, then load, dbt build (with its data and unit tests), export."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from conftest import (
    ROOT,  # noqa: E402
    SINCE,
    gpuprices,
    row_counts,
)

from dashboards import data as dashboard_data

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it


def test_mart_has_real_prices_per_gpu_hour_from_both_sources(warehouse):
    result = gpuprices(warehouse, "sql", "--json",
                       "select * from marts.gpu_prices_by_source_daily where price_per = 'gpu_hour'")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    sources = {r["source"] for r in rows}
    assert {"azure", "skypilot-azure", "skypilot-gcp", "skypilot-lambda", "skypilot-vast"} <= sources
    assert {r["price_date"] for r in rows} == {"2026-04-28", "2026-04-29", "2026-04-30", "2026-05-01"}
    # rows from the reconstructed Azure API pages are flagged; rows from real catalogs are not
    assert all(r["is_synthetic"] for r in rows if r["source"] == "azure")
    assert not any(r["is_synthetic"] for r in rows if r["source"].startswith("skypilot-"))
    # the Lambda catalog lists one price for every region: e.g. gpu_8x_h100_sxm5 on 2026-04-20 at 8 GPUs
    lambda_h100 = [r for r in rows if r["source"] == "skypilot-lambda" and r["gpu_id"] == "h100-sxm5-80gb"]
    assert lambda_h100 and all(float(r["min_price_per_gpu_hour_usd"]) > 1 for r in lambda_h100)
    # a reserved or hourly price read wrong would be off by 100x+; every figure sits in a sane band
    assert all(0.02 <= float(r["min_price_per_gpu_hour_usd"]) <= 40 for r in rows)


def test_the_run_report_times_every_stage_and_every_source(warehouse):
    report = json.loads(sorted((warehouse / "reports").glob("run-*.json"))[0].read_text())
    assert {"collect", "build", "export", "dashboard", "snapshot"} <= set(report["stage_seconds"])
    assert set(report["source_stage_seconds"]) == {"fetch", "parse", "normalize", "check", "load"}
    loaded = [s for s in report["sources"] if s["status"] == "loaded"]
    assert loaded and all(set(s["stage_seconds"]) == {"fetch", "parse", "normalize", "check", "load"} for s in loaded)
    # each source's stages fit inside the run's collect stage (sources overlap, so their sum may not)
    assert all(sum(s["stage_seconds"].values()) <= report["stage_seconds"]["collect"] for s in loaded)


def test_running_it_again_changes_no_row_count(warehouse):
    before = row_counts(warehouse)
    result = gpuprices(warehouse, "run", "--offline", "--since", SINCE)
    assert "already_loaded" in result.stdout
    assert row_counts(warehouse) == before


def test_status_reports_freshness_quarantine_and_unmatched_names(warehouse):
    report = json.loads(gpuprices(warehouse, "status", "--json").stdout)
    by_source = {s["source"]: s for s in report["sources"]}
    assert by_source["skypilot-gcp"]["last_status"] == "loaded"
    assert by_source["azure"]["has_synthetic_rows"] is True
    unmatched = {(u["source"], u["raw_gpu_name"]) for u in report["unmatched_gpu_names"]}
    assert ("skypilot-lambda", "a100") in unmatched and ("skypilot-vast", "Tesla V100 16GB") in unmatched
    text = gpuprices(warehouse, "status").stdout
    assert "Unmatched GPU names" in text and "'a100'" in text


def test_parquet_export_is_partitioned_by_date_and_readable(warehouse):
    export = warehouse / "export" / "gpu_prices_daily"
    partitions = sorted(p.name for p in export.iterdir())
    assert partitions[0] == f"price_date={SINCE}"
    with duckdb.connect() as connection:
        exported = connection.execute(
            f"SELECT count(*) FROM read_parquet('{export}/*/*.parquet', hive_partitioning = true)"
        ).fetchone()[0]
    assert exported == row_counts(warehouse)["marts.gpu_prices_daily"]


def test_parse_command_prints_normalized_offers(warehouse):
    result = gpuprices(warehouse, "parse", "skypilot-vast", str(ROOT / "recordings/skypilot/vast_2026-04-29.csv"))
    offers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(offers) == 64
    for field in ("source", "gpu_id", "gpu_count", "pricing_type", "price", "currency", "price_per_gpu_hour_usd",
                  "region", "in_stock", "condition", "title"):
        assert field in offers[0]


def generated_block(document: str, name: str) -> str:
    text = (ROOT / "docs" / document).read_text()
    found = re.search(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->", text, re.S)
    assert found, f"docs/{document} lost its {name} markers"
    return found.group(1).strip()


def test_generated_docs_match_the_real_warehouse_and_the_code(warehouse):
    for document, command in (("schema.md", "schema"), ("sources.md", "sources"), ("settings.md", "settings")):
        generated = gpuprices(warehouse, command).stdout.strip()
        assert generated_block(document, command) == generated, \
            f"docs/{document} drifted: paste `gpuprices {command}` between its markers"


# -- analytics marts and the estimator, on the same warehouse ----------------------------------------------------------
def sql_rows(home: Path, query: str) -> list[dict]:
    return [json.loads(line) for line in gpuprices(home, "sql", "--json", query).stdout.splitlines()]


def estimate_json(home: Path, *args: str):
    return json.loads(gpuprices(home, "estimate", *args, "--json").stdout)


def test_every_analytics_mart_is_built_and_exported_by_date(warehouse):
    counts = row_counts(warehouse)
    for mart in ("gpu_prices_daily", "price_performance_daily", "training_cost_daily", "inference_cost_daily",
                 "rent_vs_buy", "buy_signals"):
        assert counts[f"marts.{mart}"] > 0, mart
        partitions = sorted(p.name for p in (warehouse / "export" / mart).iterdir())
        assert partitions[-1] == "price_date=2026-05-01", mart


# Each price mart's is_synthetic against the made-up inputs behind it: a row is flagged exactly when one of them is.
SYNTHETIC_INPUTS = {
    "gpu_prices_daily": """
        select m.is_synthetic, bool_or(o.is_synthetic) as expected from marts.gpu_prices_daily m
        join intermediate.int_offers__market_daily o using (price_date, gpu_id, channel, pricing_type, price_per)
        group by all""",
    "gpu_prices_by_source_daily": """
        select m.is_synthetic, bool_or(o.is_synthetic) as expected from marts.gpu_prices_by_source_daily m
        join intermediate.int_offers__daily o using (price_date, gpu_id, channel, provider, source, pricing_type,
                                                     includes_host_vm)
        where o.price_per_gpu_hour_usd is not null group by all""",
    "price_performance_daily": """
        select m.is_synthetic, p.is_synthetic as expected from marts.price_performance_daily m
        join marts.gpu_prices_daily p using (price_date, gpu_id, channel, pricing_type, price_per)""",
    "buy_signals": """
        select m.is_synthetic, p.is_synthetic as expected from marts.buy_signals m
        join marts.gpu_prices_daily p using (price_date, gpu_id, channel, pricing_type, price_per)""",
    "training_cost_daily": """
        select m.is_synthetic, r.is_synthetic or coalesce(b.is_synthetic, false) as expected
        from marts.training_cost_daily m
        join intermediate.int_gpu_prices__rental_daily r using (price_date, gpu_id)
        left join intermediate.int_gpu_prices__purchase_daily b using (price_date, gpu_id)""",
    "inference_cost_daily": """
        select m.is_synthetic, r.is_synthetic as expected from marts.inference_cost_daily m
        join intermediate.int_gpu_prices__rental_daily r using (price_date, gpu_id)""",
    "rent_vs_buy": """
        select m.is_synthetic, r.is_synthetic or b.is_synthetic as expected from marts.rent_vs_buy m
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
                ("marts.gpu_prices_by_source_daily", "median_price_per_gpu_hour_usd"),
                ("marts.buy_signals", "price_usd"), ("marts.buy_signals", "trailing_30d_median_usd"),
                ("marts.rent_vs_buy", "purchase_price_usd"), ("marts.training_cost_daily", "purchase_price_usd")]
    inexact = {column: types[column] for column in observed if not types[column].startswith("DECIMAL")}
    assert not inexact, inexact
    # and the median of an even number of offers is the exact midpoint
    rows = sql_rows(warehouse, """
        select m.median_price_usd, (select median(unit_price_usd) from intermediate.int_offers__market_daily o
            where o.price_date = m.price_date and o.gpu_id = m.gpu_id and o.channel = m.channel
              and o.pricing_type = m.pricing_type and o.price_per = m.price_per)::varchar as exact
        from marts.gpu_prices_daily m where offer_count % 2 = 0 limit 20""")
    assert rows and all(abs(Decimal(r["exact"]) - Decimal(str(r["median_price_usd"]))) <= Decimal("0.0000005")
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
    # a made-up purchase price alone (cost_usd_owned) makes the estimate synthetic, and the text says which input
    owned_only = [row for row in priced if row["purchase_is_synthetic"] and not row["rental_is_synthetic"]]
    assert owned_only and all(row["is_synthetic"] for row in owned_only)
    text = gpuprices(warehouse, "estimate", "--model", "llama-3.1-70b", "--gpu", owned_only[0]["gpu_id"]).stdout
    assert "(synthetic: purchase price)" in text


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
        qualify row_number() over (partition by gpu_id, channel, pricing_type, price_per order by price_date) = 1""")
    assert first_days and all(row["price_index"] == pytest.approx(100) for row in first_days)
    # the index moves only on days with matched offers
    held = sql_rows(warehouse, """
        select count(*) as n from (
            select price_index, lag(price_index) over (partition by gpu_id, channel, pricing_type, price_per
                                                       order by price_date) as previous, matched_offer_count
            from marts.gpu_price_index_daily)
        where matched_offer_count = 0 and previous is not null and abs(price_index - previous) > 1e-9""")
    assert held[0]["n"] == 0
    data = dashboard_data.load(warehouse / "gpuprices.duckdb")
    index = {(r["gpu_id"], r["channel"], r["pricing_type"]): r["price_index"] for r in sql_rows(warehouse, """
        select * from marts.gpu_price_index_daily where price_date = '2026-05-01'""")}
    assert data.moves, "the replayed week has index moves"
    for move in data.moves:
        assert move["price_index"] == pytest.approx(index[(move["gpu_id"], move["channel"], move["pricing_type"])])
        assert move["change"] == pytest.approx(move["price_index"] / move["week_ago_index"] - 1)


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
    rows = sql_rows(warehouse, "select sources, provider_count from marts.gpu_prices_daily "
                               "where sources like '%lambda%'")
    assert rows and all("skypilot-lambda" in r["sources"] and ",lambda" not in r["sources"]
                        and not r["sources"].startswith("lambda") for r in rows)


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
    train = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")
    flops = 6 * 7e9 * 2000e9                     # 6 x parameters x tokens (Llama 2 7B: 7B, 2T)
    gpu_hours = flops / (312e12 * 0.40 * 3600)   # A100 SXM4: 312 dense BF16 TFLOPS; MFU 0.40 on NVLink
    assert gpu_hours == pytest.approx(186_965.8, rel=1e-6)
    assert train["gpu_hours"] == pytest.approx(gpu_hours, rel=1e-12)
    assert train["wall_clock_days"] == pytest.approx(gpu_hours / 1024 / 24, rel=1e-9)  # the 1,024-GPU cluster
    price = float(train["on_demand_cheapest_usd_per_gpu_hour"])
    assert train["cost_usd_cheapest"] == pytest.approx(gpu_hours * price, rel=1e-9)

    serve = estimate_json(warehouse, "--model", "llama-3.1-8b", "--gpu", "h100-sxm5-80gb", "--inference")
    weights = 8e9 * 2                            # 8B parameters in 16-bit
    kv_cache = 2048 * 32 * 8192 * 32 * 2         # values/token/layer x layers x context x batch x 2 bytes = 32 GiB
    assert serve["min_gpus"] == 1                # 1.2 x 16 GB + 32 GiB < 80 GiB
    step_s = (weights + kv_cache) / (3350e9 * 0.6)  # memory-bound: every weight and the KV cache per step
    assert step_s > 2 * 8e9 * 32 / (989.4e12 * 0.40)  # (the compute bound is 20x shorter)
    tokens_per_second = 32 / step_s
    assert tokens_per_second == pytest.approx(1277.2, rel=1e-4)
    assert serve["output_tokens_per_second"] == pytest.approx(tokens_per_second, rel=1e-12)
    price = float(serve["on_demand_cheapest_usd_per_gpu_hour"])
    assert serve["usd_per_million_output_tokens_cheapest"] == pytest.approx(price / (tokens_per_second * 3600) * 1e6)


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
                               "and gpu_id = 'h100-sxm5-80gb' and weight_precision = 'fp16' "
                               "and price_date = '2026-05-01'")[0]
    assert result["min_gpus"] == mart["gpus"]
    assert result["output_tokens_per_second"] == pytest.approx(mart["output_tokens_per_second"], rel=1e-12)
    assert result["usd_per_million_output_tokens_cheapest"] == pytest.approx(
        mart["usd_per_million_output_tokens_on_demand_cheapest"], rel=1e-12)


def test_estimate_text_is_rounded_and_bad_requests_say_why(warehouse):
    text = gpuprices(warehouse, "estimate", "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb").stdout
    assert "a100-sxm4-80gb" in text and "186,966" in text and "186965.8" not in text
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
    for sql in [*(ROOT / "models").glob("*/*.sql"), *(ROOT / "models" / "seeds").glob("*.csv")]:
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
            "WHERE table_schema IN ('staging', 'intermediate', 'marts', 'reference')"
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
    assert h800["flops"] == pytest.approx(6 * 37e9 * 14.8e12)  # active parameters, not 671B
    plain = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")
    recomputed = estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb", "--recompute")
    assert recomputed["flops"] / plain["flops"] == pytest.approx(8 / 6)
    assert recomputed["min_gpus"] <= plain["min_gpus"]  # recomputation keeps fewer activations
    stated = estimate_json(warehouse, "--model", "llama-3.1-8b", "--gpu", "H100", "--inference",
                           "--tokens-per-second", "3600")
    hourly = float(stated["on_demand_cheapest_usd_per_gpu_hour"]) * stated["min_gpus"]
    assert stated["usd_per_million_output_tokens_cheapest"] == pytest.approx(hourly / (3600 * 3600) * 1e6)


def test_assumptions_are_configurable_per_build(warehouse):
    # last in this module: it rebuilds one mart with another MFU, then puts the defaults back
    try:
        gpuprices(warehouse, "build", "--select", "estimate_assumptions", "--vars", "{mfu: 0.35}")
        assert sql_rows(warehouse, "select value from marts.estimate_assumptions where name = 'mfu'")[0]["value"] == 0.35
        assert estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")["mfu"] == 0.35
    finally:
        gpuprices(warehouse, "build", "--select", "estimate_assumptions")
    assert estimate_json(warehouse, "--model", "llama-2-7b", "--gpu", "a100-sxm4-80gb")["mfu"] == 0.4


def test_euro_prices_get_usd_at_the_ecb_rate_of_their_day(warehouse):
    rates = sql_rows(warehouse, "select rate_date, count(*) as n from raw.fx_rates group by 1 order by 1")
    assert rates and all(r["n"] >= 29 for r in rates)
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
    channels = {(r["channel"], r["gpu_id"]) for r in sql_rows(warehouse, """
        select distinct channel, gpu_id from marts.gpu_prices_daily
        where price_per = 'card' and pricing_type = 'purchase' and price_date = '2026-05-01'""")}
    assert {("retail_new", "rtx-4090-24gb"), ("retail_new", "h100-pcie-80gb"), ("retail_used", "rtx-3090-24gb"),
            ("retail_used", "h100-pcie-80gb"), ("retail_used", "a100-pcie-80gb")} <= channels
    # every offline retail row comes from a stale or made-up page: flagged, so no one takes it for a market price
    flags = sql_rows(warehouse, "select distinct is_synthetic from raw.offers where channel = 'retail'")
    assert flags == [{"is_synthetic": True}]
    # the cheapest new RTX 4090 of the day is the mart's minimum, and street prices replace launch prices
    cheapest = sql_rows(warehouse, """
        select min(unit_price_usd) as low from intermediate.int_offers__market_daily
        where gpu_id = 'rtx-4090-24gb' and channel = 'retail_new' and price_date = '2026-05-01'""")[0]
    mart = sql_rows(warehouse, """
        select min_price_usd from marts.gpu_prices_daily where gpu_id = 'rtx-4090-24gb' and channel = 'retail_new'
        and price_date = '2026-05-01'""")[0]
    assert float(mart["min_price_usd"]) == pytest.approx(float(cheapest["low"]))
    basis = sql_rows(warehouse, """select purchase_price_basis from marts.rent_vs_buy
        where gpu_id = 'h100-pcie-80gb' and price_date = '2026-05-01' limit 1""")
    assert basis == [{"purchase_price_basis": "street_new"}]


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
