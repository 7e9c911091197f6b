{{ config(schema='marts', materialized='table') }}
-- A chained matched-offer price index per GPU and market: 100 on the series' first day, then each day's link
-- (int_gpu_price_links__daily: the trimmed mean change of the offers seen on both days) chained on. Moves, trends and
-- halving times read this, not the day's cheapest price, so a source appearing or failing is no price move.
with links as (
    select * from {{ ref('int_gpu_price_links__daily') }}
)

select
    price_date,
    gpu_id,
    channel,
    pricing_type,
    price_per,
    cast(100 * exp(sum(mean_log_ratio) over series) as double) as price_index,
    matched_offer_count,
    bool_or(is_synthetic) over series as is_synthetic
from links
window series as (
    partition by gpu_id, channel, pricing_type, price_per order by price_date
    rows between unbounded preceding and current row
)
