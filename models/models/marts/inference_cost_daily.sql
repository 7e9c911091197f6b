-- Serving each reference model on each GPU, day by day, as a serving engine would run it: the fewest GPUs that
-- hold the weights (FP16, FP8 or INT4) and one sequence's KV cache, the largest batch whose KV cache fits beside
-- them (at most inference_max_batch, each decode step within inference_max_ms_per_output_token), prefill of a
-- stated prompt per request, decode steps that read the weights the batch needs (for a mixture of experts, the
-- experts its tokens route to) and the KV cache, and dollars per million input and output tokens at that day's
-- rental prices. FP8 weights only on GPUs with FP8 tensor cores; INT4 is weight-only quantization computed in 16-bit.
-- A model needing more GPUs than one served model can span on that GPU (int_gpu_clusters__daily: one machine
-- without a GPU fabric) is infeasible there: it says why and has no price. Every price carries the error band the
-- published runs support (formulas.error_band_*). Beside it, the cheapest API price of the same model that day
-- (api_cheapest_*), to compare renting with paying per token.
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

priced as (
    select
        rental.price_date,
        reference_models.model_id,
        gpu_formats.gpu_id,
        gpu_formats.weight_precision,
        gpu_formats.bytes_per_param,
        reference_models.total_params_b,
        reference_models.active_params_b,
        reference_models.num_experts,
        reference_models.experts_per_token,
        reference_models.layers,
        reference_models.d_model,
        reference_models.kv_values_per_token_per_layer,
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

-- the serving steps are formulas.serving (models/macros/create_formulas.sql), as `gpuprices estimate --inference`
-- runs them
throughput as (
    select
        priced.*,
        {{ var('inference_prompt_tokens') }} as prompt_tokens,
        {{ var('inference_output_tokens') }} as output_tokens,
        serving.*
    from priced
    cross join lateral formulas.serving(
        priced.total_params_b * 1e9, priced.active_params_b * 1e9, priced.num_experts, priced.experts_per_token,
        priced.layers, priced.d_model, priced.kv_values_per_token_per_layer, priced.bytes_per_param,
        {{ var('inference_prompt_tokens') }}, {{ var('inference_output_tokens') }}, priced.memory_gib,
        priced.memory_bandwidth_gbps, priced.dense_peak_tflops
    ) as serving
),

-- what one served model can span on the GPU that day: one machine without a GPU fabric
clusters as (
    select price_date, gpu_id, serving_node_gpus, max_serving_gpus, has_scale_up_fabric, scale_out_network
    from {{ ref('int_gpu_clusters__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

planned as (
    select
        throughput.*,
        coalesce(clusters.serving_node_gpus, 1) as node_gpus,
        coalesce(clusters.max_serving_gpus, 1) as max_serving_gpus,
        throughput.gpus <= coalesce(clusters.max_serving_gpus, 1) as is_feasible,
        formulas.serving_infeasible_reason(throughput.gpus, coalesce(clusters.max_serving_gpus, 1),
                                           coalesce(clusters.has_scale_up_fabric, false),
                                           coalesce(clusters.scale_out_network, 'none')) as infeasible_reason
    from throughput
    left join clusters using (price_date, gpu_id)
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
)

select
    price_date,
    model_id,
    gpu_id,
    weight_precision,
    prompt_tokens,
    output_tokens,
    weight_bytes,
    kv_cache_bytes,
    gpus,
    node_gpus,
    max_serving_gpus,
    is_feasible,
    infeasible_reason,
    batch_size,
    batch_limited_by,
    throughput_bound,
    ms_per_output_token,
    output_tokens_per_second,
    input_tokens_per_second,
    -- formulas.serving_usd_per_million_tokens: a plan that cannot be served is priced at nothing, never ranked
    formulas.serving_usd_per_million_tokens(
        on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus, input_tokens_per_second)
        as usd_per_million_input_tokens_on_demand_cheapest,
    formulas.serving_usd_per_million_tokens(
        on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_on_demand_cheapest,
    -- the error band: GPU time per token scales as GPU-hours do (formulas.error_band_*)
    formulas.error_band_low(formulas.serving_usd_per_million_tokens(
            on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus, output_tokens_per_second))
        as usd_per_million_output_tokens_on_demand_cheapest_low,
    formulas.error_band_high(formulas.serving_usd_per_million_tokens(
            on_demand_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus, output_tokens_per_second))
        as usd_per_million_output_tokens_on_demand_cheapest_high,
    formulas.serving_usd_per_million_tokens(
        on_demand_median_usd_per_gpu_hour, gpus, max_serving_gpus, input_tokens_per_second)
        as usd_per_million_input_tokens_on_demand_median,
    formulas.serving_usd_per_million_tokens(
        on_demand_median_usd_per_gpu_hour, gpus, max_serving_gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_on_demand_median,
    formulas.serving_usd_per_million_tokens(
        spot_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus, input_tokens_per_second)
        as usd_per_million_input_tokens_spot_cheapest,
    formulas.serving_usd_per_million_tokens(
        spot_cheapest_usd_per_gpu_hour, gpus, max_serving_gpus, output_tokens_per_second)
        as usd_per_million_output_tokens_spot_cheapest,
    is_synthetic,
    api_cheapest.api_cheapest_usd_per_million_input_tokens,
    api_cheapest.api_cheapest_usd_per_million_output_tokens,
    api_cheapest.api_cheapest_provider,
    api_cheapest.api_cheapest_model_slug,
    api_cheapest.api_is_synthetic
from planned
left join api_cheapest using (price_date, model_id)
