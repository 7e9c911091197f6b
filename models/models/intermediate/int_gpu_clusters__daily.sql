-- What cluster each GPU with specs can form each day: the GPUs one machine holds (the largest GPU count offered that
-- day on demand or spot: a cloud's for training, any rental's for serving; a commitment's GPU count is the size of its
-- contract, a reserved multi-node cluster's included, never one machine), the network sold between machines (an offer naming
-- InfiniBand or RoCE that day, else reference.gpu_cluster_assumptions), and so the largest cluster a training run can
-- rent and the most GPUs one served model can span. Where the offers say nothing, the assumptions table (each row
-- with its source) does; a GPU sold without a cluster network forms one machine at most.
with days as (
    select distinct price_date
    from {{ ref('int_offers__daily') }}
    where {{ rebuilt_days_filter('price_date') }}
),

offered as (
    -- the machines offered that day: GPUs per rental offer, and the cluster network where an offer names one
    -- (macros/cluster_fabric.sql: plain 'ethernet' is the nodes' ordinary network, not a fabric a training job spans)
    select
        price_date,
        gpu_id,
        floor(max(gpu_count) filter (where channel = 'cloud' and pricing_type in ('on_demand', 'spot')))::integer
            as cloud_machine_gpus,
        floor(max(gpu_count) filter (where pricing_type in ('on_demand', 'spot')))::integer as machine_gpus,
        min(cluster_network) filter (where channel = 'cloud' and {{ is_cluster_fabric('cluster_network') }})
            as offered_cluster_network
    from {{ ref('int_offers__daily') }}
    where price_per_gpu_hour_usd is not null
      and gpu_id is not null
      and gpu_count >= 1
      and {{ rebuilt_days_filter('price_date') }}
    group by all
),

gpu_days as (
    select
        days.price_date,
        specs.gpu_id,
        specs.has_fast_interconnect as has_scale_up_fabric,
        offered.cloud_machine_gpus,
        offered.machine_gpus,
        offered.offered_cluster_network,
        assumed.node_gpus as assumed_node_gpus,
        assumed.scale_out_network as assumed_scale_out_network,
        assumed.max_cluster_gpus as assumed_max_cluster_gpus,
        assumed.source as assumption_source
    from days
    cross join {{ ref('int_gpu_specs') }} as specs
    left join offered on offered.price_date = days.price_date and offered.gpu_id = specs.gpu_id
    left join {{ ref('gpu_cluster_assumptions') }} as assumed on assumed.gpu_id = specs.gpu_id
),

sized as (
    select
        *,
        coalesce(cloud_machine_gpus, assumed_node_gpus, 1) as training_node_gpus,
        coalesce(machine_gpus, assumed_node_gpus, 1) as serving_node_gpus,
        coalesce(offered_cluster_network, nullif(assumed_scale_out_network, 'none'), 'none') as scale_out_network
    from gpu_days
)

select
    price_date,
    gpu_id,
    has_scale_up_fabric,
    training_node_gpus,
    case when cloud_machine_gpus is not null then 'offers' when assumed_node_gpus is not null then 'assumption'
         else 'unknown' end as training_node_basis,
    serving_node_gpus,
    case when machine_gpus is not null then 'offers' when assumed_node_gpus is not null then 'assumption'
         else 'unknown' end as serving_node_basis,
    scale_out_network,
    case when offered_cluster_network is not null then 'offers'
         when assumed_scale_out_network is not null then 'assumption' else 'unknown' end as scale_out_network_basis,
    -- the largest training cluster: the largest sold or published (the assumptions table) where the GPU is sold with
    -- a cluster network and the table gives a size, else one machine
    case when scale_out_network <> 'none' and assumed_scale_out_network <> 'none'
         then greatest(training_node_gpus, assumed_max_cluster_gpus)
         else training_node_gpus end as max_training_gpus,
    -- the most GPUs one served model spans: across machines only on a scale-up fabric with a cluster network
    -- (pipeline stages between nodes); without a fabric, what one machine holds
    case when has_scale_up_fabric and scale_out_network <> 'none' and assumed_scale_out_network <> 'none'
         then greatest(serving_node_gpus, assumed_max_cluster_gpus)
         else serving_node_gpus end as max_serving_gpus,
    assumption_source
from sized
