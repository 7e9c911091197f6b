{{ config(
    schema='marts', materialized='incremental', incremental_strategy='delete+insert', unique_key='price_date'
) }}
-- Serving each reference model on each GPU, day by day, as a serving engine would run it: the fewest GPUs that
-- hold the weights (FP16, FP8 or INT4) and one sequence's KV cache, the largest batch whose KV cache fits beside
-- them (at most inference_max_batch, each decode step within inference_max_ms_per_output_token), prefill of a
-- stated prompt per request, decode steps that read the weights the batch needs (for a mixture of experts, the
-- experts its tokens route to) and the KV cache, and dollars per million input and output tokens at that day's
-- rental prices. FP8 weights only on GPUs with FP8 tensor cores; INT4 is weight-only quantization computed in 16-bit.
-- Beside it, the cheapest API price of the same model that day (api_cheapest_*), to compare renting with paying
-- per token.
with reference_models as (
    select * from {{ ref('reference_models') }}
),

weight_formats as (
    select * from (values ('bf16', 2.0), ('fp8', 1.0), ('int4', 0.5)) as formats(weight_precision, bytes_per_param)
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
        gpu_formats.bytes_per_param,
        {{ var('inference_prompt_tokens') }} as prompt_tokens,
        {{ var('inference_output_tokens') }} as output_tokens,
        reference_models.total_params_b * 1e9 as total_params,
        reference_models.active_params_b * 1e9 as active_params,
        reference_models.num_experts,
        reference_models.experts_per_token,
        reference_models.layers,
        reference_models.d_model,
        formulas.weight_bytes(reference_models.total_params_b * 1e9, gpu_formats.bytes_per_param) as weight_bytes,
        formulas.kv_cache_bytes_per_token(reference_models.kv_values_per_token_per_layer, reference_models.layers)
            as kv_cache_bytes_per_token,
        -- the mean context of a decoding sequence: the prompt and half the output
        {{ var('inference_prompt_tokens') }} + {{ var('inference_output_tokens') }} / 2.0 as mean_context_tokens,
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
        formulas.inference_gpus(
            weight_bytes, kv_cache_bytes_per_token * (prompt_tokens + output_tokens), memory_gib) as gpus,
        formulas.forward_flops_per_token(active_params, layers, d_model, mean_context_tokens)
            as decode_flops_per_token
    from sized
),

batched as (
    select
        *,
        formulas.memory_batch(weight_bytes, kv_cache_bytes_per_token * (prompt_tokens + output_tokens), gpus,
                              memory_gib) as memory_batch,
        formulas.latency_batch(weight_bytes, kv_cache_bytes_per_token * mean_context_tokens, decode_flops_per_token,
                               gpus, memory_bandwidth_gbps, dense_peak_tflops) as latency_batch
    from served
),

stepped as (
    select
        *,
        formulas.serving_batch(memory_batch, latency_batch) as batch_size,
        formulas.decode_step_bandwidth_seconds(
            formulas.weight_bytes_read_per_step(total_params, active_params, num_experts, experts_per_token,
                                                formulas.serving_batch(memory_batch, latency_batch), bytes_per_param),
            formulas.serving_batch(memory_batch, latency_batch) * kv_cache_bytes_per_token * mean_context_tokens,
            gpus, memory_bandwidth_gbps) as bandwidth_seconds,
        formulas.decode_step_compute_seconds(formulas.serving_batch(memory_batch, latency_batch),
                                             decode_flops_per_token, gpus, dense_peak_tflops) as compute_seconds,
        formulas.prefill_seconds_per_token(active_params, layers, d_model, prompt_tokens, gpus, dense_peak_tflops)
            as prefill_seconds_per_token
    from batched
),

-- the cheapest paid API price of the same model that day (marts.inference_api_prices_daily), beside the self-hosted
-- cost: the lowest output price, with its input price and seller; a free tier is no price to buy capacity at
api_cheapest as (
    select
        price_date,
        model_id,
        usd_per_million_input_tokens as api_cheapest_usd_per_million_input_tokens,
        usd_per_million_output_tokens as api_cheapest_usd_per_million_output_tokens,
        provider as api_cheapest_provider,
        model_slug as api_cheapest_model_slug,
        is_synthetic as api_is_synthetic
    from {{ ref('inference_api_prices_daily') }}
    where model_id is not null and not is_free and {{ rebuilt_days_filter('price_date') }}
    qualify row_number() over (
        partition by price_date, model_id
        order by usd_per_million_output_tokens, usd_per_million_input_tokens, provider, model_slug
    ) = 1
),

throughput as (
    select
        *,
        formulas.batch_limited_by(memory_batch, latency_batch) as batch_limited_by,
        formulas.throughput_bound(formulas.batch_limited_by(memory_batch, latency_batch), compute_seconds,
                                  bandwidth_seconds) as throughput_bound,
        batch_size / greatest(bandwidth_seconds, compute_seconds) as output_tokens_per_second,
        1 / prefill_seconds_per_token as input_tokens_per_second
    from stepped
)

select
    price_date,
    model_id,
    gpu_id,
    weight_precision,
    prompt_tokens,
    output_tokens,
    weight_bytes,
    kv_cache_bytes_per_token * (prompt_tokens + output_tokens) * batch_size as kv_cache_bytes,
    gpus,
    batch_size,
    batch_limited_by,
    throughput_bound,
    greatest(bandwidth_seconds, compute_seconds) * 1000 as ms_per_output_token,
    output_tokens_per_second,
    input_tokens_per_second,
    formulas.usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, input_tokens_per_second)
        as usd_per_million_input_tokens_on_demand_cheapest,
    formulas.usd_per_million_tokens(on_demand_cheapest_usd_per_gpu_hour, gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_on_demand_cheapest,
    formulas.usd_per_million_tokens(on_demand_median_usd_per_gpu_hour, gpus, input_tokens_per_second)
        as usd_per_million_input_tokens_on_demand_median,
    formulas.usd_per_million_tokens(on_demand_median_usd_per_gpu_hour, gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_on_demand_median,
    formulas.usd_per_million_tokens(spot_cheapest_usd_per_gpu_hour, gpus, input_tokens_per_second)
        as usd_per_million_input_tokens_spot_cheapest,
    formulas.usd_per_million_tokens(spot_cheapest_usd_per_gpu_hour, gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_spot_cheapest,
    is_synthetic,
    api_cheapest.api_cheapest_usd_per_million_input_tokens,
    api_cheapest.api_cheapest_usd_per_million_output_tokens,
    api_cheapest.api_cheapest_provider,
    api_cheapest.api_cheapest_model_slug,
    api_cheapest.api_is_synthetic
from throughput
left join api_cheapest using (price_date, model_id)
