-- What one GPU costs each day (int_gpu_prices__purchase_daily: a card's newest street price, new or used, an SXM/OAM
-- part's share of the system it needs, else a launch price; each with its date and source) and the dense compute and
-- memory it buys per dollar: the overview's "buying" headline.
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
    purchase.purchase_price_date,
    purchase.purchase_price_age_days,
    purchase.purchase_price_source,
    purchase.street_provider_count,
    specs.bf16_dense_tflops / purchase.purchase_price_usd as bf16_dense_tflops_per_usd,
    specs.fp8_dense_tflops / purchase.purchase_price_usd as fp8_dense_tflops_per_usd,
    specs.memory_gib / purchase.purchase_price_usd as memory_gib_per_usd,
    purchase.is_synthetic
from purchase
inner join specs using (gpu_id)
