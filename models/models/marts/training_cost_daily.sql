-- What pre-training each reference model would cost on each GPU, day by day: FLOPs (6*N*D, or 8*N*D with full
-- recomputation) plus attention, GPU-hours at the modelled training efficiency (formulas.training_efficiency), the
-- smallest GPU count whose memory holds the training state, and a plan: the cluster that holds the state and finishes
-- within training_max_days (the configured training_cluster_gpus when larger), in whole machines, on the cluster the
-- GPU can form that day (int_gpu_clusters__daily: its machines, its cluster network, the largest cluster sold). A plan
-- that needs more GPUs than the GPU forms is infeasible: it says why and has no cost. A feasible plan is priced at
-- that day's cloud prices of the offers that rent its cluster as one job (marts.gpu_cluster_prices_daily: a machine
-- that large, or nodes sold with a cluster network; no marketplace asks, no single-GPU VM for a 64-GPU run) and as
-- owned cards, with the error band the published runs support (formulas.error_band_*). A feasible plan no cloud
-- rented that day has no cost and says so (unpriced_reason).
-- Formulas: formulas.* macros (models/macros/create_formulas.sql), shared with `gpuprices estimate`.
with reference_models as (
    select * from {{ ref('reference_models') }}
    where training_tokens_b is not null
),

gpu_precisions as (
    select
        specs.*,
        precisions.training_precision,
        case precisions.training_precision
            when 'bf16' then specs.bf16_dense_tflops
            when 'fp8' then specs.fp8_dense_tflops
        end as dense_peak_tflops
    from {{ ref('int_gpu_specs') }} as specs
    cross join (values ('bf16'), ('fp8')) as precisions(training_precision)
),

gpu_days as (
    select
        coalesce(rental.price_date, purchase.price_date) as price_date,
        coalesce(rental.gpu_id, purchase.gpu_id) as gpu_id,
        -- the clouds renting the GPU on demand that day at any size (the plan's prices are its cluster's, below)
        coalesce(rental.cloud_on_demand_provider_count, 0) as gpu_on_demand_provider_count,
        purchase.purchase_price_usd,
        purchase.purchase_price_basis,
        coalesce(purchase.is_synthetic, false) as purchase_is_synthetic
    from {{ ref('int_gpu_prices__rental_daily') }} as rental
    full outer join {{ ref('int_gpu_prices__purchase_daily') }} as purchase
        using (price_date, gpu_id)
    where {{ rebuilt_days_filter('price_date') }}
),

sized as (
    select
        gpu_days.*,
        reference_models.model_id,
        gpu_precisions.training_precision,
        gpu_precisions.dense_peak_tflops,
        gpu_precisions.has_fast_interconnect,
        gpu_precisions.tdp_w,
        gpu_precisions.efficiency_family,
        gpu_precisions.bf16_dense_tflops,
        gpu_precisions.memory_bandwidth_gbps,
        reference_models.total_params_b > reference_models.active_params_b as is_moe,
        formulas.model_width(reference_models.d_model, reference_models.active_params_b * 1e9) as model_width,
        {{ var('training_full_recomputation') }} as full_recomputation,
        formulas.training_flops(
            reference_models.active_params_b * 1e9, reference_models.training_tokens_b * 1e9,
            {{ var('training_full_recomputation') }},
            formulas.attention_flops_per_token(
                reference_models.layers, reference_models.d_model,
                coalesce(reference_models.pretraining_sequence_length, {{ var('training_sequence_length') }}))
        ) as flops,
        formulas.min_training_gpus(
            reference_models.total_params_b * 1e9, reference_models.layers, reference_models.d_model,
            {{ var('training_full_recomputation') }}, gpu_precisions.memory_gib) as min_gpus
    from gpu_days
    inner join gpu_precisions using (gpu_id)
    cross join reference_models
    where gpu_precisions.dense_peak_tflops is not null
),

clusters as (
    select price_date, gpu_id, training_node_gpus, scale_out_network, max_training_gpus
    from {{ ref('int_gpu_clusters__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

-- the plan (formulas.training_plan, the same assembly `gpuprices estimate` runs) on the cluster the GPU forms that day
planned as (
    select
        sized.*,
        coalesce(clusters.training_node_gpus, 1) as node_gpus,
        coalesce(clusters.scale_out_network, 'none') as scale_out_network,
        coalesce(clusters.max_training_gpus, 1) as max_cluster_gpus,
        plan.*
    from sized
    left join clusters using (price_date, gpu_id)
    cross join lateral formulas.training_plan(
        sized.flops, sized.dense_peak_tflops, sized.min_gpus, sized.efficiency_family, sized.training_precision,
        sized.model_width, sized.bf16_dense_tflops, sized.memory_bandwidth_gbps, sized.is_moe,
        sized.has_fast_interconnect, coalesce(clusters.training_node_gpus, 1),
        coalesce(clusters.max_training_gpus, 1), coalesce(clusters.scale_out_network, 'none'),
        {{ var('training_cluster_gpus') }}, {{ var('training_max_days') }}, null, null) as plan
    where sized.min_gpus is not null
),

cluster_prices as (
    select * from {{ ref('gpu_cluster_prices_daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

-- the prices of the clouds that rent the plan's cluster as one job: the smallest size tier holding it (none: no
-- cloud rented that many of the GPU together that day)
priced as (
    select
        planned.*,
        cluster_prices.on_demand_cheapest_usd_per_gpu_hour,
        cluster_prices.on_demand_median_usd_per_gpu_hour,
        cluster_prices.on_demand_provider_count,
        cluster_prices.on_demand_cheapest_provider,
        cluster_prices.on_demand_cheapest_holds_by,
        cluster_prices.spot_cheapest_usd_per_gpu_hour,
        cluster_prices.spot_median_usd_per_gpu_hour,
        coalesce(cluster_prices.is_synthetic, false) as cluster_prices_are_synthetic
    from planned
    asof left join cluster_prices
        on cluster_prices.price_date = planned.price_date
        and cluster_prices.gpu_id = planned.gpu_id
        and planned.cluster_gpus <= cluster_prices.up_to_gpus
),

-- a feasible plan's cost (NULL for an infeasible one: it is listed with its reason, never ranked with a cost)
feasible as (
    select
        *,
        case when is_feasible then gpu_hours end as costed_gpu_hours,
        formulas.training_unpriced_reason(is_feasible, on_demand_cheapest_usd_per_gpu_hour, cluster_gpus,
                                          gpu_on_demand_provider_count) as unpriced_reason
    from priced
)

select
    price_date,
    model_id,
    gpu_id,
    training_precision,
    full_recomputation,
    flops,
    dense_peak_tflops,
    mfu,
    formulas.efficiency_basis(efficiency_family) as efficiency_basis,
    gpu_hours,
    formulas.error_band_low(gpu_hours) as gpu_hours_low,
    formulas.error_band_high(gpu_hours) as gpu_hours_high,
    formulas.error_band_basis(efficiency_family) as error_band_basis,
    min_gpus,
    node_gpus,
    scale_out_network,
    max_cluster_gpus,
    {{ var('training_max_days') }} as max_training_days,
    required_gpus,
    is_feasible,
    infeasible_reason,
    cluster_gpus,
    -- the days on the plan's cluster; for an infeasible plan, on the largest cluster it forms (NULL when the state
    -- does not fit there)
    wall_clock_days,
    wall_clock_days_high,
    cast(costed_gpu_hours * on_demand_cheapest_usd_per_gpu_hour as decimal(24, 2)) as cost_usd_on_demand_cheapest,
    cast(formulas.error_band_low(costed_gpu_hours) * on_demand_cheapest_usd_per_gpu_hour as decimal(24, 2))
        as cost_usd_on_demand_cheapest_low,
    cast(formulas.error_band_high(costed_gpu_hours) * on_demand_cheapest_usd_per_gpu_hour as decimal(24, 2))
        as cost_usd_on_demand_cheapest_high,
    coalesce(on_demand_provider_count, 0) as on_demand_provider_count,
    on_demand_cheapest_provider,
    on_demand_cheapest_holds_by,
    gpu_on_demand_provider_count,
    unpriced_reason,
    cast(costed_gpu_hours * on_demand_median_usd_per_gpu_hour as decimal(24, 2)) as cost_usd_on_demand_median,
    cast(formulas.error_band_low(costed_gpu_hours) * on_demand_median_usd_per_gpu_hour as decimal(24, 2))
        as cost_usd_on_demand_median_low,
    cast(formulas.error_band_high(costed_gpu_hours) * on_demand_median_usd_per_gpu_hour as decimal(24, 2))
        as cost_usd_on_demand_median_high,
    cast(costed_gpu_hours * spot_cheapest_usd_per_gpu_hour as decimal(24, 2)) as cost_usd_spot_cheapest,
    cast(costed_gpu_hours * spot_median_usd_per_gpu_hour as decimal(24, 2)) as cost_usd_spot_median,
    formulas.owned_usd_per_gpu_hour(purchase_price_usd, tdp_w) as owned_usd_per_gpu_hour,
    cast(costed_gpu_hours * formulas.owned_usd_per_gpu_hour(purchase_price_usd, tdp_w) as decimal(24, 2))
        as cost_usd_owned,
    purchase_price_usd,
    purchase_price_basis,
    cluster_prices_are_synthetic or purchase_is_synthetic as is_synthetic
from feasible
