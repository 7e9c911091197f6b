-- The series a trend can be read from (issue 40): each market's cheapest price (gpu_prices_daily) cut into
-- constant-panel segments. A panel is the set of providers the day's cheapest is taken over; where it changes (a
-- provider joins, leaves, or is set aside as suspect) the cheapest is another quantity, and a line, a trailing window
-- or a backtest that ran across the change would read the change of providers as a price move. One row per segment:
-- its first and last day and its providers. The market's trend over time is the matched-panel index
-- (gpu_price_index_daily), which a panel change does not move. Rebuilt whole each build: one window over the
-- market-days (not the offers), about 100k rows at three years.
with market_days as (
    select price_date, gpu_id, channel, market, price_per, panel_id, panel_providers, provider_count, is_synthetic
    from {{ ref('gpu_prices_daily') }}
),

changes as (
    select
        *,
        panel_id is distinct from lag(panel_id) over series as is_panel_change
    from market_days
    window series as (partition by gpu_id, channel, market, price_per order by price_date)
),

numbered as (
    select
        *,
        cast(sum(case when is_panel_change then 1 else 0 end) over (
            partition by gpu_id, channel, market, price_per order by price_date
            rows between unbounded preceding and current row
        ) as integer) as panel_number
    from changes
)

select
    gpu_id,
    channel,
    market,
    price_per,
    panel_number,
    any_value(panel_id) as panel_id,
    any_value(panel_providers) as panel_providers,
    any_value(provider_count) as provider_count,
    min(price_date) as panel_start,
    max(price_date) as panel_end,
    count(*) as days_priced,
    bool_or(is_synthetic) as is_synthetic
from numbered
group by gpu_id, channel, market, price_per, panel_number
