-- What each source charged each day: per day x GPU x channel x provider x source x market x host-VM basis x
-- condition x currency, the cheapest and median price of that day's snapshot of the source. Rentals per GPU-hour
-- (USD), retail cards per card (in the shop's own currency and in USD): "what did each shop charge for a 4090".
with runs as (
    select run_id, parser_version, data_origin from {{ ref('stg_raw__ingest_runs') }}
),

daily_offers as (
    select
        offers.*,
        runs.data_origin,
        case when price_unit = 'card' then 'card' else 'gpu_hour' end as price_per,
        {{ unit_price('price', 'price_per_unit') }} as unit_price,  -- in the offer's currency
        {{ unit_price('price_usd', 'price_per_gpu_hour_usd') }} as unit_price_usd
    from {{ ref('int_offers__daily') }} as offers
    left join runs using (run_id, parser_version)
    where gpu_id is not null
      -- a shop's selling price of a card it has (a shipping charge or a struck list price is no price of a card)
      and (price_unit <> 'card' or (price_role = 'selling' and coalesce(in_stock, true)))
      and {{ rebuilt_days_filter('price_date') }}
),

-- why an offer may not head an answer (a made-up figure, an unverified host's ask; macros/market_offers.sql): a
-- group key, so such offers get rows of their own, below the credible ones, with the reason
priced as (
    select
        *,
        {{ headline_gap() }} as headline_gap,
        {{ headline_gap_reason(headline_gap()) }} as headline_gap_reason
    from daily_offers
    where unit_price_usd is not null
),

aggregated as (
    select
        price_date,
        gpu_id,
        channel,
        provider,
        source,
        via,
        pricing_type,
        market,
        includes_host_vm,
        price_per,
        case when price_per = 'card' then condition end as condition,
        currency,
        headline_gap,
        headline_gap_reason,
        cast(min(unit_price) as decimal(24, 6)) as min_price,
        cast(min(unit_price_usd) as decimal(18, 6)) as min_price_usd,
        -- the median of this source's offers (regions, sizes), not a market median (that one is across providers)
        cast(median(unit_price_usd) as decimal(18, 6)) as median_offer_price_usd,
        count(*) as offer_count,
        count(distinct region) as region_count,
        bool_or(is_synthetic) as is_synthetic,
        bool_or(is_imported) as is_imported,
        bool_or(is_carried_forward) as is_carried_forward,
        max(observed_at) as observed_at
    from priced
    group by all
),

-- the provider's price in the market figures that day, when this source gave it (int_provider_prices__daily)
provider_prices as (
    select price_date, gpu_id, provider, source, market, price_per, suspect_reason
    from {{ ref('int_provider_prices__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

-- the market whose figures a row's prices may count in: none for a rental that needs a VM on top, nor for a row
-- whose offers may not head an answer (its reason is its own)
keyed as (
    select
        *,
        case when headline_gap is null and (price_per = 'card' or includes_host_vm) then market end as figures_market
    from aggregated
)

select
    keyed.* exclude (figures_market),
    -- price_per is a group key: the per-GPU-hour figures are the row's own where it is per GPU-hour (one median of
    -- millions of offers, not two)
    case when keyed.price_per = 'gpu_hour' then keyed.min_price_usd end as min_price_per_gpu_hour_usd,
    case when keyed.price_per = 'gpu_hour' then keyed.median_offer_price_usd end as median_offer_price_per_gpu_hour_usd,
    -- why the answers set this row's price aside (a suspect or unverified price keeps its row here): an offer that
    -- may not head an answer, else its provider's suspect price
    coalesce(keyed.headline_gap_reason, provider_prices.suspect_reason) as suspect_reason
from keyed
-- equalities only: a hash join (an OR, or a condition on one side, made DuckDB loop over every pair)
left join provider_prices
    on provider_prices.price_date = keyed.price_date
    and provider_prices.gpu_id = keyed.gpu_id
    and provider_prices.provider = keyed.provider
    and provider_prices.source = keyed.source
    and provider_prices.market = keyed.figures_market
    and provider_prices.price_per = keyed.price_per
