{{ config(materialized='incremental') }}
-- Is today a good day to buy or rent? Per day x GPU x channel x pricing type, the day's cheapest price against
-- its own history: trailing 30/90/365-day min and median, percentile among every day seen so far, the lowest price
-- ever and when, a near-the-lowest flag, drops, and the trend with the prices it points to. The trend is fitted to
-- the matched-offer price index (gpu_price_index_daily), not to the cheapest price, so a source appearing or
-- failing bends no trend. The buy verdict itself is analytics/buy_signal.py (backtested; `gpuprices backtest`).
-- Incremental: a build rewrites every day from the first rebuilt one on (a day's figures depend on the days before).
with prices as (
    select
        daily.price_date,
        daily.gpu_id,
        daily.channel,
        daily.pricing_type,
        daily.price_per,
        daily.min_price_usd as price_usd,
        price_index.price_index,
        date_diff('day', date '1970-01-01', daily.price_date) as day_number,
        daily.is_synthetic
    from {{ ref('gpu_prices_daily') }} as daily
    left join {{ ref('gpu_price_index_daily') }} as price_index
        using (price_date, gpu_id, channel, pricing_type, price_per)
),

windowed as (
    select
        *,
        min(price_usd) over trailing_30d as trailing_30d_min_usd,
        median(price_usd) over trailing_30d as trailing_30d_median_usd,
        min(price_usd) over trailing_90d as trailing_90d_min_usd,
        median(price_usd) over trailing_90d as trailing_90d_median_usd,
        min(price_usd) over trailing_365d as trailing_365d_min_usd,
        median(price_usd) over trailing_365d as trailing_365d_median_usd,
        median(price_usd) over previous_7d as previous_7d_median_usd,
        lag(price_usd) over by_day as previous_price_usd,
        min(price_usd) over ever as lowest_ever_usd,
        arg_min(price_date, price_usd) over ever as lowest_ever_date,
        min(price_date) over ever as first_seen_date,
        count(*) over ever as days_observed,
        count(price_index) over trailing_90d as trend_points,
        day_number - min(day_number) over trailing_90d as trend_span_days,
        -- rounded: a window's float sums come out in a different order from one build to the next, and an
        -- incremental build must give the figures a full rebuild gives
        round(regr_slope(ln(price_index), day_number) over trailing_90d, 12) as log_price_slope_per_day,
        round(regr_slope(ln(price_index), day_number) over trailing_365d, 12) as log_price_slope_per_day_365d
    from prices
    -- each window spelled out in full: DuckDB does not carry a partition through a named base window
    window
        by_day as (partition by gpu_id, channel, pricing_type, price_per order by price_date),
        ever as (partition by gpu_id, channel, pricing_type, price_per order by price_date rows between unbounded preceding and current row),
        previous_7d as (partition by gpu_id, channel, pricing_type, price_per order by price_date range between interval 7 days preceding and interval 1 day preceding),
        trailing_30d as (partition by gpu_id, channel, pricing_type, price_per order by price_date range between interval 29 days preceding and current row),
        trailing_90d as (partition by gpu_id, channel, pricing_type, price_per order by price_date range between interval 89 days preceding and current row),
        trailing_365d as (partition by gpu_id, channel, pricing_type, price_per order by price_date range between interval 364 days preceding and current row)
),

-- Share of the days seen so far (this one included) that were cheaper than today: 0 = the cheapest day yet.
percentiles as (
    select
        today.price_date, today.gpu_id, today.channel, today.pricing_type, today.price_per,
        count(*) filter (where earlier.price_usd < today.price_usd) / nullif(count(*) - 1, 0) as history_percentile
    from prices as today
    inner join prices as earlier
        on earlier.gpu_id = today.gpu_id
        and earlier.channel = today.channel
        and earlier.pricing_type = today.pricing_type
        and earlier.price_per = today.price_per
        and earlier.price_date <= today.price_date
    where {{ rebuilt_days_filter('today.price_date', onward=true) }}
    group by all
)

select
    windowed.price_date,
    windowed.gpu_id,
    windowed.channel,
    windowed.pricing_type,
    windowed.price_per,
    windowed.price_usd,
    windowed.trailing_30d_min_usd,
    windowed.trailing_30d_median_usd,
    windowed.trailing_90d_min_usd,
    windowed.trailing_90d_median_usd,
    windowed.trailing_365d_min_usd,
    windowed.trailing_365d_median_usd,
    percentiles.history_percentile,
    windowed.lowest_ever_usd,
    windowed.lowest_ever_date,
    windowed.first_seen_date,
    windowed.days_observed,
    date_diff('day', windowed.first_seen_date, windowed.price_date) as days_tracked,
    -- within 5% of the lowest price ever seen, once the series has at least 5 weeks of history: a description of
    -- today, not advice (backtested, waiting for it captures about a fifth of what foresight saves)
    windowed.price_usd <= windowed.lowest_ever_usd * 1.05
        and date_diff('day', windowed.first_seen_date, windowed.price_date) >= 35 as is_near_lowest_ever,
    windowed.price_usd / windowed.previous_price_usd - 1 as change_vs_previous_day,
    windowed.price_usd / windowed.previous_7d_median_usd - 1 as change_vs_previous_7d_median,
    coalesce(windowed.price_usd <= windowed.previous_7d_median_usd * 0.90, false) as is_drop_10pct,
    windowed.trend_points,
    windowed.log_price_slope_per_day,
    -- today's price moved along the index trend. A line through fewer than 5 days, or under two weeks, extrapolates
    -- noise; try_cast leaves an out-of-range extrapolation NULL instead of failing the build
    case when windowed.trend_points >= 5 and windowed.trend_span_days >= 14
        then try_cast(windowed.price_usd * exp(windowed.log_price_slope_per_day * 30) as decimal(18, 6))
    end as expected_price_in_30d_usd,
    case when windowed.trend_points >= 5 and windowed.trend_span_days >= 14
        then try_cast(windowed.price_usd * exp(windowed.log_price_slope_per_day * 90) as decimal(18, 6))
    end as expected_price_in_90d_usd,
    -- dollars per TFLOPS of one GPU move with its price (its TFLOPS are fixed), so they halve when the price does;
    -- a slope over less than 90 days says nothing about years
    case when date_diff('day', windowed.first_seen_date, windowed.price_date) >= 90
        then round(formulas.halving_years(windowed.log_price_slope_per_day_365d), 3)
    end as usd_per_tflops_halving_years,
    {{ var('epoch_ai_halving_years') }} as epoch_ai_halving_years,
    windowed.is_synthetic
from windowed
inner join percentiles using (price_date, gpu_id, channel, pricing_type, price_per)
where {{ rebuilt_days_filter('windowed.price_date', onward=true) }}
