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
        string_agg(distinct source, ',' order by source) as sources,
        -- offers standing in for a source whose runs failed that day (int_offers__daily)
        count(*) filter (where is_carried_forward) as carried_forward_offer_count,
        bool_or(is_synthetic) as is_synthetic
    from market_offers
    group by all
)

select * from aggregated
