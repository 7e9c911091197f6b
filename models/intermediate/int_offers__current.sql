{{ config(schema='intermediate', materialized='table') }}
-- Offers of every loaded source-run at its newest loaded parser version (a re-parse supersedes, never deletes),
-- with the canonical gpu_id resolved from the alias seed: a provider-scoped alias wins over a global one.
with offers as (
    select * from {{ ref('stg_raw__offers') }}
),

loaded_parses as (
    select run_id, max(parser_version) as parser_version
    from {{ ref('stg_raw__ingest_runs') }}
    where status = 'loaded'
    group by run_id
),

current_parse as (
    select offers.*
    from offers
    inner join loaded_parses using (run_id, parser_version)
),

aliases as (
    select coalesce(scope, '') as scope, {{ gpu_name_key('raw_name') }} as name_key, gpu_id
    from {{ ref('gpu_aliases') }}
),

resolved as (
    select
        current_parse.*,
        coalesce(scoped.gpu_id, global_alias.gpu_id) as gpu_id
    from current_parse
    left join aliases as scoped
        on scoped.scope = current_parse.provider
        and scoped.name_key = {{ gpu_name_key('current_parse.raw_gpu_name') }}
    left join aliases as global_alias
        on global_alias.scope = ''
        and global_alias.name_key = {{ gpu_name_key('current_parse.raw_gpu_name') }}
)

select * from resolved
