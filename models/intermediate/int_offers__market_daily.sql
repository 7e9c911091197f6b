{{ config(materialized='incremental') }}
-- The offers the market figures are computed from, one USD price per unit each:
--   * rentals only when the price is complete (GPU-only SKUs that need a VM on top are left out), per GPU-hour;
--   * retail cards in stock, per card, in a market by condition (retail_new vs retail_used: stg_raw__offers.market);
--   * an aggregator's copy of a provider's offer (`via`) only where no source lists that provider directly;
--   * one source per provider, GPU, pricing type and instance family (macros/instance_family.sql), so a provider
--     seen by two sources (its own API and a catalog that copies it) counts once, while the families only one of
--     them lists stay: a real capture beats a reconstructed or synthetic one, the provider's own API beats a catalog.
with daily_offers as (
    select * from {{ ref('int_offers__daily') }}
    where gpu_id is not null
      and {{ rebuilt_days_filter('price_date') }}
),

priced as (
    select
        daily_offers.*,
        case when daily_offers.price_unit = 'card' then 'card' else 'gpu_hour' end as price_per,
        {{ unit_price('price_usd', 'price_per_gpu_hour_usd', offers='daily_offers') }} as unit_price_usd,
        {{ instance_family('daily_offers.instance_type') }} as instance_family
    from daily_offers
),

complete as (
    select *
    from priced
    where market is not null  -- a card for parts or of unknown condition is in no market (macros/market.sql)
      and unit_price_usd is not null
      and price_role = 'selling'  -- a shipping charge or list price is not what the item sells for
      and (
          (price_per = 'gpu_hour' and includes_host_vm)
          or (price_per = 'card' and coalesce(in_stock, true))
      )
),

source_families as (
    select
        price_date, provider, gpu_id, pricing_type, instance_family, source,
        bool_or(is_synthetic) as is_synthetic,
        bool_or(via is not null) as is_via_aggregator
    from complete
    group by all
),

-- an aggregator's copy (via shadeform, primeintellect...) counts only where no source lists the provider directly
-- for that GPU and pricing type that day: the same machine seen twice is one offer (both stay in the by-source mart)
direct_or_only_via as (
    select *
    from source_families
    qualify not is_via_aggregator
        or not bool_or(not is_via_aggregator) over (partition by price_date, provider, gpu_id, pricing_type)
),

preferred_sources as (
    select price_date, provider, gpu_id, pricing_type, instance_family, source
    from direct_or_only_via
    qualify row_number() over (
        partition by price_date, provider, gpu_id, pricing_type, instance_family
        order by is_synthetic, source like 'skypilot-%', source
    ) = 1
)

-- only the columns the layers above (and the tests of the conversion) read: every other one is in int_offers__daily;
-- writing all 40 columns of millions of rows cost a full 3-year rebuild about 20 s (gpuprices bench build)
select
    complete.price_date,
    complete.observed_at,
    complete.source,
    complete.channel,
    complete.provider,
    complete.via,
    complete.offer_id,
    complete.title,
    complete.gpu_id,
    complete.gpu_count,
    complete.pricing_type,
    complete.market,
    complete.price,
    complete.price_per_unit,
    complete.currency,
    complete.fx_rate_date,
    complete.price_per,
    complete.unit_price_usd,
    complete.region,
    complete.instance_type,
    complete.instance_family,
    complete.condition,
    complete.in_stock,
    complete.host_reliability,
    complete.url,
    complete.is_synthetic,
    complete.is_carried_forward
from complete
inner join preferred_sources using (price_date, provider, gpu_id, pricing_type, instance_family, source)
