-- What renting a training run's GPUs costs each day, by the size of the run: the credible cloud prices of the offers
-- that rent that many GPUs as one job. An offer holds a run of up to its machine's GPUs; sold with a network between
-- its nodes (InfiniBand, RoCE or AWS EFA: the offer's own word, else the provider's documentation of the instance type,
-- seed instance_fabrics), up to the largest cluster the GPU forms that day (int_gpu_clusters__daily). One row per size
-- the day's offers reach (up_to_gpus), priced from every offer that reaches at least that size, so a plan of N GPUs
-- reads the row with the smallest up_to_gpus >= N (an ASOF join: training_cost_daily, `gpuprices estimate`). A run of
-- 64 GPUs is never priced at a single-GPU VM, nor at a provider that sells no network between its machines. Cloud
-- offers only: a marketplace's asks are single machines of different hosts.
with cloud_offers as (
    select * from {{ ref('int_offers__credible_daily') }}
    where channel = 'cloud'
      and price_per = 'gpu_hour'
      and pricing_type in ('on_demand', 'spot')
      and gpu_count >= 1
      and {{ rebuilt_days_filter('price_date') }}
),

fabrics as (
    select provider, instance_type_pattern, cluster_network from {{ ref('instance_fabrics') }}
),

clusters as (
    select price_date, gpu_id, max_training_gpus from {{ ref('int_gpu_clusters__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

-- each offer's reach: its machine, or the largest cluster the GPU forms when its nodes are sold with a cluster fabric
-- (macros/cluster_fabric.sql; the seed's patterns of a provider never overlap, so an offer matches one row at most)
reach as (
    select
        offers.price_date,
        offers.gpu_id,
        offers.pricing_type,
        offers.provider,
        offers.source,
        offers.offer_id,
        offers.unit_price_usd,
        offers.in_stock,
        offers.is_synthetic,
        coalesce({{ is_cluster_fabric('coalesce(offers.cluster_network, fabrics.cluster_network)') }}, false)
            as has_cluster_network,
        floor(offers.gpu_count)::bigint as machine_gpus
    from cloud_offers as offers
    left join fabrics
        on fabrics.provider = offers.provider
        and offers.instance_type like fabrics.instance_type_pattern
),

reach_sized as (
    select
        reach.*,
        case when has_cluster_network then greatest(machine_gpus, coalesce(clusters.max_training_gpus, 1))
             else machine_gpus end as up_to_gpus
    from reach
    left join clusters using (price_date, gpu_id)
),

sizes as (
    select distinct price_date, gpu_id, up_to_gpus from reach_sized
),

-- every offer that holds a run of each size
holding as (
    select sizes.up_to_gpus as size_gpus, reach_sized.* exclude (up_to_gpus)
    from sizes
    inner join reach_sized
        on reach_sized.price_date = sizes.price_date
        and reach_sized.gpu_id = sizes.gpu_id
        and reach_sized.up_to_gpus >= sizes.up_to_gpus
),

-- one price per provider: the medians are across providers, as every market median
provider_prices as (
    select price_date, gpu_id, size_gpus, pricing_type, provider, min(unit_price_usd) as price_usd
    from holding
    group by all
),

medians as (
    select price_date, gpu_id, size_gpus, pricing_type, median(price_usd) as median_usd
    from provider_prices
    group by all
),

by_pricing_type as (
    select
        price_date,
        gpu_id,
        size_gpus,
        pricing_type,
        min(unit_price_usd) as cheapest_usd,
        count(distinct provider) as provider_count,
        -- who offers the cheapest, ties broken by name so a rebuild names the same one
        arg_min(provider, row(unit_price_usd, provider, source, offer_id)) as cheapest_provider,
        arg_min(source, row(unit_price_usd, provider, source, offer_id)) as cheapest_source,
        arg_min(offer_id, row(unit_price_usd, provider, source, offer_id)) as cheapest_offer_id,
        arg_min(has_cluster_network, row(unit_price_usd, provider, source, offer_id)) as cheapest_has_cluster_network,
        -- the cheapest its source said could be launched that day (in_stock: never carried forward, NULL unknown)
        min(unit_price_usd) filter (where in_stock) as available_cheapest_usd,
        arg_min(provider, row(unit_price_usd, provider, source, offer_id)) filter (where in_stock)
            as available_cheapest_provider,
        arg_min(source, row(unit_price_usd, provider, source, offer_id)) filter (where in_stock)
            as available_cheapest_source,
        count(distinct provider) filter (where in_stock) as available_provider_count,
        bool_or(is_synthetic) as is_synthetic
    from holding
    group by all
),

with_medians as (
    select by_pricing_type.*, medians.median_usd
    from by_pricing_type
    inner join medians using (price_date, gpu_id, size_gpus, pricing_type)
)

select
    price_date,
    gpu_id,
    size_gpus as up_to_gpus,
    cast(max(cheapest_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6))
        as on_demand_cheapest_usd_per_gpu_hour,
    cast(max(median_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6))
        as on_demand_median_usd_per_gpu_hour,
    coalesce(max(provider_count) filter (where pricing_type = 'on_demand'), 0) as on_demand_provider_count,
    max(cheapest_provider) filter (where pricing_type = 'on_demand') as on_demand_cheapest_provider,
    max(cheapest_source) filter (where pricing_type = 'on_demand') as on_demand_cheapest_source,
    max(cheapest_offer_id) filter (where pricing_type = 'on_demand') as on_demand_cheapest_offer_id,
    -- how the cheapest on-demand offer holds the run: 'cluster_network' (nodes sold with one) or 'machine'
    case bool_or(cheapest_has_cluster_network) filter (where pricing_type = 'on_demand')
        when true then 'cluster_network' when false then 'machine' end as on_demand_cheapest_holds_by,
    cast(max(available_cheapest_usd) filter (where pricing_type = 'on_demand') as decimal(18, 6))
        as on_demand_available_cheapest_usd_per_gpu_hour,
    max(available_cheapest_provider) filter (where pricing_type = 'on_demand') as on_demand_available_cheapest_provider,
    max(available_cheapest_source) filter (where pricing_type = 'on_demand') as on_demand_available_cheapest_source,
    coalesce(max(available_provider_count) filter (where pricing_type = 'on_demand'), 0)
        as on_demand_available_provider_count,
    cast(max(cheapest_usd) filter (where pricing_type = 'spot') as decimal(18, 6)) as spot_cheapest_usd_per_gpu_hour,
    cast(max(median_usd) filter (where pricing_type = 'spot') as decimal(18, 6)) as spot_median_usd_per_gpu_hour,
    coalesce(max(provider_count) filter (where pricing_type = 'spot'), 0) as spot_provider_count,
    bool_or(is_synthetic) as is_synthetic
from with_medians
group by all
