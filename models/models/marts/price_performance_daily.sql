-- Compute, memory and bandwidth per dollar each day, from dense spec figures only (sparse figures never enter):
-- for rentals per dollar of GPU-hour (TFLOPS-hours per USD), for cards per dollar of card (TFLOPS per USD).
with prices as (
    select * from {{ ref('gpu_prices_daily') }}
),

specs as (
    select * from {{ ref('int_gpu_specs') }}
)

select
    prices.price_date,
    prices.gpu_id,
    prices.channel,
    prices.market,
    prices.price_per,
    prices.min_price_usd,
    prices.median_price_usd,
    prices.provider_count,
    specs.fp32_tflops / prices.min_price_usd as fp32_tflops_per_usd,
    specs.bf16_dense_tflops / prices.min_price_usd as bf16_dense_tflops_per_usd,
    specs.bf16_dense_tflops / prices.median_price_usd as bf16_dense_tflops_per_usd_at_median,
    specs.fp8_dense_tflops / prices.min_price_usd as fp8_dense_tflops_per_usd,
    specs.memory_gib / prices.min_price_usd as memory_gib_per_usd,
    specs.memory_bandwidth_gbps / prices.min_price_usd as memory_bandwidth_gbps_per_usd,
    prices.min_price_usd / specs.bf16_dense_tflops as usd_per_bf16_dense_tflops,
    prices.is_synthetic
from prices
inner join specs using (gpu_id)
