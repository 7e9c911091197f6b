{# Offers of every loaded source-run at its newest loaded parser version, gpu_id resolved, prices in USD: the
   body of int_offers__current (a view, every day) and of int_offers__daily (a table built day by day), which
   passes its day filter as `offers_filter` so only those days' raw rows are read. See int_offers__current.sql.
   The relations come from the caller (its ref() and source() calls), so a model's file names everything it reads:
   `offers` stg_raw__offers, `ingest_runs` stg_raw__ingest_runs, `name_matches` meta.gpu_name_matches, `fx_rates`
   int_fx_rates__daily. #}
{% macro current_offers(offers, ingest_runs, name_matches, fx_rates, offers_filter='true') -%}
with offers as (
    select * from {{ offers }}
    where {{ offers_filter }}
),

loaded_parses as (
    select run_id, max(parser_version) as parser_version
    from {{ ingest_runs }}
    where status = 'loaded'
    group by run_id
),

current_parse as (
    select offers.*
    from offers
    inner join loaded_parses using (run_id, parser_version)
),

raw_names as (
    select distinct provider, raw_gpu_name from current_parse
),

-- gpu_id from the one GPU-name resolution (scrapers/gpu_names.py), written to meta.gpu_name_matches for every raw
-- name before each build: a new alias reaches old rows at the next build, without a re-parse
resolved_names as (
    select
        raw_names.provider,
        raw_names.raw_gpu_name,
        name_matches.gpu_id
    from raw_names
    left join {{ name_matches }} as name_matches
        on name_matches.scope = raw_names.provider
        and name_matches.raw_gpu_name = raw_names.raw_gpu_name
),

fx_rates as (
    select * from {{ fx_rates }}
),

-- Every non-USD price in USD at the latest ECB rate on or before its observation day (weekends and holidays
-- take the last business day's rate); none when that rate is over a week old.
currency_days as (
    select distinct currency, price_date from current_parse where currency <> 'USD'
),

rate_of_day as (
    select
        currency_days.currency,
        currency_days.price_date,
        fx_rates.rate_date,
        fx_rates.usd_per_unit,
        fx_rates.is_synthetic
    from currency_days
    asof left join fx_rates
        on fx_rates.currency = currency_days.currency
        and currency_days.price_date >= fx_rates.rate_date
),

converted as (
    select
        -- landing_ref stays in raw.offers (the raw document of each row): a copy per day costs the full rebuild seconds
        current_parse.* exclude (is_synthetic, landing_ref),
        resolved_names.gpu_id,
        {{ usd_at_fx_rate('current_parse.price', 'current_parse.currency', 'current_parse.price_date',
                          fx='rate_of_day', as_type='decimal(24, 10)') }}
            as price_usd,
        -- the one USD conversion, USD included (rows loaded before price_per_unit existed got it from their
        -- load's USD figure: warehouse/store/schema.py _move_legacy_unit_prices)
        case when current_parse.channel in ('cloud', 'marketplace') then
            {{ usd_at_fx_rate('current_parse.price_per_unit', 'current_parse.currency', 'current_parse.price_date',
                              fx='rate_of_day', as_type='decimal(18, 6)') }}
        end as price_per_gpu_hour_usd,
        {{ fx_rate_date_used('current_parse.currency', 'current_parse.price_date', fx='rate_of_day') }} as fx_rate_date,
        current_parse.is_synthetic or (current_parse.currency <> 'USD' and coalesce(rate_of_day.is_synthetic, false))
            as is_synthetic
    from current_parse
    left join resolved_names
        on resolved_names.provider = current_parse.provider
        and resolved_names.raw_gpu_name = current_parse.raw_gpu_name
    left join rate_of_day
        on rate_of_day.currency = current_parse.currency
        and rate_of_day.price_date = current_parse.price_date
)

select * from converted
{%- endmacro %}
