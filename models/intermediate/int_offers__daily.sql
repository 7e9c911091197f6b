{{ config(
    schema='intermediate', materialized='incremental', incremental_strategy='delete+insert', unique_key='observed_date'
) }}
-- The day's snapshot of each source: the offers of its last loaded run of that UTC day. Incremental by day: a
-- build rewrites only the days that gained runs, re-parses or exchange rates since the last build (rebuilt_days.sql).
with offers as (
    select *
    from {{ ref('int_offers__current') }}
    where {{ rebuilt_days_filter('observed_date', 'observed_at') }}
),

last_run_of_day as (
    select source, observed_date, max(observed_at) as observed_at
    from offers
    group by source, observed_date
)

select offers.*
from offers
inner join last_run_of_day using (source, observed_date, observed_at)
