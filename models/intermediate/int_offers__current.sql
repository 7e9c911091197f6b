{{ config(schema='intermediate', materialized='view') }}
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
    {{ gpu_alias_keys() }}
),

resolved as (
    select
        current_parse.*,
        coalesce(scoped.gpu_id, global_alias.gpu_id) as gpu_id
    from current_parse
    {{ gpu_alias_joins('current_parse.raw_gpu_name', 'current_parse.provider') }}
),

fx_rates as (
    select * from {{ ref('int_fx_rates__daily') }}
),

-- Every non-USD price in USD at the latest ECB rate on or before its observation day (weekends and holidays
-- take the last business day's rate); none when that rate is over a week old.
converted as (
    select
        resolved.* exclude (price_usd, price_per_gpu_hour_usd, is_synthetic),
        cast({{ usd_at_fx_rate('resolved.price', 'resolved.currency', 'resolved.observed_date',
                               usd_amount='resolved.price_usd') }} as decimal(24, 10)) as price_usd,
        -- USD rows keep the figure computed at load (rows loaded before price_per_unit existed have only that)
        case when resolved.channel = 'cloud' then cast(
            {{ usd_at_fx_rate('resolved.price_per_unit', 'resolved.currency', 'resolved.observed_date',
                              usd_amount='resolved.price_per_gpu_hour_usd') }} as decimal(18, 6))
        end as price_per_gpu_hour_usd,
        {{ fx_rate_date_used('resolved.currency', 'resolved.observed_date') }} as fx_rate_date,
        resolved.is_synthetic or (resolved.currency <> 'USD' and coalesce(fx_rates.is_synthetic, false))
            as is_synthetic
    from resolved
    asof left join fx_rates
        on fx_rates.currency = resolved.currency
        and resolved.observed_date >= fx_rates.rate_date
)

select * from converted
