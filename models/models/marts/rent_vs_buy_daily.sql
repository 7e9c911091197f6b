-- Per GPU and day: how many months of renting (cheapest and median on-demand) cost as much as buying the GPU and
-- powering it, at the configured utilization. NULL months: renting costs no more than the power alone. The purchase
-- side is today's price with its date and source (int_gpu_prices__purchase_daily: a card's newest street price, new
-- or used; an SXM/OAM part's share of the system it needs; a launch price only where nothing newer is known). Beside
-- renting on demand, committing for a year: the day's cheapest credible 1-year price (market reserved_1y), billed
-- every hour of the term, with the size it is sold at.
with rental as (
    select * from {{ ref('int_gpu_prices__rental_daily') }}
    where on_demand_cheapest_usd_per_gpu_hour is not null
),

purchase as (
    select * from {{ ref('int_gpu_prices__purchase_daily') }}
),

specs as (
    select gpu_id, tdp_w from {{ ref('int_gpu_specs') }}
),

committed as (
    select
        price_date,
        gpu_id,
        committed_usd_per_gpu_hour as reserved_1y_cheapest_usd_per_gpu_hour,
        committed_provider as reserved_1y_cheapest_provider,
        min_gpus as reserved_1y_min_gpus,
        is_synthetic as reserved_1y_is_synthetic
    from {{ ref('gpu_commitment_prices_daily') }}
    where market = 'reserved_1y'
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
    committed.reserved_1y_cheapest_usd_per_gpu_hour,
    committed.reserved_1y_cheapest_provider,
    committed.reserved_1y_min_gpus,
    formulas.break_even_months_vs_commitment(
        purchase.purchase_price_usd, committed.reserved_1y_cheapest_usd_per_gpu_hour, specs.tdp_w
    ) as break_even_months_vs_reserved_1y,
    rental.is_synthetic or purchase.is_synthetic
        or coalesce(committed.reserved_1y_is_synthetic, false) as is_synthetic
from rental
inner join purchase using (price_date, gpu_id)
inner join specs using (gpu_id)
left join committed using (price_date, gpu_id)
where specs.tdp_w is not null
