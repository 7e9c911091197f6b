-- Every offer of each day with a GPU, and what the market figures did with it: the rule that counted it or set it
-- aside, with the reason in words, beside what it takes to check it (the price as given, its unit, the ECB rate, the
-- landed document it was parsed from). The rules are those of int_offers__market_daily (macros/market_offers.sql)
-- and of int_offers__credible_daily (an offer that may not head an answer, macros/market_offers.sql headline_gap; a
-- provider whose price that day is suspect: int_provider_prices__daily's suspect_reason), read from those models and
-- macros, never restated: what `gpuprices explain` and the site's explanations
-- show. A view, like offers_daily: select one day and GPU, a whole history is millions of rows.
with daily_offers as (
    select * from {{ ref('int_offers__daily') }}
    where gpu_id is not null
),

priced as (
    {{ market_offers_priced('daily_offers') }}
),

{{ market_offer_choice('priced') }},

-- what counts in the "cheapest" answers: int_offers__credible_daily's rows (the market offers of providers whose
-- price is not suspect, and whatever rule that model adds)
credible as (
    select price_date, source, offer_id, pricing_type
    from {{ ref('int_offers__credible_daily') }}
),

provider_prices as (
    select
        price_date, gpu_id, market, price_per, provider,
        source as provider_price_source,
        price_usd as provider_price_usd,
        is_suspect,
        suspect_reason
    from {{ ref('int_provider_prices__daily') }}
),

runs as (
    select run_id, parser_version, data_origin from {{ ref('stg_raw__ingest_runs') }}
),

landed as (
    select run_id, parser_version, offer_id, pricing_type, includes_host_vm, landing_ref
    from {{ source('raw', 'offers') }}
),

fx_rates as (
    select rate_date, currency, usd_per_unit from {{ ref('int_fx_rates__daily') }}
),

gapped as (
    select
        priced.*,
        runs.data_origin,
        {{ market_entry_gap() }} as entry_gap,
        {{ headline_gap() }} as headline_gap,
        {{ headline_gap_reason(headline_gap()) }} as headline_gap_reason
    from priced
    left join runs using (run_id, parser_version)
),

judged as (
    select
        gapped.*,
        families.source is not null as is_direct_or_only_copy,
        preferred.source as preferred_source,
        -- a rental's GPU-only row of the same offer id (entry_gap) is not the counted one
        credible.source is not null and gapped.entry_gap is null as is_credible,
        provider_prices.provider_price_usd,
        provider_prices.provider_price_source,
        provider_prices.is_suspect,
        provider_prices.suspect_reason
    from gapped
    left join direct_or_only_via as families
        using (price_date, provider, gpu_id, pricing_type, instance_family, source)
    left join preferred_sources as preferred
        using (price_date, provider, gpu_id, pricing_type, instance_family)
    left join credible
        on credible.price_date = gapped.price_date
        and credible.source = gapped.source
        and credible.offer_id = gapped.offer_id
        and credible.pricing_type = gapped.pricing_type
    left join provider_prices
        on provider_prices.price_date = gapped.price_date
        and provider_prices.gpu_id = gapped.gpu_id
        and provider_prices.market = gapped.market
        and provider_prices.price_per = gapped.price_per
        and provider_prices.provider = gapped.provider
),

decided as (
    select
        *,
        case
            when entry_gap is not null then entry_gap
            when not is_direct_or_only_copy then 'aggregator_copy'
            when preferred_source <> source then 'other_source_preferred'
            -- may not head an answer: a made-up figure, an unverified host's ask (macros/market_offers.sql)
            when headline_gap is not null then headline_gap
            when is_credible then 'counted'
            when is_suspect then 'suspect'
            else 'not_credible'
        end as rule
    from judged
)

select
    decided.price_date,
    decided.gpu_id,
    decided.market,
    decided.channel,
    decided.pricing_type,
    decided.price_per,
    decided.provider,
    decided.source,
    decided.via,
    decided.offer_id,
    decided.title,
    decided.region,
    decided.instance_type,
    decided.instance_family,
    decided.condition,
    decided.in_stock,
    decided.price_role,
    decided.includes_host_vm,
    decided.gpu_count,
    decided.term_months,
    decided.price,
    decided.currency,
    decided.price_unit,
    decided.price_per_unit,
    decided.fx_rate_date,
    fx_rates.usd_per_unit as fx_usd_per_unit,
    decided.unit_price_usd,
    decided.rule,
    decided.rule = 'counted' as is_counted,
    case decided.rule
        when 'counted' then
            case when cast(decided.unit_price_usd as decimal(18, 6)) = decided.provider_price_usd
                      and decided.source = decided.provider_price_source
                then 'counted: ' || decided.provider || '''s price that day (its cheapest offer after the source preference)'
                else 'counted: one of ' || decided.provider || '''s offers (its price that day: '
                     || printf('%.4f', decided.provider_price_usd::double) || ' USD from ' || decided.provider_price_source || ')'
            end
        when 'no_market' then 'no market: a card for parts or of unknown condition (condition '
            || coalesce(decided.condition, 'not given') || ')'
        when 'no_usd_price' then
            case when decided.currency <> 'USD' and decided.fx_rate_date is null
                then 'no USD price: no ECB rate for ' || decided.currency || ' within 7 days before the day'
                else 'no USD price per ' || decided.price_per || ': the GPU count or the unit (' || decided.price_unit
                     || ') does not give one'
            end
        when 'not_a_selling_price' then 'not a selling price: a ' || decided.price_role || ' figure'
        when 'needs_a_vm' then 'incomplete price: a GPU-only SKU that needs a VM on top (includes_host_vm false)'
        when 'out_of_stock' then 'out of stock'
        when 'aggregator_copy' then 'aggregator copy: seen via ' || decided.via || ', while another source lists '
            || decided.provider || ' directly that day'
        when 'other_source_preferred' then 'source preference: ' || decided.preferred_source || ' gives '
            || decided.provider || '''s ' || coalesce(nullif(decided.instance_family, ''), decided.pricing_type)
            || ' prices that day (a real capture over a reconstructed or synthetic one, a provider''s own source over'
            || ' a SkyPilot catalog, then by name)'
        when 'made_up' then decided.headline_gap_reason
        when 'unverified_host' then decided.headline_gap_reason || ': its ask never heads an answer'
        when 'suspect' then 'suspect: ' || coalesce(decided.suspect_reason, decided.provider || '''s price that day')
        else 'set aside by int_offers__credible_daily' || coalesce(': ' || decided.suspect_reason, '')
    end as rule_reason,
    -- the offer int_provider_prices__daily takes as its provider's price (counted or set aside with its provider),
    -- compared as that model keeps the price (DECIMAL(18, 6))
    coalesce(decided.rule in ('counted', 'suspect', 'not_credible', 'made_up', 'unverified_host')
        and cast(decided.unit_price_usd as decimal(18, 6)) = decided.provider_price_usd
        and decided.source = decided.provider_price_source, false) as is_provider_price,
    decided.provider_price_usd,
    decided.provider_price_source,
    decided.observed_at,
    decided.is_carried_forward,
    decided.is_synthetic,
    decided.run_id,
    decided.parser_version,
    decided.data_origin,
    landed.landing_ref,
    decided.url
from decided
left join landed
    on landed.run_id = decided.run_id
    and landed.parser_version = decided.parser_version
    and landed.offer_id = decided.offer_id
    and landed.pricing_type = decided.pricing_type
    and landed.includes_host_vm = decided.includes_host_vm
left join fx_rates
    on fx_rates.currency = decided.currency
    and fx_rates.rate_date = decided.fx_rate_date
