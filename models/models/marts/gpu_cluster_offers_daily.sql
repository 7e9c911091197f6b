-- The cluster market: rentals of whole 8-GPU (or larger) nodes and offers whose network between nodes is known, each
-- day, with the fabric: the source's own word (raw cluster_network: Latitude.sh, Voltage Park), else the provider's
-- documentation of the instance type (seed instance_fabrics: Azure ND-series, Nebius 8-GPU presets, AWS EFA types,
-- GCP A3, OCI
-- BM.GPU.*.8, CoreWeave A100), else unknown. USD per GPU-hour and per node-hour, host VM included. A view over int_offers__daily (one
-- row per offer per day), read a few days at a time.
with offers as (
    select * from {{ ref('int_offers__daily') }}
    where gpu_id is not null
      and channel in ('cloud', 'marketplace')
      and includes_host_vm
      and price_role = 'selling'
      and price_per_gpu_hour_usd is not null
      and pricing_type <> 'purchase'
),

fabrics as (
    select * from {{ ref('instance_fabrics') }}
),

-- the documented fabric of the offer's instance type: the seed's patterns of a provider never overlap
-- (tests/flows/test_renter_marts.py), so an offer matches one row at most and no aggregation is needed (a group by
-- over every column of millions of offer-days cost the full rebuild minutes)
nodes as (
    select
        offers.*,
        fabrics.cluster_network as documented_network,
        fabrics.fabric as documented_fabric,
        fabrics.source_url as documented_source_url
    from offers
    left join fabrics
        on fabrics.provider = offers.provider
        and offers.instance_type like fabrics.instance_type_pattern
    where offers.gpu_count >= 8 or offers.cluster_network is not null or fabrics.provider is not null
)

select
    price_date,
    gpu_id,
    provider,
    source,
    via,
    channel,
    market,
    pricing_type,
    term_months,
    offer_id,
    instance_type,
    region,
    gpu_count,
    interconnect,
    coalesce(cluster_network, documented_network) as cluster_network,
    case
        when cluster_network is not null then 'source'
        when documented_network is not null then 'documented'
    end as cluster_network_basis,
    documented_fabric as fabric,
    case when cluster_network is null then documented_source_url end as fabric_source_url,
    price_per_gpu_hour_usd,
    cast(price_per_gpu_hour_usd * gpu_count as decimal(18, 6)) as node_price_usd_per_hour,
    in_stock,
    is_synthetic,
    is_carried_forward
from nodes
