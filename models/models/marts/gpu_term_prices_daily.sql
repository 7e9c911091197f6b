-- Every published commitment term beside the same provider's on-demand price, per GPU x provider x term each day:
-- the 1- and 3-year markets (reserved_1y / reserved_3y) and the other terms (pricing type `reserved`: Civo's 6 and
-- 24 months, Together's 1-, 3- and 6-month tiers), from int_offers__daily (complete rentals, host VM included, USD
-- per GPU-hour). An imported history's days stand alone (GCP committed use 2022-2025). The discount is against the
-- provider's own cheapest on-demand price of the GPU that day in the same document, else in a real capture of the
-- day when the term is one too (no discount across vintages). Incremental by day.
with offers as (
    select * from {{ ref('int_offers__daily') }}
    where gpu_id is not null
      and channel = 'cloud'
      and includes_host_vm
      and price_role = 'selling'
      and price_per_gpu_hour_usd is not null
      and {{ rebuilt_days_filter('price_date') }}
),

terms as (
    select
        price_date,
        gpu_id,
        provider,
        term_months,
        -- the one pricing type of the term: reserved_1y (12), reserved_3y (36) or reserved (any other)
        min(pricing_type) as pricing_type,
        cast(min(price_per_gpu_hour_usd) as decimal(18, 6)) as term_price_usd,
        arg_min(source, (price_per_gpu_hour_usd, source)) as source,
        arg_min(offer_id, (price_per_gpu_hour_usd, offer_id)) as offer_id,
        arg_min(price_unit, (price_per_gpu_hour_usd, offer_id)) as price_unit,
        -- the size the cheapest rate is sold at (a cluster rate's smallest cluster, an instance's GPUs): the
        -- commitment's minimum; the smaller size wins a tie in price
        cast(ceil(arg_min(gpu_count, (price_per_gpu_hour_usd, gpu_count, offer_id))) as bigint) as min_gpus,
        count(*) as offer_count,
        bool_or(is_synthetic) as is_synthetic,
        bool_and(is_carried_forward) as is_carried_forward
    from offers
    where term_months is not null
      and pricing_type in ('reserved_1y', 'reserved_3y', 'reserved')
    group by price_date, gpu_id, provider, term_months
),

-- each source's on-demand price of the provider's GPU that day: a discount compares prices of one moment, so the
-- term is set beside the on-demand price of its own source (the same document) where that source lists one, else
-- beside another source's only when both are real captures of the day (a 2024 committed-use excerpt replayed beside a
-- 2026 list price made GCP's 1-year term "43% dearer than on-demand")
on_demand as (
    select
        price_date,
        gpu_id,
        provider,
        source,
        cast(min(price_per_gpu_hour_usd) as decimal(18, 6)) as on_demand_price_usd,
        bool_or(is_synthetic) as is_synthetic
    from offers
    where pricing_type = 'on_demand'
    group by all
),

paired as (
    select
        terms.*,
        coalesce(
            (select min(same.on_demand_price_usd) from on_demand as same
             where same.price_date = terms.price_date and same.gpu_id = terms.gpu_id
               and same.provider = terms.provider and same.source = terms.source),
            case when not terms.is_synthetic then
                (select min(other.on_demand_price_usd) from on_demand as other
                 where other.price_date = terms.price_date and other.gpu_id = terms.gpu_id
                   and other.provider = terms.provider and not other.is_synthetic)
            end) as on_demand_price_usd
    from terms
)

select
    paired.*,
    cast(1 - term_price_usd / on_demand_price_usd as decimal(9, 6)) as discount_vs_on_demand
from paired
