-- The matched price relatives the price index is built from (gpu_price_index_daily): per GPU, market and day, one
-- per provider whose credible price (int_provider_prices__daily: its cheapest, suspect prices left out) is known
-- both that day and on the series' previous day (at most price_index_max_gap_days before: weekly price lists link
-- too). A provider appearing or leaving changes which relatives exist, never a relative. Incremental by day: each
-- relative needs its day and the days before it within the gap.
{% set max_gap_days = var('price_index_max_gap_days') | int %}
with provider_prices as (
    select price_date, gpu_id, channel, market, price_per, provider, source, price_usd, is_synthetic
    from {{ ref('int_provider_prices__daily') }}
    where not is_suspect
      and {{ rebuilt_days_filter('price_date', lookback_days=max_gap_days) }}
),

series_days as (
    select distinct price_date, gpu_id, channel, market, price_per from provider_prices
),

previous_series_days as (
    select
        *,
        lag(price_date) over (partition by gpu_id, channel, market, price_per order by price_date)
            as previous_date
    from series_days
),

provider_history as (
    select
        *,
        lag(price_date) over same_provider as provider_previous_date,
        lag(price_usd) over same_provider as previous_price_usd,
        lag(is_synthetic) over same_provider as previous_is_synthetic
    from provider_prices
    window same_provider as (partition by gpu_id, channel, market, price_per, provider order by price_date)
)

select
    provider_history.price_date,
    provider_history.gpu_id,
    provider_history.channel,
    provider_history.market,
    provider_history.price_per,
    provider_history.provider,
    provider_history.source,
    previous_series_days.previous_date,
    provider_history.previous_price_usd,
    provider_history.price_usd,
    ln(provider_history.price_usd::double / provider_history.previous_price_usd::double) as log_relative,
    provider_history.is_synthetic or provider_history.previous_is_synthetic as is_synthetic
from provider_history
inner join previous_series_days using (price_date, gpu_id, channel, market, price_per)
where provider_history.provider_previous_date = previous_series_days.previous_date
  and previous_series_days.price_date - previous_series_days.previous_date <= {{ max_gap_days }}
  and {{ rebuilt_days_filter('provider_history.price_date') }}
