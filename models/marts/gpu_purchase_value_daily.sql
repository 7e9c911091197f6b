-- What one card costs each day (the cheapest new card in stock at a retailer, else the spec table's launch price,
-- labelled) and the dense compute and memory it buys per dollar: the overview's "buying" headline.
with purchase as (
    select * from {{ ref('int_gpu_prices__purchase_daily') }}
),

specs as (
    select * from {{ ref('int_gpu_specs') }}
)

select
    purchase.price_date,
    purchase.gpu_id,
    purchase.purchase_price_usd,
    purchase.purchase_price_basis,
    purchase.street_provider_count,
    specs.bf16_dense_tflops / purchase.purchase_price_usd as bf16_dense_tflops_per_usd,
    specs.fp8_dense_tflops / purchase.purchase_price_usd as fp8_dense_tflops_per_usd,
    specs.memory_gib / purchase.purchase_price_usd as memory_gib_per_usd,
    purchase.is_synthetic
from purchase
inner join specs using (gpu_id)
