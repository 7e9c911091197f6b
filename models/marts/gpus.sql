{{ config(schema='marts', materialized='table') }}
-- Every canonical GPU id: the researched spec table plus GPUs seen in offers whose specs are not researched yet.
with researched as (
    select gpu_id, name, vendor, cast(memory_gb as double) as memory_gb, form_factor, true as has_researched_specs
    from {{ ref('gpu_specs') }}
),

unresearched as (
    select gpu_id, name, vendor, memory_gb, form_factor, false as has_researched_specs
    from {{ ref('gpus_without_specs') }}
)

select * from researched
union all
select * from unresearched
