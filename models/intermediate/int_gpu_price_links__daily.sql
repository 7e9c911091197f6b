{{ config(
    schema='intermediate', materialized='incremental', incremental_strategy='delete+insert', unique_key='price_date'
) }}
-- One link of the matched-offer price index per day, GPU and market: the change from the series' previous day
-- (within the 14 days before: weekly price lists link too) measured only over offers seen on both days (same source,
-- offer, region, pricing type), as the trimmed mean of their log price ratios (the ratios between the 10th and
-- 90th percentile: one odd offer cannot move it, while a move of a minority of offers still counts; a median would
-- drop every change that fewer than half the offers make, and a chain of such links never moves). A source
-- appearing or failing changes which offers exist, never the link. Incremental by day (each link needs its day and
-- at most the 14 days before).
with offers as (
    select price_date, gpu_id, channel, pricing_type, price_per, source, offer_id,
           coalesce(region, '') as region, min(unit_price_usd) as unit_price_usd, bool_or(is_synthetic) as is_synthetic
    from {{ ref('int_offers__credible_daily') }}
    where {{ rebuilt_days_filter('price_date', lookback_days=14) }}
    group by all
),

series_days as (
    select distinct price_date, gpu_id, channel, pricing_type, price_per from offers
),

previous_days as (
    select
        *,
        lag(price_date) over (partition by gpu_id, channel, pricing_type, price_per order by price_date)
            as previous_date
    from series_days
),

-- each offer's previous sighting (a window per offer: ~20x faster than joining the offers to themselves)
offers_with_previous as (
    select
        *,
        lag(price_date) over same_offer as offer_previous_date,
        lag(unit_price_usd) over same_offer as previous_unit_price_usd,
        lag(is_synthetic) over same_offer as previous_is_synthetic
    from offers
    window same_offer as (
        partition by gpu_id, channel, pricing_type, price_per, source, offer_id, region order by price_date
    )
),

-- matched: seen on the day and on the series' previous day
linked as (
    select
        previous_days.price_date,
        previous_days.gpu_id,
        previous_days.channel,
        previous_days.pricing_type,
        previous_days.price_per,
        previous_days.previous_date,
        ln(offers_with_previous.unit_price_usd::double / offers_with_previous.previous_unit_price_usd::double)
            as log_ratio,
        offers_with_previous.is_synthetic or offers_with_previous.previous_is_synthetic as is_synthetic
    from previous_days
    inner join offers_with_previous using (price_date, gpu_id, channel, pricing_type, price_per)
    where offers_with_previous.offer_previous_date = previous_days.previous_date
      and previous_days.price_date - previous_days.previous_date <= 14
),

-- each link's trimming bounds: the 10th and 90th percentile of its offers' log ratios (one aggregate per link;
-- a window over each link's offers costs several times more at 10,000 marketplace offers a day)
bounds as (
    select
        price_date, gpu_id, channel, pricing_type, price_per,
        quantile_cont(log_ratio, [0.1, 0.9]) as trim_bounds
    from linked
    group by all
),

links as (
    select
        linked.price_date, linked.gpu_id, linked.channel, linked.pricing_type, linked.price_per, linked.previous_date,
        coalesce(
            avg(linked.log_ratio) filter (where linked.log_ratio between bounds.trim_bounds[1] and bounds.trim_bounds[2]),
            median(linked.log_ratio)
        ) as mean_log_ratio,
        count(*) as matched_offer_count,
        bool_or(linked.is_synthetic) as is_synthetic
    from linked
    inner join bounds using (price_date, gpu_id, channel, pricing_type, price_per)
    group by linked.price_date, linked.gpu_id, linked.channel, linked.pricing_type, linked.price_per,
        linked.previous_date
)

-- every series day of the rebuilt days, with its link (none: no offer seen on both days, the index holds)
select
    series_days.price_date,
    series_days.gpu_id,
    series_days.channel,
    series_days.pricing_type,
    series_days.price_per,
    links.previous_date,
    coalesce(links.mean_log_ratio, 0) as mean_log_ratio,
    coalesce(links.matched_offer_count, 0) as matched_offer_count,
    coalesce(links.is_synthetic, false) as is_synthetic
from series_days
left join links using (price_date, gpu_id, channel, pricing_type, price_per)
where {{ rebuilt_days_filter('series_days.price_date') }}
