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

runs as (
    select run_id, parser_version, data_origin from {{ ref('stg_raw__ingest_runs') }}
),

priced as (
    {{ market_offers_priced('daily_offers') }}
),

-- complete offers, one source per provider, GPU, pricing type and instance family (macros/market_offers.sql, the
-- rules marts.offer_decisions_daily explains)
{{ market_offer_choice('priced') }}

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
    complete.cluster_network,
    complete.condition,
    complete.in_stock,
    complete.host_reliability,
    complete.seller_type,
    complete.url,
    complete.is_synthetic,
    complete.is_imported,
    complete.is_carried_forward,
    runs.data_origin,
    -- why the offer may not head an answer (a made-up figure, an unverified host's ask): kept here, left out of
    -- int_offers__credible_daily (macros/market_offers.sql)
    {{ headline_gap() }} as headline_gap
from complete
inner join preferred_sources using (price_date, provider, gpu_id, pricing_type, instance_family, source)
left join runs using (run_id, parser_version)
