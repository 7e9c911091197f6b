-- Per source, its last run and last loaded run, and how many days that load is behind the newest run day of any
-- source: the freshness the overview and the Sources page show (the state in words, fresh / carried forward /
-- dropped, is warehouse/store/status.py's staleness() of days_behind_newest and var carry_forward_days).
with runs as (
    select * from {{ ref('stg_raw__ingest_runs') }}
),

newest as (
    select max(price_date) as newest_run_date from runs
),

per_source as (
    select
        source,
        max(observed_at) filter (where status = 'loaded') as last_loaded_at,
        arg_max(status, observed_at) as last_status,
        arg_max(error, observed_at) as last_error,
        count(*) as runs,
        count(*) filter (where status <> 'loaded') as runs_not_loaded,
        bool_or(is_synthetic) as is_synthetic,
        bool_and(trigger = 'import') as is_imported
    from runs
    group by source
)

select
    per_source.*,
    date_diff('day', cast(timezone('UTC', per_source.last_loaded_at) as date), newest.newest_run_date)
        as days_behind_newest
from per_source
cross join newest
