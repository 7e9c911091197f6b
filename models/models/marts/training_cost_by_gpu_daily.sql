-- What the training page charts: per reference model, GPU and day, the cheapest on-demand cost of training it on
-- that GPU (the cheaper of its bf16 and fp8 setups) with its error band, and which GPU is that day's cheapest for the
-- model. Feasible plans only (an infeasible one has no cost). A narrow copy of training_cost_daily, so the page reads
-- tens of thousands of rows, not every setup of every day.
with setups as (
    select
        price_date,
        model_id,
        gpu_id,
        training_precision,
        cost_usd_on_demand_cheapest,
        cost_usd_on_demand_cheapest_low,
        cost_usd_on_demand_cheapest_high,
        on_demand_provider_count,
        is_synthetic
    from {{ ref('training_cost_daily') }}
    where cost_usd_on_demand_cheapest is not null
      and {{ rebuilt_days_filter('price_date') }}
),

cheapest_setup_per_gpu as (
    select *
    from setups
    qualify row_number() over (
        partition by price_date, model_id, gpu_id order by cost_usd_on_demand_cheapest, training_precision) = 1
)

select
    price_date,
    model_id,
    gpu_id,
    training_precision,
    cost_usd_on_demand_cheapest,
    cost_usd_on_demand_cheapest_low,
    cost_usd_on_demand_cheapest_high,
    on_demand_provider_count,
    row_number() over (
        partition by price_date, model_id order by cost_usd_on_demand_cheapest, gpu_id) = 1 as is_cheapest_gpu,
    is_synthetic
from cheapest_setup_per_gpu
