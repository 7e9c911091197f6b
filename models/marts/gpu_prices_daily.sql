{{ config(materialized='incremental') }}
-- The market price of a GPU each day, per channel and market: cheapest, 25th percentile and median over
-- the offers of that day (one source per provider; see int_offers__market_daily), in USD per GPU-hour for
-- rentals and USD per card for retail.
with market_offers as (
    select * from {{ ref('int_offers__credible_daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

aggregated as (
    select
        price_date,
        gpu_id,
        channel,
        market,
        price_per,
        cast(min(unit_price_usd) as decimal(18, 6)) as min_price_usd,
        cast(quantile_cont(unit_price_usd, 0.25) as decimal(18, 6)) as p25_price_usd,
        cast(median(unit_price_usd) as decimal(18, 6)) as median_price_usd,
        count(*) as offer_count,
        count(distinct provider) as provider_count,
        -- the panel: which providers the day's figures are over (gpu_price_panels cuts a series where it changes)
        string_agg(distinct provider, ',' order by provider) as panel_providers,
        string_agg(distinct source, ',' order by source) as sources,
        -- offers standing in for a source whose runs failed that day (int_offers__daily)
        count(*) filter (where is_carried_forward) as carried_forward_offer_count,
        bool_or(is_synthetic) as is_synthetic
    from market_offers
    group by all
)

select
    *,
    -- a short stable id of the panel (the same providers give the same id on every day and build)
    left(md5(panel_providers), 12) as panel_id
from aggregated
