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
-- In a thin market (fewer than `suspect_min_other_providers` other providers, where (a) cannot judge) the price is
-- also held against what a buyer would find plausible:
--   (d) implausible: under `suspect_class_value_fraction` of the going rate of the other GPUs of its memory class
--       that day (the median over those GPUs of each one's median price per GiB, and per dense BF16 TFLOPS where
--       known; on-demand and marketplace on-demand together, spot likewise), on every measure known, with at least
--       `suspect_class_min_gpus` other GPUs in the class;
--   (e) own_drop: a rental under `suspect_own_drop_fraction` of the provider's own median of the
--       `suspect_own_drop_window_days` days before.
-- (f) unverified: no offer of the provider may head an answer (int_offers__market_daily.headline_gap: made up, an
-- unverified host's ask; macros/market_offers.sql); a provider with any offer that may is priced from those.
-- Incremental by day; rules (c) and (e) read the window of days before each rebuilt day.
{% set window_days = var('suspect_jump_window_days') | int %}
{% set drop_window_days = var('suspect_own_drop_window_days') | int %}
with market_offers as (
    select * from {{ ref('int_offers__market_daily') }}
    where {{ rebuilt_days_filter('price_date', lookback_days=[window_days, drop_window_days] | max) }}
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
        -- the cheapest offer that may head an answer; only where there is none, the cheapest unverified ask
        coalesce(min(unit_price_usd) filter (where headline_gap is null), min(unit_price_usd)) as price_usd,
        -- the cheapest offer's source (a tie: the first by name)
        coalesce(arg_min(source, (unit_price_usd, source)) filter (where headline_gap is null),
                 arg_min(source, (unit_price_usd, source))) as source,
        count(*) as offer_count,
        -- the cheapest offer's: an import's?
        coalesce(arg_min(is_imported, (unit_price_usd, source)) filter (where headline_gap is null),
                 arg_min(is_imported, (unit_price_usd, source))) as is_imported,
        bool_and(headline_gap is not null) as is_unverified,
        string_agg(distinct headline_gap, ', ' order by headline_gap) as headline_gaps,
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
        ) as own_recent_median_usd,
        median(price_usd) over (
            partition by gpu_id, market, price_per, provider order by price_date
            range between interval {{ drop_window_days }} days preceding and interval 1 day preceding
        ) as own_drop_window_median_usd
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
        and not other.is_unverified  -- an ask nobody vouches for corroborates nothing
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

-- (d) what the price buys against the other GPUs of its memory class that day (marts.gpus: memory and dense BF16 of
-- every GPU, from the seeds only)
valued as (
    select
        rebuilt.price_date,
        rebuilt.gpu_id,
        rebuilt.market,
        rebuilt.price_per,
        rebuilt.provider,
        rebuilt.price_usd,
        rebuilt.is_unverified,
        case
            when rebuilt.market in ('on_demand', 'marketplace_on_demand') then 'on_demand'
            when rebuilt.market in ('spot', 'marketplace_spot') then 'spot'
            else rebuilt.market
        end as market_group,
        case
            when gpus.memory_gib < 20 then 'under 20 GiB'
            when gpus.memory_gib < 40 then '20-39 GiB'
            when gpus.memory_gib < 80 then '40-79 GiB'
            when gpus.memory_gib < 128 then '80-127 GiB'
            else '128 GiB and more'
        end as memory_class,
        rebuilt.price_usd::double / nullif(gpus.memory_gib, 0) as usd_per_gib,
        rebuilt.price_usd::double / nullif(gpus.bf16_dense_tflops, 0) as usd_per_tflops
    from rebuilt
    inner join {{ ref('gpus') }} as gpus using (gpu_id)
    where gpus.memory_gib > 0
),

-- each GPU's going rate in its class: the median across its providers (unverified asks left out)
gpu_rates as (
    select
        price_date, market_group, price_per, memory_class, gpu_id,
        median(usd_per_gib) as usd_per_gib,
        median(usd_per_tflops) as usd_per_tflops
    from valued
    where not is_unverified
    group by all
),

-- the class's going rate for each GPU: the median over the other GPUs of its class
class_rates as (
    select
        subject.price_date, subject.market_group, subject.price_per, subject.gpu_id,
        count(*) as class_gpu_count,
        median(other.usd_per_gib) as class_usd_per_gib,
        median(other.usd_per_tflops) as class_usd_per_tflops
    from (select distinct price_date, market_group, price_per, memory_class, gpu_id from valued) as subject
    inner join gpu_rates as other
        on other.price_date = subject.price_date
        and other.market_group = subject.market_group
        and other.price_per = subject.price_per
        and other.memory_class = subject.memory_class
        and other.gpu_id <> subject.gpu_id
    group by all
),

class_valued as (
    select
        valued.price_date, valued.gpu_id, valued.market, valued.price_per, valued.provider,
        valued.memory_class,
        class_rates.class_gpu_count,
        -- the higher of the two: a GPU cheap for its memory but not for its compute (or the reverse) is plausible
        greatest(
            valued.usd_per_gib / class_rates.class_usd_per_gib,
            coalesce(valued.usd_per_tflops / class_rates.class_usd_per_tflops, 0)
        ) as class_value_ratio
    from valued
    inner join class_rates using (price_date, market_group, price_per, gpu_id)
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
            as is_lone_jump,
        class_valued.memory_class,
        class_valued.class_gpu_count,
        class_valued.class_value_ratio,
        -- (d), (e): only where too few other providers can corroborate the price
        coalesce(others.other_provider_count, 0) < {{ var('suspect_min_other_providers') }}
            and coalesce(class_valued.class_gpu_count, 0) >= {{ var('suspect_class_min_gpus') }}
            and class_valued.class_value_ratio < {{ var('suspect_class_value_fraction') }}
            as is_implausible,
        -- rentals only: a card's street price may halve for good when a launch gouge ends (Amazon's RTX 4060 Ti
        -- 16GB, 1,840 to 600 USD in October 2023, docs/analytics.md#market-prices)
        rebuilt.price_per = 'gpu_hour'
            and coalesce(others.other_provider_count, 0) < {{ var('suspect_min_other_providers') }}
            and coalesce(rebuilt.price_usd < {{ var('suspect_own_drop_fraction') }} * rebuilt.own_drop_window_median_usd,
                         false)
            -- a cut the other providers made too is the market's
            and not (coalesce(others.others_with_history_count, 0) >= 1
                     and others.others_median_abs_log_change >= ln(1 + {{ var('suspect_market_still_share') }}))
            as is_own_drop
    from rebuilt
    left join others using (price_date, gpu_id, market, price_per, provider)
    left join placeholders using (price_date, source, provider, market, price_per, price_usd)
    left join class_valued using (price_date, gpu_id, market, price_per, provider)
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
    cast(own_drop_window_median_usd as decimal(18, 6)) as own_drop_window_median_usd,
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
        end,
        case when is_implausible then
            'implausible: ' || printf('%.2f', class_value_ratio) || ' x the going rate per GiB and per dense TFLOPS of '
            || class_gpu_count || ' other GPUs of ' || memory_class || ' that day, with ' || other_provider_count
            || ' other providers to corroborate it'
        end,
        case when is_own_drop then
            'own_drop: ' || printf('%.2f', price_usd::double / own_drop_window_median_usd::double) || ' x its own '
            || {{ drop_window_days }} || '-day median (' || printf('%.2f', own_drop_window_median_usd::double)
            || ' USD), with ' || other_provider_count || ' other providers to corroborate it'
        end,
        case when is_unverified then
            'unverified: no offer of ' || provider || ' that day may head an answer (' || headline_gaps || ')'
        end
    ), '') as suspect_reason,
    is_below_market or is_placeholder or is_lone_jump or is_implausible or is_own_drop or is_unverified as is_suspect,
    is_unverified,
    cast(class_value_ratio as decimal(12, 4)) as class_value_ratio,
    is_imported,
    is_synthetic,
    is_carried_forward
from judged
