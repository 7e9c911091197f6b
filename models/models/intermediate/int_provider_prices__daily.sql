{{ config(materialized='incremental') }}
-- One price per provider each day, GPU, market and unit: the provider's cheapest offer after the source preference
-- (int_offers__market_daily), and whether that price is suspect, with the reason. A suspect price is one the market
-- would not recognise (thresholds: dbt vars suspect_*, chosen on the real data: docs/analytics.md#market-prices):
--   (a) below_market: under `suspect_below_median_fraction` of the median of the other providers that day, with at
--       least `suspect_min_other_providers` others;
--   (b) placeholder: its source gives one identical figure to GPUs of different classes (memory or dense BF16
--       apart by `suspect_placeholder_class_ratio`) where that figure is all it lists for the provider in the
--       market, or to GPUs `suspect_placeholder_wide_class_ratio` apart (an L4 and an H200) in any case; peer-to-peer
--       asks are left out (thousands of owners' asks meet on round figures by chance);
--   (c) jump: `suspect_jump_factor` times above or below the provider's own median of the `suspect_jump_window_days`
--       days before, while the other providers' prices moved by less than `suspect_market_still_share`.
-- Incremental by day; rule (c) reads the window of days before each rebuilt day.
{% set window_days = var('suspect_jump_window_days') | int %}
with market_offers as (
    select * from {{ ref('int_offers__market_daily') }}
    where {{ rebuilt_days_filter('price_date', lookback_days=window_days) }}
),

provider_prices as (
    select
        price_date,
        gpu_id,
        channel,
        pricing_type,
        market,
        price_per,
        provider,
        min(unit_price_usd) as price_usd,
        arg_min(source, (unit_price_usd, source)) as source,  -- the cheapest offer's source (a tie: the first by name)
        count(*) as offer_count,
        arg_min(is_imported, (unit_price_usd, source)) as is_imported,  -- the cheapest offer's: an import's?
        bool_or(is_synthetic) as is_synthetic,
        bool_and(is_carried_forward) as is_carried_forward
    from market_offers
    group by all
),

with_own_history as (
    select
        *,
        median(price_usd) over (
            partition by gpu_id, market, price_per, provider order by price_date
            range between interval {{ window_days }} days preceding and interval 1 day preceding
        ) as own_recent_median_usd
    from provider_prices
),

with_change as (
    select
        *,
        price_usd::double / own_recent_median_usd::double as change_ratio
    from with_own_history
),

rebuilt as (
    select * from with_change
    where {{ rebuilt_days_filter('price_date') }}
),

-- the other providers of the same GPU, market and unit that day
others as (
    select
        subject.price_date,
        subject.gpu_id,
        subject.market,
        subject.price_per,
        subject.provider,
        count(*) as other_provider_count,
        median(other.price_usd) as others_median_usd,
        count(other.change_ratio) as others_with_history_count,
        median(abs(ln(other.change_ratio))) as others_median_abs_log_change
    from rebuilt as subject
    inner join rebuilt as other
        on other.price_date = subject.price_date
        and other.gpu_id = subject.gpu_id
        and other.market = subject.market
        and other.price_per = subject.price_per
        and other.provider <> subject.provider
    group by all
),

-- (b) one figure a source gives to several GPUs of a provider in one market and day
classed as (
    select
        rebuilt.*,
        specs.memory_gib,
        specs.bf16_dense_tflops
    from rebuilt
    left join {{ ref('int_gpu_specs') }} as specs using (gpu_id)
    where rebuilt.channel <> 'marketplace'
),

listed as (
    select price_date, source, provider, market, price_per, count(distinct gpu_id) as listed_gpu_count
    from classed
    group by all
),

shared_figures as (
    select
        price_date,
        source,
        provider,
        market,
        price_per,
        price_usd,
        count(distinct gpu_id) as sharing_gpu_count,
        greatest(
            coalesce(max(memory_gib) / nullif(min(memory_gib), 0), 1),
            coalesce(max(bf16_dense_tflops) / nullif(min(bf16_dense_tflops), 0), 1)
        ) as class_ratio,
        string_agg(distinct gpu_id, ', ' order by gpu_id) as sharing_gpus
    from classed
    group by all
    having count(distinct gpu_id) >= 2
),

placeholders as (
    select shared_figures.*
    from shared_figures
    inner join listed using (price_date, source, provider, market, price_per)
    where shared_figures.class_ratio >= {{ var('suspect_placeholder_wide_class_ratio') }}
        or (
            shared_figures.sharing_gpu_count = listed.listed_gpu_count
            and shared_figures.class_ratio >= {{ var('suspect_placeholder_class_ratio') }}
        )
),

judged as (
    select
        rebuilt.*,
        coalesce(others.other_provider_count, 0) as other_provider_count,
        cast(others.others_median_usd as decimal(18, 6)) as others_median_usd,
        coalesce(others.other_provider_count, 0) >= {{ var('suspect_min_other_providers') }}
            and rebuilt.price_usd < {{ var('suspect_below_median_fraction') }} * others.others_median_usd
            as is_below_market,
        placeholders.sharing_gpus is not null as is_placeholder,
        placeholders.sharing_gpus,
        rebuilt.change_ratio is not null
            and (rebuilt.change_ratio >= {{ var('suspect_jump_factor') }}
                 or rebuilt.change_ratio <= 1.0 / {{ var('suspect_jump_factor') }})
            and coalesce(others.others_with_history_count, 0) >= 1
            and others.others_median_abs_log_change < ln(1 + {{ var('suspect_market_still_share') }})
            as is_lone_jump
    from rebuilt
    left join others using (price_date, gpu_id, market, price_per, provider)
    left join placeholders using (price_date, source, provider, market, price_per, price_usd)
)

select
    price_date,
    gpu_id,
    channel,
    pricing_type,
    market,
    price_per,
    provider,
    source,
    cast(price_usd as decimal(18, 6)) as price_usd,
    offer_count,
    other_provider_count,
    others_median_usd,
    cast(own_recent_median_usd as decimal(18, 6)) as own_recent_median_usd,
    nullif(concat_ws('; ',
        case when is_below_market then
            'below_market: ' || printf('%.2f', price_usd::double / others_median_usd::double)
            || ' x the median of ' || other_provider_count || ' other providers ('
            || printf('%.2f', others_median_usd::double) || ' USD)'
        end,
        case when is_placeholder then
            'placeholder: ' || source || ' gives ' || printf('%.2f', price_usd::double) || ' USD to ' || sharing_gpus
        end,
        case when is_lone_jump then
            'jump: ' || printf('%.2f', change_ratio) || ' x its own ' || {{ window_days }} || '-day median ('
            || printf('%.2f', own_recent_median_usd::double) || ' USD) while the other providers held'
        end
    ), '') as suspect_reason,
    is_below_market or is_placeholder or is_lone_jump as is_suspect,
    is_imported,
    is_synthetic,
    is_carried_forward
from judged
