{{ config(
    schema='marts', materialized='incremental', incremental_strategy='delete+insert', unique_key='price_date'
) }}
-- Serving each reference model on each GPU, day by day: GPUs needed to hold the weights (FP16, FP8 or INT4)
-- plus the KV cache of the configured batch and context, the decode throughput that memory bandwidth (or compute)
-- allows, and dollars per million output tokens at that day's rental prices.
-- FP8 weights only on GPUs with FP8 tensor cores; INT4 is weight-only quantization computed in 16-bit.
with reference_models as (
    select * from {{ ref('reference_models') }}
),

weight_formats as (
    select * from (values ('fp16', 2.0), ('fp8', 1.0), ('int4', 0.5)) as formats(weight_precision, bytes_per_param)
),

gpu_formats as (
    select
        specs.*,
        weight_formats.weight_precision,
        weight_formats.bytes_per_param,
        case when weight_formats.weight_precision = 'fp8' then specs.fp8_dense_tflops else specs.bf16_dense_tflops end
            as dense_peak_tflops
    from {{ ref('int_gpu_specs') }} as specs
    cross join weight_formats
),

sized as (
    select
        rental.price_date,
        reference_models.model_id,
        gpu_formats.gpu_id,
        gpu_formats.weight_precision,
        {{ var('inference_context_tokens') }} as context_tokens,
        {{ var('inference_batch_size') }} as batch_size,
        formulas.weight_bytes(reference_models.total_params_b * 1e9, gpu_formats.bytes_per_param) as weight_bytes,
        formulas.kv_cache_bytes(
            reference_models.kv_values_per_token_per_layer, reference_models.layers,
            {{ var('inference_context_tokens') }}, {{ var('inference_batch_size') }}) as kv_cache_bytes,
        reference_models.active_params_b * 1e9 as active_params,
        gpu_formats.memory_gib,
        gpu_formats.memory_bandwidth_gbps,
        gpu_formats.dense_peak_tflops,
        rental.on_demand_cheapest_usd_per_gpu_hour,
        rental.on_demand_median_usd_per_gpu_hour,
        rental.spot_cheapest_usd_per_gpu_hour,
        rental.is_synthetic
    from {{ ref('int_gpu_prices__rental_daily') }} as rental
    inner join gpu_formats using (gpu_id)
    cross join reference_models
    where gpu_formats.dense_peak_tflops is not null
      and gpu_formats.memory_bandwidth_gbps is not null
      and {{ rebuilt_days_filter('rental.price_date') }}
),

served as (
    select
        *,
        formulas.inference_gpus(weight_bytes, kv_cache_bytes, memory_gib) as gpus
    from sized
),

throughput as (
    select
        *,
        formulas.decode_tokens_per_second(
            weight_bytes, kv_cache_bytes, active_params, batch_size, gpus, memory_bandwidth_gbps, dense_peak_tflops
        ) as output_tokens_per_second
    from served
)

select
    price_date,
    model_id,
    gpu_id,
    weight_precision,
    context_tokens,
    batch_size,
    weight_bytes,
    kv_cache_bytes,
    gpus,
    output_tokens_per_second,
    formulas.usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_on_demand_cheapest,
    formulas.usd_per_million_tokens(on_demand_median_usd_per_gpu_hour, gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_on_demand_median,
    formulas.usd_per_million_tokens(spot_cheapest_usd_per_gpu_hour, gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_spot_cheapest,
    is_synthetic
from throughput
