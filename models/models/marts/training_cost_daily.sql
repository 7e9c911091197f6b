-- What pre-training each reference model would cost on each GPU, day by day: FLOPs (6*N*D, or 8*N*D with full
-- recomputation) plus attention, GPU-hours at the modelled training efficiency (formulas.training_efficiency), the
-- smallest GPU count whose memory holds the training state, and a plan: the cluster that holds the state and finishes
-- within training_max_days (the configured training_cluster_gpus when larger), in whole machines, on the cluster the
-- GPU can form that day (int_gpu_clusters__daily: its machines, its cluster network, the largest cluster sold). A plan
-- that needs more GPUs than the GPU forms is infeasible: it says why and has no cost. A feasible plan is priced at
-- that day's cloud rental prices (no marketplace asks: a cluster is rented from a cloud) and as owned cards, with the
-- error band the published runs support (formulas.error_band_*).
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
        -- a training cluster is rented from a cloud, never assembled from a marketplace's single-machine asks
        rental.cloud_on_demand_cheapest_usd_per_gpu_hour as on_demand_cheapest_usd_per_gpu_hour,
        rental.cloud_on_demand_median_usd_per_gpu_hour as on_demand_median_usd_per_gpu_hour,
        rental.cloud_spot_cheapest_usd_per_gpu_hour as spot_cheapest_usd_per_gpu_hour,
        rental.cloud_spot_median_usd_per_gpu_hour as spot_median_usd_per_gpu_hour,
        rental.cloud_on_demand_provider_count as on_demand_provider_count,
        purchase.purchase_price_usd,
        purchase.purchase_price_basis,
        coalesce(rental.cloud_is_synthetic, false) or coalesce(purchase.is_synthetic, false) as is_synthetic
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

-- a feasible plan's cost (NULL for an infeasible one: it is listed with its reason, never ranked with a cost)
feasible as (
    select
        *,
        case when is_feasible then gpu_hours end as costed_gpu_hours
    from planned
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
    is_synthetic
from feasible
