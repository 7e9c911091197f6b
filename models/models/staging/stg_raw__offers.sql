-- One row per offer observation as loaded, typed and renamed for the layers above. The one filter: the offers of a
-- retracted import (`gpuprices import undo`, raw.retractions) are left out, so no model above sees them.
with source as (
    select * from {{ source('raw', 'offers') }}
    where run_id not in (select run_id from {{ source('raw', 'retractions') }})
),

marketplaces as (
    select provider from {{ ref('marketplace_providers') }}
),

-- the runs of `gpuprices import prices` (trigger import): history observed elsewhere, whatever provider it names
imported_runs as (
    select run_id from {{ source('raw', 'ingest_runs') }} where trigger = 'import'
),

-- a peer-to-peer marketplace's rentals are per-machine asks, not list prices: their own channel. Its source declares
-- it (scrapers/base.py rental_channel, from 2026-11-28); rows loaded before say 'cloud' and are read as it says now
channeled as (
    select
        offers.* replace (
            case
                when offers.channel = 'cloud'
                    and (offers.provider in (select provider from marketplaces) or offers.seller_type = 'community_cloud')
                    then 'marketplace'
                else offers.channel
            end as channel
        )
    from source as offers
),

renamed as (
    select
        run_id,
        parser_version,
        observed_at,
        cast(timezone('UTC', observed_at) as date) as price_date,
        source,
        channel,
        provider,
        via,
        interconnect,
        cluster_network,
        host_reliability,
        offer_id,
        title,
        raw_gpu_name,
        gpu_count,
        pricing_type,
        {{ market_name('channel', 'pricing_type', 'condition') }} as market,
        term_months,
        price,
        currency,
        price_unit,
        price_role,
        price_per_unit,
        includes_host_vm,
        region,
        instance_type,
        condition,
        seller_type,
        in_stock,
        url,
        landing_ref,
        is_synthetic,
        run_id in (select run_id from imported_runs) as is_imported
    from channeled
)

select * from renamed
