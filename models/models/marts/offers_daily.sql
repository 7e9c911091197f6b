-- Every offer of each day, one row per offer per day: the snapshots of int_offers__daily (each source's last loaded
-- run of the day, or its last good one carried forward, marked) with the offer's attributes, its price as given and
-- in USD per GPU-hour or per card, and what the run's data is (data_origin). Nothing is filtered: GPU names no alias
-- matches (gpu_id NULL), shipping charges and list prices, GPU-only SKUs and out-of-stock cards are here too, each
-- saying so. A view: a copy of millions of offer rows would cost every build its write time; a query on a few days
-- reads only those days of int_offers__daily.
with offers as (
    select * from {{ ref('int_offers__daily') }}
),

runs as (
    select run_id, parser_version, data_origin from {{ ref('stg_raw__ingest_runs') }}
)

select
    offers.price_date,
    offers.observed_at,
    offers.is_carried_forward,
    offers.source,
    offers.provider,
    offers.via,
    offers.channel,
    offers.offer_id,
    offers.title,
    offers.gpu_id,
    offers.raw_gpu_name,
    offers.gpu_count,
    offers.instance_type,
    offers.interconnect,
    offers.cluster_network,
    offers.host_reliability,
    offers.region,
    offers.pricing_type,
    offers.market,
    offers.term_months,
    offers.includes_host_vm,
    offers.condition,
    offers.seller_type,
    offers.in_stock,
    offers.price_role,
    offers.price,
    offers.currency,
    offers.price_unit,
    case when offers.price_unit = 'card' then 'card' else 'gpu_hour' end as price_per,
    offers.price_per_unit,
    offers.price_per_gpu_hour_usd,
    case when offers.price_unit = 'card' then
        {{ unit_price('price_usd', 'price_per_gpu_hour_usd', offers='offers') }}
    end as price_per_card_usd,
    offers.fx_rate_date,
    offers.is_synthetic,
    offers.is_imported,
    runs.data_origin,
    offers.run_id,
    offers.url
from offers
left join runs using (run_id, parser_version)
