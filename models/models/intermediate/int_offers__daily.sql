-- The day's snapshot of each source: the offers of its last loaded run of that UTC day (of each imported file's, for
-- `gpuprices import prices`: stg_raw__ingest_runs.snapshot_stream; imported days are never carried). A source with no loaded run on a day (blocked, failed, quarantined) keeps its last good snapshot for up to `carry_forward_days` days
-- (is_carried_forward, with the snapshot's real observed_at), so a bad day of one source never reads as a price move;
-- past the limit it is dropped. Incremental by day: a build rewrites the days that gained runs, re-parses or exchange
-- rates since the last build and the `carry_forward_days` days after each (rebuilt_days.sql, warehouse/store/build.py).
{% set carry_days = var('carry_forward_days') | int %}
with days as (
    -- the days the warehouse has runs on (any status): the days a snapshot can be carried to
    select distinct price_date
    from {{ ref('stg_raw__ingest_runs') }}
    where {{ rebuilt_days_filter('price_date') }}
),

last_run_of_day as (
    select snapshot_stream, price_date, run_id, trigger = 'import' as is_import
    from {{ ref('stg_raw__ingest_runs') }}
    where status = 'loaded'
      and {{ rebuilt_days_filter('price_date', lookback_days=carry_days) }}
    qualify row_number() over (partition by snapshot_stream, price_date order by observed_at desc, run_id desc) = 1
),

-- each day's snapshot of each source: its own run of the day, else its newest loaded day within the limit
snapshot_of_day as (
    select
        days.price_date,
        last_run_of_day.run_id,
        last_run_of_day.price_date <> days.price_date as is_carried_forward
    from days
    inner join last_run_of_day
        on last_run_of_day.price_date between days.price_date - {{ carry_days }} and days.price_date
        -- imported history is no feed that failed: its days stand alone
        and (not last_run_of_day.is_import or last_run_of_day.price_date = days.price_date)
    qualify row_number() over (
        partition by days.price_date, last_run_of_day.snapshot_stream order by last_run_of_day.price_date desc
    ) = 1
),

-- int_offers__current's logic (macros/current_offers.sql) on the raw rows of the rebuilt days and the days before
-- them that a snapshot can be carried from
offers as (
    {{ current_offers(ref('stg_raw__offers'), ref('stg_raw__ingest_runs'), source('meta', 'gpu_name_matches'),
                      ref('int_fx_rates__daily'),
                      rebuilt_days_filter('price_date', 'observed_at', lookback_days=carry_days)) }}
)

-- each offer once per day: a scraper's snapshot lists it once, and an import never loads an offer's day that an
-- earlier file of the same source already holds (warehouse/ingest/imports.py)
select
    offers.* replace (snapshot_of_day.price_date as price_date),
    snapshot_of_day.is_carried_forward
from offers
inner join snapshot_of_day using (run_id)
