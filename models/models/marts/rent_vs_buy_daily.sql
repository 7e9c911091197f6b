-- Per GPU and day: how many months of renting (cheapest and median on-demand) cost as much as buying the GPU and
-- powering it, at the configured utilization. NULL months: renting costs no more than the power alone. The purchase
-- side is today's price with its date and source (int_gpu_prices__purchase_daily: a card's newest street price, new
-- or used; an SXM/OAM part's share of the system it needs; a launch price only where nothing newer is known).
with rental as (
    select * from {{ ref('int_gpu_prices__rental_daily') }}
    where on_demand_cheapest_usd_per_gpu_hour is not null
),

purchase as (
    select * from {{ ref('int_gpu_prices__purchase_daily') }}
),

specs as (
    select gpu_id, tdp_w from {{ ref('int_gpu_specs') }}
)

select
    rental.price_date,
    rental.gpu_id,
    purchase.purchase_price_usd,
    purchase.purchase_price_basis,
    purchase.purchase_price_date,
    purchase.purchase_price_age_days,
    purchase.purchase_price_source,
    purchase.system_price_usd,
    purchase.system_gpus,
    specs.tdp_w,
    formulas.power_usd_per_gpu_hour(specs.tdp_w) as power_usd_per_gpu_hour,
    rental.on_demand_cheapest_usd_per_gpu_hour,
    rental.on_demand_median_usd_per_gpu_hour,
    {{ var('utilization') }} as utilization,
    formulas.break_even_months(
        purchase.purchase_price_usd, rental.on_demand_cheapest_usd_per_gpu_hour, specs.tdp_w
    ) as break_even_months_vs_cheapest,
    formulas.break_even_months(
        purchase.purchase_price_usd, rental.on_demand_median_usd_per_gpu_hour, specs.tdp_w
    ) as break_even_months_vs_median,
    rental.is_synthetic or purchase.is_synthetic as is_synthetic
from rental
inner join purchase using (price_date, gpu_id)
inner join specs using (gpu_id)
where specs.tdp_w is not null
