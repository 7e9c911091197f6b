{{ config(
    schema='intermediate', materialized='incremental', incremental_strategy='delete+insert', unique_key='price_date'
) }}
-- The day's snapshot of each source: the offers of its last loaded run of that UTC day. Incremental by day: a
-- build rewrites only the days that gained runs, re-parses or exchange rates since the last build (rebuilt_days.sql).
with last_run_of_day as (
    select run_id
    from {{ ref('stg_raw__ingest_runs') }}
    where status = 'loaded'
      and {{ rebuilt_days_filter('price_date') }}
    qualify row_number() over (partition by source, price_date order by observed_at desc, run_id desc) = 1
),

-- int_offers__current's logic (macros/current_offers.sql) on the rebuilt days' raw rows only
offers as (
    {{ current_offers(rebuilt_days_filter('price_date', 'observed_at')) }}
)

select offers.*
from offers
inner join last_run_of_day using (run_id)
