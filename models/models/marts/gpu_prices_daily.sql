-- The market price of a GPU each day, per channel and market, from its credible offers (int_offers__credible_daily:
-- a provider's own list price or a verified host's ask, no suspect provider; one source per provider, see
-- int_offers__market_daily): the cheapest offer, and the 25th percentile and median across providers (one price per
-- provider, its cheapest offer: the market median, the same in every mart), in USD per GPU-hour for rentals and USD
-- per card for retail. The median across offers, where one provider's hundreds of regional SKUs would make it that
-- provider's price, says so in its name (median_offer_price_usd).
with market_offers as (
    select * from {{ ref('int_offers__credible_daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

provider_prices as (
    select price_date, gpu_id, channel, market, price_per, provider, min(unit_price_usd) as price_usd
    from market_offers
    group by all
),

across_providers as (
    select
        price_date,
        gpu_id,
        channel,
        market,
        price_per,
        cast(quantile_cont(price_usd, 0.25) as decimal(18, 6)) as p25_price_usd,
        cast(median(price_usd) as decimal(18, 6)) as median_price_usd
    from provider_prices
    group by all
),

aggregated as (
    select
        price_date,
        gpu_id,
        channel,
        market,
        price_per,
        cast(min(unit_price_usd) as decimal(18, 6)) as min_price_usd,
        cast(median(unit_price_usd) as decimal(18, 6)) as median_offer_price_usd,
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
    aggregated.price_date,
    aggregated.gpu_id,
    aggregated.channel,
    aggregated.market,
    aggregated.price_per,
    aggregated.min_price_usd,
    across_providers.p25_price_usd,
    across_providers.median_price_usd,
    aggregated.median_offer_price_usd,
    aggregated.offer_count,
    aggregated.provider_count,
    aggregated.panel_providers,
    -- a short stable id of the panel (the same providers give the same id on every day and build)
    left(md5(aggregated.panel_providers), 12) as panel_id,
    aggregated.sources,
    aggregated.carried_forward_offer_count,
    aggregated.is_synthetic
from aggregated
inner join across_providers using (price_date, gpu_id, channel, market, price_per)
