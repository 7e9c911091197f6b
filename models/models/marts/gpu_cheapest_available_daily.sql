-- "Cheapest available" beside "cheapest listed", per GPU and rental market each day: over the providers whose price
-- is not suspect (the credible minimum's rule), the lowest listed price and the lowest price of an offer its source
-- said could be launched that day (gpu_availability_daily), each with its provider, and how many providers were
-- available, unavailable or unknown. A GPU whose cheapest listed provider says nothing of stock has a cheapest
-- available that may be higher than the market really offers: unknown_provider_count says how many said nothing.
-- Incremental by day.
with availability as (
    select * from {{ ref('gpu_availability_daily') }}
    where not is_suspect
      and {{ rebuilt_days_filter('price_date') }}
)

select
    price_date,
    gpu_id,
    channel,
    market,
    count(*) as provider_count,
    cast(min(listed_price_usd) as decimal(18, 6)) as cheapest_listed_usd,
    arg_min(provider, (listed_price_usd, provider)) as cheapest_listed_provider,
    arg_min(availability, (listed_price_usd, provider)) as cheapest_listed_availability,
    cast(min(available_price_usd) as decimal(18, 6)) as cheapest_available_usd,
    -- arg_min skips the rows whose key is NULL: the providers with no available offer
    arg_min(provider, (available_price_usd, provider)) filter (where available_price_usd is not null)
        as cheapest_available_provider,
    arg_min(source, (available_price_usd, provider)) filter (where available_price_usd is not null)
        as cheapest_available_source,
    count(*) filter (where availability = 'available') as available_provider_count,
    count(*) filter (where availability = 'unavailable') as unavailable_provider_count,
    count(*) filter (where availability = 'unknown') as unknown_provider_count,
    bool_or(is_synthetic) as is_synthetic
from availability
group by all
