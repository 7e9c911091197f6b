-- The market price of a GPU each day, per market and unit, that one odd offer cannot move: one price per provider
-- (its cheapest after the source preference, int_provider_prices__daily), then across providers the count, min,
-- 25th percentile, median and max (of every provider, suspect ones included: their names say so; the market
-- median is gpu_prices_daily.median_price_usd, over credible providers), and the credible minimum: the lowest price that is not suspect, with its
-- provider. USD per GPU-hour for rentals, per card for retail.
with provider_prices as (
    select * from {{ ref('int_provider_prices__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

aggregated as (
    select
        price_date,
        gpu_id,
        channel,
        market,
        price_per,
        count(*) as provider_count,
        cast(min(price_usd) as decimal(18, 6)) as min_price_usd,
        cast(quantile_cont(price_usd, 0.25) as decimal(18, 6)) as p25_all_providers_price_usd,
        cast(median(price_usd) as decimal(18, 6)) as median_all_providers_price_usd,
        cast(max(price_usd) as decimal(18, 6)) as max_price_usd,
        count(*) filter (where not is_suspect) as credible_provider_count,
        cast(min(price_usd) filter (where not is_suspect) as decimal(18, 6)) as credible_min_price_usd,
        (list(provider order by price_usd, provider) filter (where not is_suspect))[1] as credible_min_provider,
        (list(source order by price_usd, provider) filter (where not is_suspect))[1] as credible_min_source,
        -- the credible minimum is an import's (`gpuprices import prices`), whatever provider it names
        (list(is_imported order by price_usd, provider) filter (where not is_suspect))[1] as credible_min_is_imported,
        count(*) filter (where is_suspect) as suspect_provider_count,
        string_agg(provider || ' ' || printf('%.2f', price_usd::double) || ' (' || suspect_reason || ')', '; '
                   order by price_usd) filter (where is_suspect) as suspect_prices,
        bool_or(is_synthetic) as is_synthetic,
        bool_and(is_carried_forward) as is_carried_forward
    from provider_prices
    group by all
)

select
    *,
    credible_provider_count = 1 as is_single_provider
from aggregated
