{{ config(
    schema='marts', materialized='incremental', incremental_strategy='delete+insert', unique_key='price_date'
) }}
-- What each source charged each day: per day x GPU x channel x provider x source x pricing type x host-VM basis x
-- condition x currency, the cheapest and median price of that day's snapshot of the source. Rentals per GPU-hour
-- (USD), retail cards per card (in the shop's own currency and in USD): "what did each shop charge for a 4090".
with daily_offers as (
    select
        *,
        case when price_unit = 'card' then 'card' else 'gpu_hour' end as price_per,
        {{ unit_price('price', 'price_per_unit') }} as unit_price,  -- in the offer's currency
        {{ unit_price('price_usd', 'price_per_gpu_hour_usd') }} as unit_price_usd
    from {{ ref('int_offers__daily') }}
    where gpu_id is not null
      -- a shop's selling price of a card it has (a shipping charge or a struck list price is no price of a card)
      and (price_unit <> 'card' or (price_role = 'selling' and coalesce(in_stock, true)))
      and {{ rebuilt_days_filter('price_date') }}
),

priced as (
    select * from daily_offers where unit_price_usd is not null
),

aggregated as (
    select
        price_date,
        gpu_id,
        channel,
        provider,
        source,
        via,
        pricing_type,
        includes_host_vm,
        price_per,
        case when price_per = 'card' then condition end as condition,
        currency,
        cast(min(unit_price) as decimal(24, 6)) as min_price,
        cast(min(unit_price_usd) as decimal(18, 6)) as min_price_usd,
        cast(median(unit_price_usd) as decimal(18, 6)) as median_price_usd,
        cast(min(unit_price_usd) filter (where price_per = 'gpu_hour') as decimal(18, 6)) as min_price_per_gpu_hour_usd,
        cast(median(unit_price_usd) filter (where price_per = 'gpu_hour') as decimal(18, 6))
            as median_price_per_gpu_hour_usd,
        count(*) as offer_count,
        count(distinct region) as region_count,
        bool_or(is_synthetic) as is_synthetic,
        bool_or(is_carried_forward) as is_carried_forward,
        max(observed_at) as observed_at
    from priced
    group by all
),

-- the provider's price in the market figures that day, when this source gave it (int_provider_prices__daily)
provider_prices as (
    select
        price_date, gpu_id, provider, source, pricing_type, price_per,
        case when channel in ('retail_new', 'retail_used') then 'retail' else channel end as channel,
        case channel when 'retail_new' then 'new' when 'retail_used' then 'used' end as condition_class,
        suspect_reason
    from {{ ref('int_provider_prices__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
)

select
    aggregated.*,
    -- why the market figures set this source's price aside (a suspect price keeps its row here)
    provider_prices.suspect_reason
from aggregated
left join provider_prices
    on provider_prices.price_date = aggregated.price_date
    and provider_prices.gpu_id = aggregated.gpu_id
    and provider_prices.provider = aggregated.provider
    and provider_prices.source = aggregated.source
    and provider_prices.channel = aggregated.channel
    and provider_prices.pricing_type = aggregated.pricing_type
    and provider_prices.price_per = aggregated.price_per
    and (aggregated.price_per = 'card' or aggregated.includes_host_vm)
    and (provider_prices.condition_class is null
         or provider_prices.condition_class = case when aggregated.condition = 'new' then 'new' else 'used' end)
