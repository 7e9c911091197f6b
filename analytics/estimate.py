"""`gpuprices estimate`: training (or serving) cost of a model on one GPU or ranked across every GPU with a price.

The formulas are the warehouse's own: the DuckDB macros in schema `formulas` that dbt creates at the start of every
build (models/macros/create_formulas.sql) and the marts use, so an estimate for a reference model on its defaults
matches marts.training_cost_daily. Prices are today's credible prices: the warehouse's newest price day, suspect
prices set aside (int_offers__credible_daily); a GPU without a price that day has none. A plan is sized as the marts
size it: on the cluster the GPU can form today (int_gpu_clusters__daily), finishing within the stated days; one that
cannot be done says why and has no cost. Every estimate carries the error band the published runs support out of
sample (formulas.error_band_*; `--validate` derives it)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import duckdb

from scrapers.gpu_names import resolve_typed
from warehouse.store import db
from warehouse.store.freshness import age_of

_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
# The largest count a request may give: a quadrillion parameters or tokens (1e15; the largest published runs are
# ~2e12 parameters and ~4e13 tokens). Past it the formulas' GPU-hours and GPU counts leave the ranges their SQL types
# hold (BIGINT, DECIMAL): a request for 1e30 parameters is a typo, refused in one line.
MAX_COUNT = 1e15


class EstimateError(ValueError):
    """A request the estimator cannot answer; the message says why and what to do."""


def parse_count(text: str, what: str) -> float:
    """'70B', '2T', '7e9', '1.75e+11', '1.5b', '70,000,000,000', '70_000_000_000', '6.7 billion' -> a plain count.
    A bare number under a million is refused: '70' is far more likely to mean 70B than seventy."""
    words = {"thousand": "k", "million": "m", "billion": "b", "trillion": "t"}
    cleaned = re.sub(r"(?<=\d)[,_](?=\d{3}(?!\d))", "", text.lower().strip())
    cleaned = re.sub(r"\s*(thousand|million|billion|trillion)$", lambda m: words[m.group(1)], cleaned)
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmbt]?)\s*", cleaned)
    if not match:
        raise EstimateError(f"{what}: cannot read {text!r}; write e.g. 70B, 2T or 7e9")
    value = float(match.group(1)) * _SCALE[match.group(2)]
    if not (math.isfinite(value) and value > 0):  # 0B, 1e400
        raise EstimateError(f"{what}: {text!r} is not a count above 0 a float can hold; write e.g. 70B, 2T or 7e9")
    if not match.group(2) and value < 1e6:
        raise EstimateError(f"{what}: {text!r} is a bare number under a million; did you mean {text}B?")
    if value > MAX_COUNT:
        raise EstimateError(f"{what}: {text!r} is more than {MAX_COUNT:.0e} (a quadrillion); write e.g. 70B, 2T or 7e9")
    return value


@dataclass
class ModelShape:
    """What the formulas need to know about a model. Shape figures are None when unknown."""

    name: str
    total_params: float
    active_params: float
    tokens: float | None
    layers: int | None = None
    d_model: int | None = None
    kv_values_per_token_per_layer: int | None = None
    sequence_length: int | None = None  # pre-training tokens per sequence (the attention FLOPs term)
    num_experts: int | None = None
    experts_per_token: int | None = None
    post_trained_from: str | None = None  # a fine-tune's base: its own training tokens are not published


@dataclass
class EstimateRequest:
    model: ModelShape
    gpu: str | None = None
    mfu: float | None = None
    precision: str = "bf16"
    recompute: bool = False
    cluster_gpus: int | None = None
    inference: bool = False
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    tokens_per_second: float | None = None  # a stated serving throughput instead of the roofline estimate
    term: str | None = None  # '1y' or '3y': also price the run at the cheapest commitment of that term (TERMS)
    max_days: float | None = None  # a training plan finishes within this many days (default: training_max_days)


# `--term`: the commitment markets and their days (a year of 365 days, as marts.commitment_outcomes counts them)
TERMS = {"1y": ("reserved_1y", 365), "3y": ("reserved_3y", 1095)}


def open_warehouse() -> duckdb.DuckDBPyConnection:
    try:
        connection = db.open_for_reading()
    except duckdb.IOException as error:
        raise EstimateError(f"cannot open the warehouse ({error}); is a run writing it?") from error
    ready = connection.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE schema_name = 'formulas'"
    ).fetchone()[0]
    if not ready:
        connection.close()
        raise EstimateError("the warehouse has no estimate formulas yet: run `gpuprices run --offline` or `gpuprices build`")
    return connection


def assumptions(connection: duckdb.DuckDBPyConnection) -> dict[str, float]:
    return dict(connection.execute("SELECT name, value FROM monitoring.estimate_assumptions").fetchall())


def reference_model(connection: duckdb.DuckDBPyConnection, name: str) -> ModelShape:
    row = connection.execute(
        """
        SELECT name, total_params_b, active_params_b, training_tokens_b, layers, d_model, kv_values_per_token_per_layer,
               pretraining_sequence_length, num_experts, experts_per_token, post_trained_from
        FROM reference.reference_models
        WHERE lower(model_id) = lower($name) OR lower(name) = lower($name)
        """,
        {"name": name},
    ).fetchone()
    if row is None:
        known = [r[0] for r in connection.execute("SELECT model_id FROM reference.reference_models ORDER BY 1").fetchall()]
        raise EstimateError(f"no reference model {name!r}; known: {', '.join(known)}")
    (label, total_b, active_b, tokens_b, layers, d_model, kv_values, sequence_length, num_experts, experts_per_token,
     post_trained_from) = row
    return ModelShape(
        name=label, total_params=total_b * 1e9, active_params=active_b * 1e9,
        tokens=tokens_b * 1e9 if tokens_b is not None else None,
        layers=layers, d_model=d_model, kv_values_per_token_per_layer=kv_values, sequence_length=sequence_length,
        num_experts=num_experts, experts_per_token=experts_per_token, post_trained_from=post_trained_from,
    )


def resolve_gpu(connection: duckdb.DuckDBPyConnection, name: str) -> str:
    """A canonical id, or any spelling a spec sheet or a cloud uses ('H100-80GB', 'A100 40GB', 'A100 SXM4 40 GB',
    'Tesla T4'). Shorthand that names several variants ('A100') takes the estimate scope (resolve_typed)."""
    known = {r[0] for r in connection.execute("SELECT gpu_id FROM marts.gpus").fetchall()}
    gpu_id = resolve_typed(name, known)
    if gpu_id is None:
        raise EstimateError(f"unknown GPU {name!r}: not a canonical id, an alias (models/seeds/gpu_aliases.csv) "
                            "or a model name we know (`gpuprices sql \"select gpu_id from marts.gpus\"`)")
    return gpu_id


# Today's credible rental prices and purchase price of each GPU, beside its specs and the cluster it forms
# (marts.gpu_plan_inputs_daily). Today is the warehouse's newest price day: the sources still reporting (a failed
# one's last snapshot is carried a few days); a GPU whose prices ended earlier (an imported history of 2018) has no
# price today. Suspect prices are already out. {rental}: the rental columns' prefix: '' (cloud and marketplace together: one
# machine to serve from) or 'cloud_' (a training cluster is rented from a cloud, never from marketplace asks).
_GPU_PRICES = """
    WITH today AS (SELECT max(price_date) AS price_date FROM marts.gpu_plan_inputs_daily),
    -- `--term`: the day's cheapest credible commitment price ($term_market reserved_1y / reserved_3y; NULL: none)
    -- with the size that price is sold at (marts.gpu_commitment_prices_daily: a cluster rate's smallest cluster)
    committed AS (
        SELECT gpu_id, committed_usd_per_gpu_hour AS credible_min_price_usd, committed_provider AS credible_min_provider,
               committed_source AS credible_min_source, is_synthetic, min_gpus
        FROM marts.gpu_commitment_prices_daily JOIN today USING (price_date)
        WHERE market = $term_market
    )
    SELECT
        inputs.gpu_id, inputs.name, inputs.vendor, inputs.architecture, inputs.efficiency_family, inputs.memory_gib,
        inputs.memory_bandwidth_gbps, inputs.fp32_tflops, inputs.bf16_dense_tflops, inputs.fp8_dense_tflops,
        inputs.tdp_w, inputs.launch_price_usd, inputs.has_fast_interconnect, inputs.spec_sources,
        CASE $precision WHEN 'fp8' THEN inputs.fp8_dense_tflops ELSE inputs.bf16_dense_tflops END AS dense_peak_tflops,
        inputs.rental_price_date AS price_date,  -- NULL: no rental price today (its row says so)
        inputs.{rental}on_demand_cheapest_usd_per_gpu_hour AS on_demand_cheapest_usd_per_gpu_hour,
        inputs.{rental}on_demand_median_usd_per_gpu_hour AS on_demand_median_usd_per_gpu_hour,
        inputs.{rental}spot_cheapest_usd_per_gpu_hour AS spot_cheapest_usd_per_gpu_hour,
        inputs.{rental}spot_median_usd_per_gpu_hour AS spot_median_usd_per_gpu_hour,
        coalesce(inputs.{rental}on_demand_provider_count, 0) AS on_demand_provider_count,
        inputs.{rental}on_demand_cheapest_provider AS on_demand_cheapest_provider,
        inputs.{rental}on_demand_cheapest_source AS on_demand_cheapest_source,
        coalesce(inputs.{rental}rental_is_synthetic, false) AS rental_is_synthetic,
        inputs.purchase_price_usd, inputs.purchase_price_basis,
        coalesce(inputs.purchase_is_synthetic, false) AS purchase_is_synthetic,
        committed.credible_min_price_usd AS committed_cheapest_usd_per_gpu_hour,
        committed.credible_min_provider AS committed_cheapest_provider,
        committed.credible_min_source AS committed_cheapest_source,
        coalesce(committed.min_gpus, 1) AS committed_min_gpus,
        coalesce(committed.is_synthetic, false) AS committed_is_synthetic,
        coalesce(inputs.training_node_gpus, 1) AS training_node_gpus,
        coalesce(inputs.max_training_gpus, 1) AS max_training_gpus,
        coalesce(inputs.serving_node_gpus, 1) AS serving_node_gpus,
        coalesce(inputs.max_serving_gpus, 1) AS max_serving_gpus,
        coalesce(inputs.scale_out_network, 'none') AS scale_out_network
    FROM marts.gpu_plan_inputs_daily AS inputs JOIN today USING (price_date)
    LEFT JOIN committed USING (gpu_id)
    WHERE ($gpu IS NULL OR inputs.gpu_id = $gpu)
"""

_TRAINING = f"""
    WITH gpus AS ({_GPU_PRICES.format(rental='cloud_')}),
    sized AS (
        SELECT gpus.*,
            formulas.training_flops($active_params, $tokens, $recompute,
                formulas.attention_flops_per_token($layers, $d_model, $sequence_length)) AS flops,
            formulas.min_training_gpus($total_params, coalesce($layers, 0), coalesce($d_model, 0), $recompute, memory_gib)
                AS min_gpus
        FROM gpus WHERE dense_peak_tflops IS NOT NULL
    ),
    -- the plan: formulas.training_plan, the assembly marts.training_cost_daily runs, or the stated --gpus / --mfu
    judged AS (
        SELECT sized.*, plan.*,
            CASE WHEN $mfu IS NULL THEN formulas.efficiency_basis(efficiency_family) ELSE 'stated' END
                AS efficiency_basis
        FROM sized
        CROSS JOIN LATERAL formulas.training_plan(
            sized.flops, sized.dense_peak_tflops, sized.min_gpus, sized.efficiency_family, $precision,
            formulas.model_width($d_model, $active_params), sized.bf16_dense_tflops, sized.memory_bandwidth_gbps,
            $total_params > $active_params, sized.has_fast_interconnect, sized.training_node_gpus,
            sized.max_training_gpus, sized.scale_out_network, $default_cluster_gpus, $max_days, $cluster_gpus,
            $mfu) AS plan
        WHERE sized.min_gpus IS NOT NULL
    ),
    -- the prices of the clouds that rent the plan's cluster as one job: the smallest size tier holding it
    -- (marts.gpu_cluster_prices_daily, as the training mart); the GPU's own cloud figures say who rents it at all
    priced AS (
        SELECT judged.* REPLACE (
                cluster.on_demand_cheapest_usd_per_gpu_hour AS on_demand_cheapest_usd_per_gpu_hour,
                cluster.on_demand_median_usd_per_gpu_hour AS on_demand_median_usd_per_gpu_hour,
                cluster.spot_cheapest_usd_per_gpu_hour AS spot_cheapest_usd_per_gpu_hour,
                cluster.spot_median_usd_per_gpu_hour AS spot_median_usd_per_gpu_hour,
                coalesce(cluster.on_demand_provider_count, 0) AS on_demand_provider_count,
                cluster.on_demand_cheapest_provider AS on_demand_cheapest_provider,
                cluster.on_demand_cheapest_source AS on_demand_cheapest_source,
                coalesce(cluster.is_synthetic, false) AS rental_is_synthetic),
            judged.on_demand_provider_count AS gpu_on_demand_provider_count,
            cluster.on_demand_cheapest_holds_by,
            -- `--available`: the cheapest offer of the tier its source said could be launched
            cluster.on_demand_available_cheapest_usd_per_gpu_hour AS cluster_available_usd_per_gpu_hour,
            cluster.on_demand_available_cheapest_provider AS cluster_available_provider,
            cluster.on_demand_available_cheapest_source AS cluster_available_source,
            coalesce(cluster.on_demand_available_provider_count, 0) AS cluster_available_provider_count
        FROM judged
        ASOF LEFT JOIN marts.gpu_cluster_prices_daily AS cluster
            ON cluster.price_date = judged.price_date AND cluster.gpu_id = judged.gpu_id
            AND judged.cluster_gpus <= cluster.up_to_gpus
    ),
    costed AS (
        SELECT *,
            CASE WHEN is_feasible THEN gpu_hours END AS costed_gpu_hours,
            formulas.training_unpriced_reason(is_feasible, on_demand_cheapest_usd_per_gpu_hour, cluster_gpus,
                                              gpu_on_demand_provider_count) AS unpriced_reason,
            -- the band the validation supports applies to the efficiency model, not to a stated MFU
            CASE WHEN $mfu IS NULL THEN formulas.error_band_low(1.0) END AS band_low,
            CASE WHEN $mfu IS NULL THEN formulas.error_band_high(1.0) END AS band_high
        FROM priced
    )
    SELECT
        gpu_id, name AS gpu_name, price_date, $precision AS precision, flops, dense_peak_tflops, mfu, efficiency_basis,
        efficiency_family, gpu_hours,
        gpu_hours * band_low AS gpu_hours_low, gpu_hours * band_high AS gpu_hours_high,
        CASE WHEN $mfu IS NULL THEN formulas.error_band_basis(efficiency_family) ELSE 'stated_mfu' END
            AS error_band_basis,
        band_low AS error_band_low, band_high AS error_band_high,
        min_gpus, training_node_gpus AS node_gpus, scale_out_network, max_training_gpus AS max_cluster_gpus,
        $max_days AS max_training_days, required_gpus, is_feasible, infeasible_reason,
        cluster_gpus, cluster_gpus >= min_gpus AS fits_in_memory,
        wall_clock_days,
        -- the band applies to the efficiency model, not to a stated MFU
        CASE WHEN $mfu IS NULL THEN wall_clock_days_high END AS wall_clock_days_high,
        on_demand_cheapest_usd_per_gpu_hour, on_demand_median_usd_per_gpu_hour, on_demand_provider_count,
        on_demand_cheapest_provider, on_demand_cheapest_source, on_demand_cheapest_holds_by,
        gpu_on_demand_provider_count, unpriced_reason, cluster_available_usd_per_gpu_hour,
        cluster_available_provider, cluster_available_source, cluster_available_provider_count,
        spot_cheapest_usd_per_gpu_hour, spot_median_usd_per_gpu_hour,
        costed_gpu_hours * on_demand_cheapest_usd_per_gpu_hour AS cost_usd_cheapest,
        costed_gpu_hours * band_low * on_demand_cheapest_usd_per_gpu_hour AS cost_usd_cheapest_low,
        costed_gpu_hours * band_high * on_demand_cheapest_usd_per_gpu_hour AS cost_usd_cheapest_high,
        costed_gpu_hours * on_demand_median_usd_per_gpu_hour AS cost_usd_median,
        costed_gpu_hours * band_low * on_demand_median_usd_per_gpu_hour AS cost_usd_median_low,
        costed_gpu_hours * band_high * on_demand_median_usd_per_gpu_hour AS cost_usd_median_high,
        costed_gpu_hours * spot_cheapest_usd_per_gpu_hour AS cost_usd_spot_cheapest,
        costed_gpu_hours * formulas.owned_usd_per_gpu_hour(purchase_price_usd, tdp_w) AS cost_usd_owned,
        purchase_price_usd, purchase_price_basis,
        -- `--term` (NULL without): the run's GPU-hours at the committed price (the rest of the term used by other
        -- work); the whole commitment of the cluster (every GPU, every hour of as many terms as the run needs);
        -- the share of it the run uses; and the share of hours at which committing beats the cheapest on-demand
        $term AS term, $term_days AS term_days,
        committed_cheapest_usd_per_gpu_hour, committed_cheapest_provider, committed_cheapest_source,
        committed_min_gpus,
        costed_gpu_hours * committed_cheapest_usd_per_gpu_hour AS cost_usd_committed,
        -- the commitment covers the cluster, and at least the size the price is sold at
        CASE WHEN is_feasible THEN greatest(cluster_gpus, committed_min_gpus) * committed_cheapest_usd_per_gpu_hour
            * 24 * $term_days * ceil(formulas.wall_clock_days(gpu_hours, cluster_gpus) / $term_days) END
            AS commitment_usd,
        CASE WHEN is_feasible AND committed_cheapest_usd_per_gpu_hour IS NOT NULL THEN
            gpu_hours / (greatest(cluster_gpus, committed_min_gpus) * 24 * $term_days
                * ceil(formulas.wall_clock_days(gpu_hours, cluster_gpus) / $term_days)) END AS commitment_utilisation,
        committed_cheapest_usd_per_gpu_hour / on_demand_cheapest_usd_per_gpu_hour AS break_even_utilisation,
        -- made up when any price behind a cost is (cost_usd_owned uses the purchase price), as the training mart says
        rental_is_synthetic OR purchase_is_synthetic OR ($term IS NOT NULL AND committed_is_synthetic) AS is_synthetic,
        rental_is_synthetic, purchase_is_synthetic, committed_is_synthetic
    FROM costed
    ORDER BY is_feasible DESC, CASE WHEN $term IS NULL THEN cost_usd_cheapest ELSE cost_usd_committed END NULLS LAST,
             gpu_hours, gpu_id  -- ties (the same GPU-hours on two memory sizes) in a stable order
"""

# The serving view: formulas.serving, the steps marts.inference_cost_daily runs (models/macros/create_formulas.sql),
# at today's prices; `--tokens-per-second` states the output throughput instead of the roofline's.
_INFERENCE = f"""
    WITH gpus AS ({_GPU_PRICES.format(rental='')}),
    throughput AS (
        SELECT gpus.*,
            serving.* EXCLUDE (output_tokens_per_second),
            coalesce($tokens_per_second, serving.output_tokens_per_second) AS output_tokens_per_second
        FROM gpus
        CROSS JOIN LATERAL formulas.serving(
            $total_params, $active_params, $num_experts, $experts_per_token, $layers, $d_model, $kv_values,
            $bytes_per_param, $prompt_tokens, $output_tokens, gpus.memory_gib, gpus.memory_bandwidth_gbps,
            gpus.dense_peak_tflops) AS serving
        WHERE gpus.dense_peak_tflops IS NOT NULL AND gpus.memory_bandwidth_gbps IS NOT NULL
    ),
    -- what one deployment can span on the GPU (int_gpu_clusters__daily, as marts.inference_cost_daily): one machine
    -- without a GPU fabric; more GPUs than that is no plan: it says why and has no price
    -- (formulas.serving_usd_per_million_tokens, the rule the mart prices by)
    judged AS (
        SELECT *,
            formulas.serving_infeasible_reason(gpus, max_serving_gpus, has_fast_interconnect, scale_out_network)
                AS infeasible_reason,
            -- the band applies to the roofline estimate, not to a stated throughput
            CASE WHEN $tokens_per_second IS NULL THEN formulas.error_band_low(1.0) END AS band_low,
            CASE WHEN $tokens_per_second IS NULL THEN formulas.error_band_high(1.0) END AS band_high
        FROM throughput
    )
    SELECT
        gpu_id, name AS gpu_name, price_date, $prompt_tokens AS prompt_tokens, $output_tokens AS output_tokens,
        weight_bytes, kv_cache_bytes, gpus AS min_gpus, serving_node_gpus AS node_gpus, max_serving_gpus,
        gpus <= max_serving_gpus AS is_feasible, infeasible_reason, batch_size, batch_limited_by,
        CASE WHEN $tokens_per_second IS NULL THEN throughput_bound ELSE 'stated' END AS throughput_bound,
        ms_per_output_token,
        output_tokens_per_second, input_tokens_per_second,
        on_demand_cheapest_usd_per_gpu_hour, on_demand_median_usd_per_gpu_hour, on_demand_provider_count,
        on_demand_cheapest_provider, on_demand_cheapest_source,
        formulas.serving_usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus,
            input_tokens_per_second)
            AS usd_per_million_input_tokens_cheapest,
        formulas.serving_usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus,
            output_tokens_per_second)
            AS usd_per_million_output_tokens_cheapest,
        formulas.serving_usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus,
            output_tokens_per_second) * band_low
            AS usd_per_million_output_tokens_cheapest_low,
        formulas.serving_usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus,
            output_tokens_per_second) * band_high
            AS usd_per_million_output_tokens_cheapest_high,
        CASE WHEN $tokens_per_second IS NULL THEN 'training_runs_carried_over' ELSE 'stated_throughput' END
            AS error_band_basis,
        band_low AS error_band_low, band_high AS error_band_high,
        formulas.serving_usd_per_million_tokens(on_demand_median_usd_per_gpu_hour, gpus, max_serving_gpus,
            input_tokens_per_second)
            AS usd_per_million_input_tokens_median,
        formulas.serving_usd_per_million_tokens(on_demand_median_usd_per_gpu_hour, gpus, max_serving_gpus,
            output_tokens_per_second)
            AS usd_per_million_output_tokens_median,
        -- `--term` (NULL without): served every hour of the term at the committed price
        $term AS term, $term_days AS term_days,
        committed_cheapest_usd_per_gpu_hour, committed_cheapest_provider, committed_cheapest_source,
        committed_min_gpus,
        -- a price sold at more GPUs than the model needs commits them all: the idle ones are paid for too
        formulas.serving_usd_per_million_tokens(committed_cheapest_usd_per_gpu_hour
                * greatest(gpus, committed_min_gpus) / gpus, gpus, max_serving_gpus, input_tokens_per_second)
            AS usd_per_million_input_tokens_committed,
        formulas.serving_usd_per_million_tokens(committed_cheapest_usd_per_gpu_hour
                * greatest(gpus, committed_min_gpus) / gpus, gpus, max_serving_gpus, output_tokens_per_second)
            AS usd_per_million_output_tokens_committed,
        committed_cheapest_usd_per_gpu_hour / on_demand_cheapest_usd_per_gpu_hour AS break_even_utilisation,
        rental_is_synthetic OR ($term IS NOT NULL AND committed_is_synthetic) AS is_synthetic, rental_is_synthetic,
        committed_is_synthetic
    FROM judged
    ORDER BY gpus <= max_serving_gpus DESC,
             CASE WHEN $term IS NULL THEN usd_per_million_output_tokens_cheapest
                  ELSE usd_per_million_output_tokens_committed END NULLS LAST, min_gpus, gpu_id
"""

_WEIGHT_BYTES = {"bf16": 2.0, "fp8": 1.0, "int4": 0.5}


def estimate(request: EstimateRequest) -> list[dict]:
    """Rows best first (cheapest on-demand cost, GPUs without a price last); one row when request.gpu is set."""
    if request.precision not in _WEIGHT_BYTES or (request.precision == "int4" and not request.inference):
        raise EstimateError("precision: bf16 or fp8 for training; bf16, fp8 or int4 (weights) with --inference")
    if request.term is not None and request.term not in TERMS:
        raise EstimateError(f"term: one of {', '.join(TERMS)}, got {request.term!r}")
    with open_warehouse() as connection:
        defaults = assumptions(connection)
        gpu = resolve_gpu(connection, request.gpu) if request.gpu else None
        rows = _estimate_rows(connection, request, gpu, defaults)
    if gpu and not rows:
        raise EstimateError(f"{gpu}: no {request.precision} dense peak or memory figures in the spec table")
    for row in rows:
        row["model"] = request.model.name
        row["activations_counted"] = bool(request.model.layers and request.model.d_model) or request.inference
        age = age_of(row["price_date"])  # by the clock (warehouse/store/freshness.py): a months-old price says so
        row["price_age_days"], row["price_is_stale"] = (age.days, age.is_stale) if age else (None, None)
    return rows


def _estimate_rows(connection: duckdb.DuckDBPyConnection, request: EstimateRequest, gpu: str | None,
                   defaults: dict[str, float]) -> list[dict]:
    model = request.model
    term_market, term_days = TERMS[request.term] if request.term else (None, None)
    common = {"gpu": gpu, "precision": "fp8" if request.precision == "fp8" else "bf16",
              "total_params": model.total_params, "active_params": model.active_params,
              "layers": model.layers, "d_model": model.d_model,
              "term": request.term, "term_market": term_market, "term_days": term_days}
    if request.inference:
        if model.layers is None or model.kv_values_per_token_per_layer is None:
            raise EstimateError("serving needs the KV cache shape: pass --layers and --kv-values (or use --model)")
        sql, parameters = _INFERENCE, {
            **common, "bytes_per_param": _WEIGHT_BYTES[request.precision],
            "kv_values": model.kv_values_per_token_per_layer,
            "num_experts": model.num_experts, "experts_per_token": model.experts_per_token,
            "prompt_tokens": request.prompt_tokens or int(defaults["inference_prompt_tokens"]),
            "output_tokens": request.output_tokens or int(defaults["inference_output_tokens"]),
            "tokens_per_second": request.tokens_per_second,
        }
    else:
        if model.tokens is None and model.post_trained_from:
            raise EstimateError(f"{model.name}: post-trained from {model.post_trained_from}, on data whose token "
                                "count is not published (its base's pre-training is not its cost); pass --tokens")
        if model.tokens is None:
            raise EstimateError(f"{model.name}: no training token count; pass --tokens")
        sql, parameters = _TRAINING, {
            **common, "tokens": model.tokens, "recompute": request.recompute,
            "sequence_length": model.sequence_length or int(defaults["training_sequence_length"]),
            "cluster_gpus": request.cluster_gpus, "default_cluster_gpus": int(defaults["training_cluster_gpus"]),
            "mfu": request.mfu, "max_days": request.max_days or defaults["training_max_days"],
        }
    return db.fetch_dicts(connection, sql, parameters)


def _money(value) -> str:
    return "-" if value is None else f"${float(value):,.0f}" if float(value) >= 100 else f"${float(value):,.2f}"


def _short_money(value: float) -> str:
    """$4.1M, $850K, $0.26: a band's ends, short enough to sit beside the figure."""
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if value >= scale:
            return f"${value / scale:,.1f}{suffix}"
    return f"${value:,.2f}" if value >= 0.1 else f"${value:,.4f}"


def _band(low, high) -> str:
    return "-" if low is None or high is None else f"{_short_money(float(low))}-{_short_money(float(high))}"


# (header, width, cell) per view: what a person reads, rounded.
_TEXT_COLUMNS = {
    "training": [
        ("GPU", -20, lambda r: r["gpu_id"]),
        ("GPU-hours", 12, lambda r: f"{r['gpu_hours']:,.0f}"),
        ("min GPUs", 8, lambda r: r["min_gpus"]),
        ("cluster", 7, lambda r: r["cluster_gpus"]),
        ("days", 8, lambda r: "-" if r["wall_clock_days"] is None else f"{r['wall_clock_days']:,.1f}"),
        ("MFU", 5, lambda r: f"{r['mfu']:.2f}"),
        ("basis", -10, lambda r: r["efficiency_basis"]),
        ("cost cheapest", 14, lambda r: _money(r["cost_usd_cheapest"])),
        ("band", 17, lambda r: _band(r["cost_usd_cheapest_low"], r["cost_usd_cheapest_high"])),
        # the median across providers (one price per provider), not across offers: int_gpu_prices__rental_daily
        ("cost at providers' median", 25, lambda r: _money(r["cost_usd_median"])),
    ],
    "serving": [
        ("GPU", -20, lambda r: r["gpu_id"]),
        ("GPUs", 5, lambda r: r["min_gpus"]),
        ("batch", 5, lambda r: r["batch_size"]),
        ("bound", -9, lambda r: r["throughput_bound"]),
        ("out tok/s", 10, lambda r: f"{r['output_tokens_per_second']:,.0f}"),
        ("$/M in", 8, lambda r: _money(r["usd_per_million_input_tokens_cheapest"])),
        ("$/M out", 8, lambda r: _money(r["usd_per_million_output_tokens_cheapest"])),
        ("band", 13, lambda r: _band(r["usd_per_million_output_tokens_cheapest_low"],
                                     r["usd_per_million_output_tokens_cheapest_high"])),
        ("$/M out at providers' median", 28, lambda r: _money(r["usd_per_million_output_tokens_median"])),
    ],
}


# `--term`: the committed figures beside the on-demand ones ({term}: 1y or 3y)
_TERM_COLUMNS = {
    "training": [
        ("cost {term}", 12, lambda r: _money(r["cost_usd_committed"])),
        ("commit {term}", 13, lambda r: _money(r["commitment_usd"])),
        ("used", 5, lambda r: "-" if r["commitment_utilisation"] is None else f"{r['commitment_utilisation']:.0%}"),
        ("break-even", 10, lambda r: "-" if r["break_even_utilisation"] is None
         else f"{float(r['break_even_utilisation']):.0%}"),
    ],
    "serving": [
        ("$/M out {term}", 12, lambda r: _money(r["usd_per_million_output_tokens_committed"])),
        ("break-even", 10, lambda r: "-" if r["break_even_utilisation"] is None
         else f"{float(r['break_even_utilisation']):.0%}"),
    ],
}


def _cells(values, columns) -> str:
    return " ".join(f"{value!s:<{-width}}" if width < 0 else f"{value!s:>{width}}"
                    for value, (_, width, _) in zip(values, columns, strict=True))


def format_rows(rows: list[dict], inference: bool) -> str:
    """Rounded for people; the JSON output keeps full precision."""
    view = "serving" if inference else "training"
    term = rows[0].get("term") if rows else None
    columns = _TEXT_COLUMNS[view] + (
        [(header.format(term=term), width, cell) for header, width, cell in _TERM_COLUMNS[view]] if term else [])
    lines = [_cells([header for header, _, _ in columns], columns) + "  prices of"]
    for row in rows:
        notes = [str(row["price_date"] or "no price today")
                 + (f" ({row['price_age_days']} days old: stale)" if row.get("price_is_stale") else "")]
        if row.get("on_demand_cheapest_provider"):  # the offer behind the cheapest cost
            notes.append(f"cheapest: {row['on_demand_cheapest_provider']} via {row['on_demand_cheapest_source']} "
                         f"at ${float(row['on_demand_cheapest_usd_per_gpu_hour']):,.2f}/GPU-h"
                         + (" (nodes with a cluster network)"
                            if row.get("on_demand_cheapest_holds_by") == "cluster_network" else ""))
        if row.get("on_demand_provider_count") == 1:
            notes.append("(1 provider)")  # one provider's price, not a market
        if term:
            minimum = row.get("committed_min_gpus") or 1
            notes.append(f"{term}: {row['committed_cheapest_provider']} at "
                         f"${float(row['committed_cheapest_usd_per_gpu_hour']):,.2f}/GPU-h"
                         + (f" (sold at {minimum:,} GPUs or more)" if minimum > 1 else "")
                         if row.get("committed_cheapest_provider") else f"{term}: no commitment price")
        if not row["is_feasible"]:
            notes.append(f"infeasible: {row['infeasible_reason']}")
        elif row.get("unpriced_reason"):
            notes.append(f"unpriced: {row['unpriced_reason']}")
        elif inference and row["min_gpus"] > 1:
            notes.append(f"({row['min_gpus']} GPUs of machines of {row['node_gpus']})")
        if row["is_synthetic"]:
            made_up = [what for what, flag in (("rental prices", row.get("rental_is_synthetic")),
                                               ("purchase price", row.get("purchase_is_synthetic")),
                                               ("commitment price", term and row.get("committed_is_synthetic")))
                       if flag]
            notes.append(f"(synthetic: {', '.join(made_up)})")
        lines.append(_cells([cell(row) for _, _, cell in columns], columns) + "  " + "  ".join(notes))
    band = next((row for row in rows if row.get("error_band_low") is not None), None)
    if band:
        what = "GPU-hours, days and cost" if not inference else "GPU time per token (a band carried over from training: no serving run is validated)"
        lines.append(f"band: {band['error_band_low']:.2f}x-{band['error_band_high']:.2f}x the estimate, the published "
                     f"runs' actual/estimated GPU-hours out of sample (leave-one-out over the 12 runs of "
                     f"`gpuprices estimate --validate`), on {what}")
    if not inference and rows:
        lines.append(f"plans: finish within {rows[0]['max_training_days']:g} days on the cluster the GPU can form "
                     "today (its machines, its cluster network, the largest cluster sold); infeasible ones have no cost; "
                     "a plan is priced at the clouds that rent its cluster as one job (one machine that large, or "
                     "nodes sold with InfiniBand, RoCE or EFA)")
    if rows and not rows[0]["activations_counted"]:
        lines.append("activations not counted in min GPUs: pass --layers and --d-model to include them")
    if term and not inference:
        lines.append(f"cost {term}: the run's GPU-hours at the cheapest {term} commitment (the rest of the term used "
                     f"by other work); commit {term}: the whole commitment of the cluster, used: the share the run "
                     "fills; break-even: the share of hours at which committing beats the cheapest on-demand")
    elif term:
        lines.append(f"$/M out {term}: served every hour of the cheapest {term} commitment; break-even: the share of "
                     "hours at which committing beats the cheapest on-demand")
    return "\n".join(lines)


def model_for(reference: str | None = None, params: str | None = None, active_params: str | None = None,
              tokens: str | None = None, layers: int | None = None, d_model: int | None = None,
              kv_values: int | None = None, sequence_length: int | None = None) -> ModelShape:
    """The model an estimate is for: a reference model by id or name (its tokens optionally overridden), or a shape
    given by its parameter count."""
    if reference:
        if params or active_params:
            raise EstimateError("--model takes its parameters from the reference table; drop --params")
        with open_warehouse() as connection:
            model = reference_model(connection, reference)
        if tokens:
            model.tokens = parse_count(tokens, "--tokens")
        if sequence_length:
            model.sequence_length = sequence_length
        return model
    if not params:
        raise EstimateError("give --model NAME (a reference model) or --params N --tokens D")
    total = parse_count(params, "--params")
    return ModelShape(
        name=f"{params} parameters", total_params=total,
        active_params=parse_count(active_params, "--active-params") if active_params else total,
        tokens=parse_count(tokens, "--tokens") if tokens else None,
        layers=layers, d_model=d_model, kv_values_per_token_per_layer=kv_values, sequence_length=sequence_length,
    )


# -- what a renter pays and can get (issue 42): `--available`, `--data-tb`, `--egress-tb`, spot restarts ---------
# Kept apart from the formulas above: each adds columns to the rows `estimate` made, from the renter marts.

# A training checkpoint keeps bf16 weights (2 bytes), fp32 master weights (4) and Adam's two moments (8) per
# parameter: 14 bytes a parameter, one checkpoint kept for the run (docs/analytics.md#all-in-cost).
CHECKPOINT_BYTES_PER_PARAM = 14
HOURS_PER_MONTH = 730  # as the price lists count a month
GPUS_PER_NODE = 8  # an interruption stops one node: a job restarts when any of its nodes is interrupted
# Spot interruptions, where no figure is published for the provider: AWS's Spot Instance Advisor bands, the one
# published scale (share of a type's instances interrupted in a month): the lowest band's top (5%) and the top of
# the highest bounded band (20%) as the range. RESTART_HOURS: time to restart from a checkpoint (an assumption).
SPOT_INTERRUPTIONS_PER_MONTH = (0.05, 0.20)
RESTART_HOURS = 0.25


@dataclass
class RenterOptions:
    available: bool = False          # also price at the cheapest offer its source said could be launched
    data_tb: float | None = None     # TB stored for the run (data set); checkpoints are added for training
    egress_tb: float | None = None   # TB sent out of the provider (results, checkpoints to elsewhere)
    checkpoint_hours: float | None = None  # spot restarts: hours between checkpoints (default 1; half is lost)

    def wanted(self) -> bool:
        return (self.available or self.data_tb is not None or self.egress_tb is not None
                or self.checkpoint_hours is not None)


_AVAILABLE = """
    WITH today AS (SELECT max(price_date) AS price_date FROM marts.gpu_cheapest_available_daily)
    SELECT gpu_id, market, cheapest_available_usd, cheapest_available_provider, cheapest_available_source,
           cheapest_listed_usd, cheapest_listed_provider, cheapest_listed_availability, available_provider_count,
           unknown_provider_count, is_synthetic, price_date
    FROM marts.gpu_cheapest_available_daily JOIN today USING (price_date)
    WHERE market IN ('on_demand', 'marketplace_on_demand')
"""

_RENTAL_COSTS = """
    SELECT provider, applies_to, storage_product, storage_usd_per_tb_month, egress_usd_per_tb,
           billing_increment_seconds, minimum_rental_hours, min_rental_gpus, max_rental_gpus, as_of, source_url
    FROM marts.provider_rental_costs
"""


def renter_costs(rows: list[dict], request: EstimateRequest, options: RenterOptions) -> list[dict]:
    """Adds to each estimate row: the cheapest available price and the cost at it (`--available`), the job's storage
    and egress at its provider's published prices (`--data-tb`, `--egress-tb`; the range over the providers that
    publish them where its own does not), and for training the spot cost with the expected restarts as a range."""
    with open_warehouse() as connection:
        available = _available_prices(connection) if options.available else {}
        costs = db.fetch_dicts(connection, _RENTAL_COSTS)
    for row in rows:
        if options.available:
            add_available(row, available, request.inference)
        if options.data_tb is not None or options.egress_tb is not None:
            add_all_in(row, request, options, costs)
        if not request.inference:
            add_spot_restarts(row, options.checkpoint_hours or 1.0)
    return rows


def _available_prices(connection) -> dict[tuple[str, str], dict]:
    return {(row["gpu_id"], row["market"]): row for row in db.fetch_dicts(connection, _AVAILABLE)}


def add_available(row: dict, available: dict, inference: bool) -> None:
    """Training rents its cluster from a cloud that rents it as one job (the plan's size tier, the cheapest offer
    its source said could be launched); one serving machine may be a marketplace's ask too."""
    markets = ("on_demand", "marketplace_on_demand") if inference else ("on_demand",)
    found = [available[(row["gpu_id"], market)] for market in markets if (row["gpu_id"], market) in available]
    if not inference:  # the plan's tier, not the GPU's whole market: a 1,024-GPU run is no single-GPU VM
        market = found[0] if found else {}
        found = [{"cheapest_available_usd": row.get("cluster_available_usd_per_gpu_hour"),
                  "cheapest_available_provider": row.get("cluster_available_provider"),
                  "cheapest_available_source": row.get("cluster_available_source"),
                  "available_provider_count": row.get("cluster_available_provider_count") or 0,
                  "unknown_provider_count": market.get("unknown_provider_count", 0),
                  "is_synthetic": row.get("rental_is_synthetic")}]
    priced = sorted((f for f in found if f["cheapest_available_usd"] is not None),
                    key=lambda f: f["cheapest_available_usd"])
    best = priced[0] if priced else None
    row["available_usd_per_gpu_hour"] = best and best["cheapest_available_usd"]
    row["available_provider"] = best and best["cheapest_available_provider"]
    row["available_source"] = best and best["cheapest_available_source"]
    row["available_provider_count"] = sum(f["available_provider_count"] for f in found)
    row["unknown_provider_count"] = sum(f["unknown_provider_count"] for f in found)
    row["available_is_synthetic"] = bool(best and best["is_synthetic"])
    # a row any figure of which is made up says so (the available price is one of its figures now)
    row["is_synthetic"] = bool(row.get("is_synthetic")) or row["available_is_synthetic"]
    price = row["available_usd_per_gpu_hour"]
    if inference:
        cheapest = row.get("on_demand_cheapest_usd_per_gpu_hour")
        out = row.get("usd_per_million_output_tokens_cheapest")
        # cost per token is linear in the GPU-hour price
        row["usd_per_million_output_tokens_available"] = (
            None if price is None or not cheapest or out is None else float(out) * float(price) / float(cheapest))
    else:
        row["cost_usd_available"] = None if price is None else row["gpu_hours"] * float(price)


def published_figure(costs: list[dict], provider: str | None, column: str) -> tuple[float | None, float | None, str]:
    """(value, value) of the provider's own published figure, else the (lowest, highest) of the providers that
    publish one, and where it came from."""
    own = [c for c in costs if c["provider"] == provider and c[column] is not None]
    if own:
        return float(own[0][column]), float(own[0][column]), f"{provider}'s price page of {own[0]['as_of']}"
    others = [float(c[column]) for c in costs if c[column] is not None]
    if not others:
        return None, None, "no provider publishes one"
    names = sorted({c["provider"] for c in costs if c[column] is not None})
    return min(others), max(others), (f"{provider or 'the provider'} publishes none: the range of "
                                      f"{', '.join(names)}")


def billed_hours(costs: list[dict], provider: str | None, rental_gpus: int, hours: float) -> tuple[float, str]:
    """(hours billed per GPU, why): the run's hours rounded up to the provider's billing increment and raised to its
    minimum rental, from its price page's row for rentals of that many GPUs. Nothing published: the hours as they
    are, and the basis says so (per-second to hourly billing adds at most an hour a GPU)."""
    rows = [c for c in costs if c["provider"] == provider
            and (c.get("min_rental_gpus") is None or c["min_rental_gpus"] <= rental_gpus)
            and (c.get("max_rental_gpus") is None or rental_gpus <= c["max_rental_gpus"])]
    increment = next((c["billing_increment_seconds"] for c in rows if c.get("billing_increment_seconds")), None)
    minimum = next((float(c["minimum_rental_hours"]) for c in rows if c.get("minimum_rental_hours") is not None),
                   None)
    billed = hours if increment is None else math.ceil(hours * 3600 / increment - 1e-9) * increment / 3600
    billed = max(billed, minimum or 0.0)
    said = [f"billed per {increment} s" if increment else "", f"{minimum:g} h minimum" if minimum else ""]
    said = ", ".join(part for part in said if part)
    return billed, (f"{provider}'s price page: {said}" if said else
                    f"{provider or 'the provider'} publishes no billing increment or minimum: hours as run")


def add_all_in(row: dict, request: EstimateRequest, options: RenterOptions, costs: list[dict]) -> None:
    """GPU-hours + storage for the run's length + egress, at the provider of the GPU price used: the cheapest
    available one with --available where there is one, else the cheapest listed (all_in_price_basis says which).
    Serving is priced for one month (730 hours) of the minimum GPUs."""
    use_available = options.available and row.get("available_usd_per_gpu_hour") is not None
    provider = row.get("available_provider") if use_available else row.get("on_demand_cheapest_provider")
    price = row.get("available_usd_per_gpu_hour") if use_available else row.get("on_demand_cheapest_usd_per_gpu_hour")
    if request.inference:
        months = 1.0
        gpu_cost = None if price is None else float(price) * row["min_gpus"] * HOURS_PER_MONTH
        checkpoint_tb = 0.0
        rented_gpus, hours = row["min_gpus"], HOURS_PER_MONTH
    else:
        # an infeasible plan has no run length, so no storage months: its all-in cost stays unknown
        months = None if row["wall_clock_days"] is None else row["wall_clock_days"] * 24 / HOURS_PER_MONTH
        gpu_cost = row.get("cost_usd_available") if use_available else row.get("cost_usd_cheapest")
        checkpoint_tb = request.model.total_params * CHECKPOINT_BYTES_PER_PARAM / 1e12
        rented_gpus = row["cluster_gpus"]
        hours = None if row["wall_clock_days"] is None else row["wall_clock_days"] * 24
    # the provider bills whole increments and at least its minimum rental: the GPUs are paid for those hours
    if hours is None or rented_gpus is None:
        row["billed_hours_per_gpu"], row["billing_usd"], row["billing_basis"] = None, None, "no run length"
    else:
        billed, row["billing_basis"] = billed_hours(costs, provider, min(rented_gpus, GPUS_PER_NODE), hours)
        row["billed_hours_per_gpu"] = billed
        row["billing_usd"] = None if price is None else (billed - hours) * rented_gpus * float(price)
    stored_tb = (options.data_tb or 0.0) + checkpoint_tb
    storage_low, storage_high, storage_basis = published_figure(costs, provider, "storage_usd_per_tb_month")
    egress_low, egress_high, egress_basis = published_figure(costs, provider, "egress_usd_per_tb")
    egress_tb = options.egress_tb or 0.0
    row["all_in_price_basis"] = "available" if use_available else "listed"
    row["all_in_provider"] = provider
    row["all_in_gpu_usd"] = gpu_cost
    row["stored_tb"] = stored_tb
    row["checkpoint_tb"] = checkpoint_tb
    row["storage_usd_low"] = None if storage_low is None or months is None else stored_tb * storage_low * months
    row["storage_usd_high"] = None if storage_high is None or months is None else stored_tb * storage_high * months
    row["storage_basis"] = storage_basis
    row["egress_usd_low"] = None if egress_low is None else egress_tb * egress_low
    row["egress_usd_high"] = None if egress_high is None else egress_tb * egress_high
    row["egress_basis"] = egress_basis
    known = gpu_cost is not None and months is not None and (stored_tb == 0 or storage_low is not None) and (
        egress_tb == 0 or egress_low is not None)
    billing = row["billing_usd"] or 0.0
    row["all_in_usd_low"] = (float(gpu_cost) + billing + (row["storage_usd_low"] or 0) + (row["egress_usd_low"] or 0)
                             if known else None)
    row["all_in_usd_high"] = (float(gpu_cost) + billing + (row["storage_usd_high"] or 0)
                              + (row["egress_usd_high"] or 0) if known else None)


def add_spot_restarts(row: dict, checkpoint_hours: float) -> None:
    """The run at the cheapest spot price with the work lost to interruptions, as a range: a job of `nodes` nodes
    restarts when any node is interrupted (p a month each: SPOT_INTERRUPTIONS_PER_MONTH), loses on average half a
    checkpoint interval plus a restart each time; the lost hours are paid for too."""
    spot = row.get("cost_usd_spot_cheapest")
    if row["wall_clock_days"] is None or row["cluster_gpus"] is None:  # infeasible: no run to interrupt
        row["spot_restarts_low"] = row["spot_restarts_high"] = None
        row["cost_usd_spot_low"] = row["cost_usd_spot_high"] = None
        return
    nodes = math.ceil(row["cluster_gpus"] / GPUS_PER_NODE)
    hours = row["wall_clock_days"] * 24
    lost_per_restart = checkpoint_hours / 2 + RESTART_HOURS
    restarts = [nodes * p / HOURS_PER_MONTH * hours for p in SPOT_INTERRUPTIONS_PER_MONTH]
    row["spot_restarts_low"], row["spot_restarts_high"] = restarts
    shares = [n * lost_per_restart / hours if hours else 0.0 for n in restarts]
    row["cost_usd_spot_low"] = None if spot is None else float(spot) * (1 + shares[0])
    row["cost_usd_spot_high"] = None if spot is None else float(spot) * (1 + shares[1])


def format_renter(rows: list[dict], request: EstimateRequest, options: RenterOptions) -> str:
    """The renter figures of the ten best rows (every row with --gpu), one line per GPU, and what they rest on."""
    lines = []
    for row in rows[:10] if not request.gpu else rows:
        if row.get("price_date") is None:
            continue
        parts = [f"{row['gpu_id']}:"]
        if options.available:
            if row.get("available_usd_per_gpu_hour") is None:
                parts.append(f"available: none said ({row.get('unknown_provider_count', 0)} of its providers say nothing "
                             "of stock)")
            else:
                cost = (row.get("usd_per_million_output_tokens_available") if request.inference
                        else row.get("cost_usd_available"))
                parts.append(f"available: {row['available_provider']} ${float(row['available_usd_per_gpu_hour']):,.2f}"
                             f"/GPU-h -> {_money(cost)}{'/M out' if request.inference else ''}")
        if "all_in_usd_low" in row:
            parts.append(f"all in at {row['all_in_price_basis']} {row['all_in_provider']}: "
                         f"{_range(row['all_in_usd_low'], row['all_in_usd_high'])} = GPUs "
                         f"{_money(row['all_in_gpu_usd'])}"
                         + (f" + billing {_money(row['billing_usd'])} ({row['billing_basis']})"
                            if row.get("billing_usd") else "")
                         + f" + storage {_range(row['storage_usd_low'], row['storage_usd_high'])}"
                         f" ({_basis(row['storage_basis'])}) + egress {_range(row['egress_usd_low'], row['egress_usd_high'])}"
                         f" ({_basis(row['egress_basis'])})")
        if not request.inference and row.get("cost_usd_spot_low") is not None:
            parts.append(f"spot with restarts: {_range(row['cost_usd_spot_low'], row['cost_usd_spot_high'])} "
                         f"({row['spot_restarts_low']:,.0f}-{row['spot_restarts_high']:,.0f} restarts)")
        if len(parts) > 1:
            lines.append("  ".join(parts) + ("  [SYNTHETIC inputs]" if row.get("is_synthetic") else ""))
    if "stored_tb" in (rows[0] if rows else {}):
        lines.append(f"all in: stored {rows[0]['stored_tb']:.2f} TB for the run"
                     + (f" ({rows[0]['checkpoint_tb']:.2f} TB: one checkpoint, {CHECKPOINT_BYTES_PER_PARAM} bytes a "
                        "parameter)" if rows[0]["checkpoint_tb"] else "")
                     + "; storage and egress at the provider's published price page (marts.provider_rental_costs), "
                       "or where it publishes none, the range of those that do; serving: one month")
    if not request.inference:
        low, high = SPOT_INTERRUPTIONS_PER_MONTH
        lines.append(f"spot with restarts: cheapest spot, each node interrupted {low:.0%}-{high:.0%} of months (AWS "
                     f"Spot Advisor bands; no provider's own figure), half of a {options.checkpoint_hours or 1.0:g}-h "
                     f"checkpoint interval + {RESTART_HOURS:g} h lost per restart")
    return "\n".join(lines)


def _basis(text: str) -> str:
    """published_figure's basis, short: "own page" or "range of a, b, c" (or "no provider publishes one")."""
    if "'s price page of " in text:
        return "own page"
    return text.split(": ", 1)[-1].replace("the range of ", "range of ")


def _range(low, high) -> str:
    if low is None or high is None:
        return "unknown"
    low_text, high_text = _money(low), _money(high)
    return low_text if low_text == high_text else f"{low_text}-{high_text}"  # "$1,815-$1,815" says one figure
