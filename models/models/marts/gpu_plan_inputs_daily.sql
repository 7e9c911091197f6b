-- What a training or serving plan reads, per GPU of the researched spec table and day: its specs (int_gpu_specs:
-- dense figures only), what renting it cost (int_gpu_prices__rental_daily: every rental channel, and the cloud_*
-- columns a training cluster is priced at), what buying one costs (int_gpu_prices__purchase_daily) and the cluster it
-- can form (int_gpu_clusters__daily). `gpuprices estimate` reads it (analytics read marts only); a GPU without a
-- price that day still has its row, its prices NULL. A view: the tables below it are built by day.
with specs as (
    select * from {{ ref('int_gpu_specs') }}
),

rental as (
    select * from {{ ref('int_gpu_prices__rental_daily') }}
),

purchase as (
    select * from {{ ref('int_gpu_prices__purchase_daily') }}
),

clusters as (
    select * from {{ ref('int_gpu_clusters__daily') }}
),

days as (
    select distinct price_date from rental
    union
    select distinct price_date from purchase
)

select
    days.price_date,
    specs.gpu_id,
    specs.name,
    specs.vendor,
    specs.architecture,
    specs.efficiency_family,
    specs.memory_gib,
    specs.memory_bandwidth_gbps,
    specs.fp32_tflops,
    specs.bf16_dense_tflops,
    specs.fp8_dense_tflops,
    specs.tdp_w,
    specs.launch_price_usd,
    specs.has_fast_interconnect,
    specs.spec_sources,
    rental.price_date as rental_price_date,
    rental.on_demand_cheapest_usd_per_gpu_hour,
    rental.on_demand_median_usd_per_gpu_hour,
    rental.spot_cheapest_usd_per_gpu_hour,
    rental.spot_median_usd_per_gpu_hour,
    rental.on_demand_provider_count,
    rental.on_demand_cheapest_provider,
    rental.on_demand_cheapest_source,
    rental.is_synthetic as rental_is_synthetic,
    rental.cloud_on_demand_cheapest_usd_per_gpu_hour,
    rental.cloud_on_demand_median_usd_per_gpu_hour,
    rental.cloud_spot_cheapest_usd_per_gpu_hour,
    rental.cloud_spot_median_usd_per_gpu_hour,
    rental.cloud_on_demand_provider_count,
    rental.cloud_on_demand_cheapest_provider,
    rental.cloud_on_demand_cheapest_source,
    rental.cloud_is_synthetic as cloud_rental_is_synthetic,
    purchase.purchase_price_usd,
    purchase.purchase_price_basis,
    purchase.is_synthetic as purchase_is_synthetic,
    clusters.training_node_gpus,
    clusters.max_training_gpus,
    clusters.serving_node_gpus,
    clusters.max_serving_gpus,
    clusters.scale_out_network,
    -- any figure of the row from a recording that is not a real capture
    coalesce(rental.is_synthetic, false) or coalesce(purchase.is_synthetic, false) as is_synthetic
from days
cross join specs
left join rental on rental.price_date = days.price_date and rental.gpu_id = specs.gpu_id
left join purchase on purchase.price_date = days.price_date and purchase.gpu_id = specs.gpu_id
left join clusters on clusters.price_date = days.price_date and clusters.gpu_id = specs.gpu_id
