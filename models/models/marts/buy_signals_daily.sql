-- Is today a good day to buy or rent? Per day x GPU x channel x market, the day's cheapest price against
-- its own history: trailing 30/90/365-day min and median, percentile among every day seen so far, the lowest price
-- ever and when, a near-the-lowest flag, drops, and the trend with the prices it points to. The trend is fitted to
-- the matched-offer price index (gpu_price_index_daily), not to the cheapest price, so a source appearing or
-- failing bends no trend. The buy verdict itself is analytics/buy_signal.py (backtested; `gpuprices backtest`).
-- Every figure is over one constant-panel segment of the series (gpu_price_panels: the same providers behind the
-- cheapest): where the panel changes a new series starts, so no window, low or percentile compares the cheapest of
-- other providers (issue 40).
-- Incremental: a build rewrites every day from the first rebuilt one on (a day's figures depend on the days before).
{# the days whose windows this build computes: the rewritten days and the 365 before them (the longest trailing
    window); set once, each rendering reads the build's plan #}
{% set window_days = rebuilt_days_filter('price_date', onward=true, lookback_days=365) %}
with all_prices as (
    select
        daily.price_date,
        daily.gpu_id,
        daily.channel,
        daily.market,
        daily.price_per,
        daily.min_price_usd as price_usd,
        price_index.price_index,
        date_diff('day', date '1970-01-01', daily.price_date) as day_number,
        daily.is_synthetic,
        panels.panel_id,
        panels.panel_start
    from {{ ref('gpu_prices_daily') }} as daily
    left join {{ ref('gpu_price_index_daily') }} as price_index
        using (price_date, gpu_id, channel, market, price_per)
    left join {{ ref('gpu_price_panels') }} as panels
        on panels.gpu_id = daily.gpu_id
        and panels.channel = daily.channel
        and panels.market = daily.market
        and panels.price_per = daily.price_per
        and daily.price_date between panels.panel_start and panels.panel_end
),

-- The days whose windows this build computes (window_days above), not the whole history (a full rebuild: every day).
prices as (
    select * from all_prices
    where {{ window_days }}
),

-- Each series (one panel's segment) before those days, summed up (none on a full rebuild): where its running "ever" figures start from.
-- Ties go to the earliest day, here and in `windowed`, so an incremental build gives a full rebuild's figures.
earlier_history as (
    select
        gpu_id, channel, market, price_per, panel_start,
        min(price_usd) as lowest_usd,
        arg_min(price_date, (price_usd, price_date)) as lowest_date,
        min(price_date) as first_seen_date,
        count(*) as days_observed,
        arg_max(price_usd, price_date) as last_price_usd
    from all_prices
    where not ({{ window_days }})
    group by all
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
        min(price_usd) over ever as lowest_usd_since_window,
        arg_min(price_date, price_usd) over ever as lowest_date_since_window,  -- the earliest of equal lows
        min(price_date) over ever as first_date_since_window,
        count(*) over ever as days_since_window,
        count(price_index) over trailing_90d as trend_points,
        day_number - min(day_number) over trailing_90d as trend_span_days,
        -- rounded: a window's float sums come out in a different order from one build to the next, and an
        -- incremental build must give the figures a full rebuild gives
        round(regr_slope(ln(price_index), day_number) over trailing_90d, 12) as log_price_slope_per_day,
        round(regr_slope(ln(price_index), day_number) over trailing_365d, 12) as log_price_slope_per_day_365d
    from prices
    -- each window spelled out in full: DuckDB does not carry a partition through a named base window
    window
        by_day as (partition by gpu_id, channel, market, price_per, panel_start order by price_date),
        ever as (partition by gpu_id, channel, market, price_per, panel_start order by price_date rows between unbounded preceding and current row),
        previous_7d as (partition by gpu_id, channel, market, price_per, panel_start order by price_date range between interval 7 days preceding and interval 1 day preceding),
        trailing_30d as (partition by gpu_id, channel, market, price_per, panel_start order by price_date range between interval 29 days preceding and current row),
        trailing_90d as (partition by gpu_id, channel, market, price_per, panel_start order by price_date range between interval 89 days preceding and current row),
        trailing_365d as (partition by gpu_id, channel, market, price_per, panel_start order by price_date range between interval 364 days preceding and current row)
),

-- The running figures of the window, continued from the series' earlier history
with_history as (
    select
        windowed.* exclude (lowest_usd_since_window, lowest_date_since_window, first_date_since_window,
                            days_since_window)
            replace (coalesce(windowed.previous_price_usd, earlier_history.last_price_usd) as previous_price_usd),
        least(windowed.lowest_usd_since_window, earlier_history.lowest_usd) as lowest_ever_usd,
        case
            when earlier_history.lowest_usd <= windowed.lowest_usd_since_window then earlier_history.lowest_date
            else windowed.lowest_date_since_window
        end as lowest_ever_date,
        coalesce(earlier_history.first_seen_date, windowed.first_date_since_window) as first_seen_date,
        coalesce(earlier_history.days_observed, 0) + windowed.days_since_window as days_observed
    from windowed
    -- null-safe: a unit test's rows may have no panel
    left join earlier_history
        on earlier_history.gpu_id = windowed.gpu_id
        and earlier_history.channel = windowed.channel
        and earlier_history.market = windowed.market
        and earlier_history.price_per = windowed.price_per
        and earlier_history.panel_start is not distinct from windowed.panel_start
),

-- Share of the days seen so far (this one included) that were cheaper than today: 0 = the cheapest day yet.
percentiles as (
    select
        today.price_date, today.gpu_id, today.channel, today.market, today.price_per,
        count(*) filter (where earlier.price_usd < today.price_usd) / nullif(count(*) - 1, 0) as history_percentile
    from prices as today
    inner join all_prices as earlier
        on earlier.gpu_id = today.gpu_id
        and earlier.channel = today.channel
        and earlier.market = today.market
        and earlier.price_per = today.price_per
        and earlier.panel_start is not distinct from today.panel_start
        and earlier.price_date <= today.price_date
    where {{ rebuilt_days_filter('today.price_date', onward=true) }}
    group by all
)

select
    with_history.price_date,
    with_history.gpu_id,
    with_history.channel,
    with_history.market,
    with_history.price_per,
    with_history.panel_id,
    with_history.panel_start,
    with_history.price_usd,
    with_history.trailing_30d_min_usd,
    with_history.trailing_30d_median_usd,
    with_history.trailing_90d_min_usd,
    with_history.trailing_90d_median_usd,
    with_history.trailing_365d_min_usd,
    with_history.trailing_365d_median_usd,
    percentiles.history_percentile,
    with_history.lowest_ever_usd,
    with_history.lowest_ever_date,
    with_history.first_seen_date,
    with_history.days_observed,
    date_diff('day', with_history.first_seen_date, with_history.price_date) as days_tracked,
    -- within 5% of the lowest price ever seen, once the series has at least 5 weeks of history: a description of
    -- today, not advice (backtested, waiting for it captures about a fifth of what foresight saves)
    with_history.price_usd <= with_history.lowest_ever_usd * 1.05
        and date_diff('day', with_history.first_seen_date, with_history.price_date) >= 35 as is_near_lowest_ever,
    with_history.price_usd / with_history.previous_price_usd - 1 as change_vs_previous_day,
    with_history.price_usd / with_history.previous_7d_median_usd - 1 as change_vs_previous_7d_median,
    coalesce(with_history.price_usd <= with_history.previous_7d_median_usd * 0.90, false) as is_drop_10pct,
    with_history.trend_points,
    with_history.log_price_slope_per_day,
    -- today's price moved along the index trend. A line through fewer than 5 days, or under two weeks, extrapolates
    -- noise; try_cast leaves an out-of-range extrapolation NULL instead of failing the build
    case when with_history.trend_points >= 5 and with_history.trend_span_days >= 14
        then try_cast(with_history.price_usd * exp(with_history.log_price_slope_per_day * 30) as decimal(18, 6))
    end as expected_price_in_30d_usd,
    case when with_history.trend_points >= 5 and with_history.trend_span_days >= 14
        then try_cast(with_history.price_usd * exp(with_history.log_price_slope_per_day * 90) as decimal(18, 6))
    end as expected_price_in_90d_usd,
    -- dollars per TFLOPS of one GPU move with its price (its TFLOPS are fixed), so they halve when the price does;
    -- a slope over less than 90 days says nothing about years
    case when date_diff('day', with_history.first_seen_date, with_history.price_date) >= 90
        then round(formulas.halving_years(with_history.log_price_slope_per_day_365d), 3)
    end as usd_per_tflops_halving_years,
    {{ var('epoch_ai_halving_years') }} as epoch_ai_halving_years,
    with_history.is_synthetic
from with_history
inner join percentiles using (price_date, gpu_id, channel, market, price_per)
where {{ rebuilt_days_filter('with_history.price_date', onward=true) }}
