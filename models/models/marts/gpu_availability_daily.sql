-- Listed vs available, per GPU, rental market and provider each day: how many of the provider's market offers
-- (int_offers__market_daily: one source per provider and instance family, host VM included) the source said could be
-- launched (in_stock true), could not (false) or said nothing of (NULL), and the cheapest price of each. A provider
-- is `available` when one offer was, `unavailable` when the source said so of every offer, else `unknown`.
-- Availability is never carried: on a day a source's snapshot stands in for a failed run (is_carried_forward), its
-- offers' stock is unknown, whatever the old snapshot said. A day with no snapshot at all has no row (unknown).
-- The offers that may not head an answer (headline_gap: made up, an unverified host's ask) are a row of their own,
-- set aside like a suspect price. Whether the provider's price is suspect (int_provider_prices__daily) rides along, so "cheapest available" answers
-- (gpu_cheapest_available_daily) leave the same providers out as the credible minimum. Incremental by day.
with market_offers as (
    select
        *,
        -- what the day's own run said of the offer's stock; a carried snapshot says nothing about today
        case when is_carried_forward then null else in_stock end as in_stock_today
    from {{ ref('int_offers__market_daily') }}
    where price_per = 'gpu_hour'
      and {{ rebuilt_days_filter('price_date') }}
),

provider_prices as (
    select price_date, gpu_id, market, provider, is_suspect, suspect_reason
    from {{ ref('int_provider_prices__daily') }}
    where price_per = 'gpu_hour'
      and {{ rebuilt_days_filter('price_date') }}
),

by_provider as (
    select
        price_date,
        gpu_id,
        channel,
        market,
        provider,
        -- an offer that may not head an answer (made up, an unverified host's ask) is a row of its own, set aside
        headline_gap,
        arg_min(source, (unit_price_usd, source)) as source,
        count(*) as offer_count,
        count(*) filter (where in_stock_today) as available_offer_count,
        count(*) filter (where not in_stock_today) as unavailable_offer_count,
        count(*) filter (where in_stock_today is null) as unknown_offer_count,
        cast(min(unit_price_usd) as decimal(18, 6)) as listed_price_usd,
        cast(min(unit_price_usd) filter (where in_stock_today) as decimal(18, 6)) as available_price_usd,
        arg_min(offer_id, (unit_price_usd, offer_id)) filter (where in_stock_today) as available_offer_id,
        count(host_reliability) as offers_with_reliability,
        cast(min(host_reliability) as decimal(7, 6)) as min_host_reliability,
        cast(median(host_reliability) as decimal(7, 6)) as median_host_reliability,
        bool_or(is_synthetic) as is_synthetic,
        bool_and(is_carried_forward) as is_carried_forward
    from market_offers
    group by all
)

select
    by_provider.*,
    case
        when by_provider.available_offer_count > 0 then 'available'
        when by_provider.unavailable_offer_count = by_provider.offer_count then 'unavailable'
        else 'unknown'
    end as availability,
    by_provider.headline_gap is not null or coalesce(provider_prices.is_suspect, false) as is_suspect,
    case
        when by_provider.headline_gap = 'made_up' then 'made up: a documented-format file''s figure'
        when by_provider.headline_gap = 'unverified_host' then 'unverified: hosts ' || by_provider.provider
            || ' does not mark verified'
        else provider_prices.suspect_reason
    end as suspect_reason
from by_provider
left join provider_prices using (price_date, gpu_id, market, provider)
