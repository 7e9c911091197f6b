-- Researched specs with the figures the estimates need, named by unit. Only dense tensor figures.
with specs as (
    select * from {{ ref('gpu_specs') }}
)

select
    gpu_id,
    name,
    vendor,
    architecture,
    -- The family whose measured training efficiency applies (formulas.architecture_efficiency): the datacenter
    -- parts with HBM that published runs or benchmarks measured; every other GPU is 'unmeasured'.
    case
        when memory_type not ilike 'HBM%' then 'unmeasured'
        when architecture = 'Ampere' then 'ampere'
        when architecture = 'Hopper' then 'hopper'
        when architecture = 'Blackwell' then 'blackwell'
        when architecture = 'CDNA 3' then 'cdna3'
        when architecture = 'Gaudi 2' then 'gaudi2'
        when architecture = 'TPU v4' then 'tpu_v4'
        when architecture = 'Volta' then 'volta'
        else 'unmeasured'
    end as efficiency_family,
    cast(memory_gib as double) as memory_gib,
    cast(memory_bandwidth_gbps as double) as memory_bandwidth_gbps,
    cast(fp32_tflops as double) as fp32_tflops,
    cast(fp16_bf16_tensor_dense_tflops as double) as bf16_dense_tflops,
    cast(fp8_dense_tflops as double) as fp8_dense_tflops,
    cast(tdp_w as double) as tdp_w,
    cast(launch_price_usd as decimal(18, 2)) as launch_price_usd,
    interconnect,
    -- A scale-up fabric between all GPUs of a node: NVLink/NVSwitch, AMD Infinity Fabric, TPU ICI, Gaudi's on-die
    -- RoCE. A 2-way NVLink bridge joins pairs only, so beyond two GPUs traffic goes over PCIe.
    (
        (interconnect ilike 'NVLink%' and interconnect not ilike '%bridge%')
        or interconnect ilike 'Infinity Fabric%'
        or interconnect ilike 'ICI%'
        or interconnect ilike '%RoCE on-die%'
    ) as has_fast_interconnect,
    sources as spec_sources
from specs
