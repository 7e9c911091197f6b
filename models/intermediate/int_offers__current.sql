{{ config(schema='intermediate', materialized='table') }}
-- Offers of every loaded source-run at its newest loaded parser version (a re-parse supersedes, never deletes),
-- with the canonical gpu_id resolved from the alias seed (a provider-scoped alias wins over a global one) and
-- every price in USD: as given, or converted at the ECB rate of its observation day (fx_rate_date says which).
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
),

fx_rates as (
    select * from {{ ref('int_fx_rates__daily') }}
),

-- Every non-USD price in USD at the latest ECB rate on or before its observation day (weekends and holidays
-- take the last business day's rate); none when that rate is over a week old.
converted as (
    select
        resolved.* exclude (price_usd, price_per_gpu_hour_usd, is_synthetic),
        case
            when resolved.currency = 'USD' then resolved.price_usd
            when resolved.observed_date - fx_rates.rate_date <= 7
                then cast(resolved.price * fx_rates.usd_per_unit as decimal(24, 10))
        end as price_usd,
        case
            when resolved.currency = 'USD' then resolved.price_per_gpu_hour_usd
            when resolved.channel = 'cloud' and resolved.observed_date - fx_rates.rate_date <= 7
                then cast(resolved.price_per_unit * fx_rates.usd_per_unit as decimal(18, 6))
        end as price_per_gpu_hour_usd,
        case when resolved.currency <> 'USD' and resolved.observed_date - fx_rates.rate_date <= 7
            then fx_rates.rate_date end as fx_rate_date,
        resolved.is_synthetic or (resolved.currency <> 'USD' and coalesce(fx_rates.is_synthetic, false))
            as is_synthetic
    from resolved
    asof left join fx_rates
        on fx_rates.currency = resolved.currency
        and resolved.observed_date >= fx_rates.rate_date
)

select * from converted
