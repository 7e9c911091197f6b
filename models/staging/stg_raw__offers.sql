-- One row per offer observation as loaded, typed and renamed for the layers above. The one filter: the offers of a
-- retracted import (`gpuprices import undo`, raw.retractions) are left out, so no model above sees them.
with source as (
    select * from {{ source('raw', 'offers') }}
    where run_id not in (select run_id from {{ source('raw', 'retractions') }})
),

marketplaces as (
    select provider from {{ ref('marketplace_providers') }}
),

renamed as (
    select
        run_id,
        parser_version,
        observed_at,
        cast(timezone('UTC', observed_at) as date) as price_date,
        source,
        -- a peer-to-peer marketplace's rentals are per-machine asks, not list prices: their own channel
        case
            when channel = 'cloud'
                and (provider in (select provider from marketplaces) or seller_type = 'community_cloud')
                then 'marketplace'
            else channel
        end as channel,
        provider,
        via,
        interconnect,
        cluster_network,
        offer_id,
        title,
        raw_gpu_name,
        gpu_count,
        pricing_type,
        term_months,
        price,
        currency,
        price_unit,
        price_role,
        price_usd,
        price_per_gpu_hour_usd,
        price_per_unit,
        includes_host_vm,
        region,
        instance_type,
        condition,
        seller_type,
        in_stock,
        url,
        landing_ref,
        is_synthetic
    from source
)

select * from renamed
