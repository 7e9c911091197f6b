-- A chained Jevons price index per GPU and market: 100 on the series' first day, then each day moves by the
-- geometric mean of the providers' matched price relatives (gpu_price_relatives_daily: one per provider, equal
-- weights, as price statisticians build an elementary index). A provider appearing or failing is no price move;
-- one provider of three raising its price 16% moves the index about 5% (a median of changes would hide it). Moves,
-- trends and halving times read this, not the day's cheapest price.
with series_days as (
    -- every day a market has a credible price: a day without a matched provider holds the index
    select distinct price_date, gpu_id, channel, market, price_per
    from {{ ref('int_provider_prices__daily') }}
    where not is_suspect
),

links as (
    select
        price_date,
        gpu_id,
        channel,
        market,
        price_per,
        avg(log_relative) as mean_log_relative,
        count(*) as matched_provider_count,
        bool_or(is_synthetic) as is_synthetic
    from {{ ref('gpu_price_relatives_daily') }}
    group by all
),

linked_days as (
    select
        series_days.*,
        coalesce(links.mean_log_relative, 0) as mean_log_relative,
        coalesce(links.matched_provider_count, 0) as matched_provider_count,
        coalesce(links.is_synthetic, false) as is_synthetic
    from series_days
    left join links using (price_date, gpu_id, channel, market, price_per)
)

select
    price_date,
    gpu_id,
    channel,
    market,
    price_per,
    cast(100 * exp(sum(mean_log_relative) over series) as double) as price_index,
    matched_provider_count,
    bool_or(is_synthetic) over series as is_synthetic
from linked_days
window series as (
    partition by gpu_id, channel, market, price_per order by price_date
    rows between unbounded preceding and current row
)
