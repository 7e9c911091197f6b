{{ config(materialized='incremental') }}
-- What buying one card cost each day: the cheapest new card in stock at a retailer that day (street price), or,
-- on a day with no retail price, the launch/list price from the spec table, labelled as such.
with price_days as (
    select distinct price_date from {{ ref('int_offers__credible_daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

street_prices as (
    select
        price_date,
        gpu_id,
        min(unit_price_usd) as purchase_price_usd,
        count(distinct provider) as provider_count,
        bool_or(is_synthetic) as is_synthetic
    from {{ ref('int_offers__credible_daily') }}
    where market = 'retail_new'
      and {{ rebuilt_days_filter('price_date') }}
    group by all
),

launch_prices as (
    select price_days.price_date, specs.gpu_id, specs.launch_price_usd
    from price_days
    cross join {{ ref('int_gpu_specs') }} as specs
    where specs.launch_price_usd is not null
),

gpu_days as (
    select price_date, gpu_id from street_prices
    union
    select price_date, gpu_id from launch_prices
)

select
    gpu_days.price_date,
    gpu_days.gpu_id,
    cast(coalesce(street_prices.purchase_price_usd, launch_prices.launch_price_usd) as decimal(18, 2)) as purchase_price_usd,
    case when street_prices.purchase_price_usd is not null then 'street_new' else 'launch_price' end as purchase_price_basis,
    -- retailers behind a street price (credible prices only); 0 for a launch price
    coalesce(street_prices.provider_count, 0) as street_provider_count,
    coalesce(street_prices.is_synthetic, false) as is_synthetic
from gpu_days
left join street_prices using (price_date, gpu_id)
left join launch_prices using (price_date, gpu_id)
