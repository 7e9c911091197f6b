{{ config(
    schema='marts', materialized='incremental', incremental_strategy='delete+insert', unique_key='price_date'
) }}
-- What a GPU-hour cost each day: per day x GPU x channel x provider x source x pricing type x host-VM basis,
-- the cheapest and median USD per GPU-hour over that day's snapshot of the source.
with daily_offers as (
    select *
    from {{ ref('int_offers__daily') }}
    where gpu_id is not null
      and price_per_gpu_hour_usd is not null
      and {{ rebuilt_days_filter('price_date') }}
),

aggregated as (
    select
        price_date,
        gpu_id,
        channel,
        provider,
        source,
        pricing_type,
        includes_host_vm,
        min(price_per_gpu_hour_usd) as min_price_per_gpu_hour_usd,
        cast(median(price_per_gpu_hour_usd) as decimal(18, 6)) as median_price_per_gpu_hour_usd,
        count(*) as offer_count,
        count(distinct region) as region_count,
        bool_or(is_synthetic) as is_synthetic,
        bool_or(is_carried_forward) as is_carried_forward,
        max(observed_at) as observed_at
    from daily_offers
    group by all
)

select * from aggregated
