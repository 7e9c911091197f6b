{{ config(materialized='incremental') }}
-- What renting a GPU-hour cost each day across every rental channel (cloud and marketplace together), per
-- pricing type, from credible prices only (int_offers__credible_daily: suspect providers set aside), pivoted so
-- the estimates join one row per GPU and day.
with rental_offers as (
    select * from {{ ref('int_offers__credible_daily') }}
    where price_per = 'gpu_hour'
      and {{ rebuilt_days_filter('price_date') }}
),

by_pricing_type as (
    select
        price_date,
        gpu_id,
        pricing_type,
        min(unit_price_usd) as cheapest_usd,
        median(unit_price_usd) as median_usd,
        count(distinct provider) as provider_count,
        -- who offers the cheapest, ties broken by name so a rebuild names the same one
        arg_min(provider, row(unit_price_usd, provider, source)) as cheapest_provider,
        arg_min(source, row(unit_price_usd, provider, source)) as cheapest_source,
        arg_min(provider, row(unit_price_usd, provider, source)) filter (where channel = 'cloud')
            as cloud_cheapest_provider,
        arg_min(source, row(unit_price_usd, provider, source)) filter (where channel = 'cloud') as cloud_cheapest_source,
        -- a cluster is rented from a cloud: a marketplace's asks are single machines of different hosts
        min(unit_price_usd) filter (where channel = 'cloud') as cloud_cheapest_usd,
        median(unit_price_usd) filter (where channel = 'cloud') as cloud_median_usd,
        count(distinct provider) filter (where channel = 'cloud') as cloud_provider_count,
        bool_or(is_synthetic) as is_synthetic,
        coalesce(bool_or(is_synthetic) filter (where channel = 'cloud'), false) as cloud_is_synthetic
    from rental_offers
    where pricing_type in ('on_demand', 'spot')
    group by all
)

select
    price_date,
    gpu_id,
    cast(max(cheapest_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6)) as on_demand_cheapest_usd_per_gpu_hour,
    cast(max(median_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6)) as on_demand_median_usd_per_gpu_hour,
    cast(max(cheapest_usd) filter (where pricing_type = 'spot') as decimal(18, 6)) as spot_cheapest_usd_per_gpu_hour,
    cast(max(median_usd) filter (where pricing_type = 'spot') as decimal(18, 6)) as spot_median_usd_per_gpu_hour,
    -- providers behind the day's on-demand and spot figures (credible prices only): "1 provider" is no market
    coalesce(max(provider_count) filter (where pricing_type = 'on_demand'), 0) as on_demand_provider_count,
    coalesce(max(provider_count) filter (where pricing_type = 'spot'), 0) as spot_provider_count,
    bool_or(is_synthetic) as is_synthetic,
    cast(max(cloud_cheapest_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6))
        as cloud_on_demand_cheapest_usd_per_gpu_hour,
    cast(max(cloud_median_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6))
        as cloud_on_demand_median_usd_per_gpu_hour,
    cast(max(cloud_cheapest_usd) filter (where pricing_type = 'spot') as decimal(18, 6))
        as cloud_spot_cheapest_usd_per_gpu_hour,
    cast(max(cloud_median_usd) filter (where pricing_type = 'spot') as decimal(18, 6))
        as cloud_spot_median_usd_per_gpu_hour,
    coalesce(max(cloud_provider_count) filter (where pricing_type = 'on_demand'), 0)
        as cloud_on_demand_provider_count,
    bool_or(cloud_is_synthetic) as cloud_is_synthetic,
    max(cheapest_provider) filter (where pricing_type = 'on_demand') as on_demand_cheapest_provider,
    max(cheapest_source) filter (where pricing_type = 'on_demand') as on_demand_cheapest_source,
    max(cloud_cheapest_provider) filter (where pricing_type = 'on_demand') as cloud_on_demand_cheapest_provider,
    max(cloud_cheapest_source) filter (where pricing_type = 'on_demand') as cloud_on_demand_cheapest_source
from by_pricing_type
group by all
