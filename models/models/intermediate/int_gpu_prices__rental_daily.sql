-- What renting a GPU-hour cost each day across every rental channel (cloud and marketplace together), per
-- pricing type, from credible prices only (int_offers__credible_daily: suspect providers and offers that may not head
-- an answer set aside), the medians across providers (one price per provider), pivoted so
-- the estimates join one row per GPU and day.
with rental_offers as (
    select * from {{ ref('int_offers__credible_daily') }}
    where price_per = 'gpu_hour'
      and {{ rebuilt_days_filter('price_date') }}
),

-- one price per provider (its cheapest credible offer; in the cloud channel alone for the cluster figures): the
-- medians are across providers, the market median of every mart (gpu_prices_daily.median_price_usd), not across
-- offers (where GCP's hundreds of regional SKUs made the median GCP's price)
provider_prices as (
    select
        price_date, gpu_id, pricing_type, provider,
        min(unit_price_usd) as price_usd,
        min(unit_price_usd) filter (where channel = 'cloud') as cloud_price_usd
    from rental_offers
    where pricing_type in ('on_demand', 'spot')
    group by all
),

medians as (
    select
        price_date, gpu_id, pricing_type,
        median(price_usd) as median_usd,
        median(cloud_price_usd) as cloud_median_usd  -- median skips the providers with no cloud price
    from provider_prices
    group by all
),

by_pricing_type as (
    select
        price_date,
        gpu_id,
        pricing_type,
        min(unit_price_usd) as cheapest_usd,
        count(distinct provider) as provider_count,
        -- who offers the cheapest, ties broken by name so a rebuild names the same one
        arg_min(provider, row(unit_price_usd, provider, source)) as cheapest_provider,
        arg_min(source, row(unit_price_usd, provider, source)) as cheapest_source,
        arg_min(provider, row(unit_price_usd, provider, source)) filter (where channel = 'cloud')
            as cloud_cheapest_provider,
        arg_min(source, row(unit_price_usd, provider, source)) filter (where channel = 'cloud') as cloud_cheapest_source,
        -- a cluster is rented from a cloud: a marketplace's asks are single machines of different hosts
        min(unit_price_usd) filter (where channel = 'cloud') as cloud_cheapest_usd,
        count(distinct provider) filter (where channel = 'cloud') as cloud_provider_count,
        bool_or(is_synthetic) as is_synthetic,
        coalesce(bool_or(is_synthetic) filter (where channel = 'cloud'), false) as cloud_is_synthetic
    from rental_offers
    where pricing_type in ('on_demand', 'spot')
    group by all
),

with_medians as (
    select by_pricing_type.*, medians.median_usd, medians.cloud_median_usd
    from by_pricing_type
    inner join medians using (price_date, gpu_id, pricing_type)
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
from with_medians
group by all
