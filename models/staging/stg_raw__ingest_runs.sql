{{ config(schema='staging', materialized='view') }}
with source as (
    select * from {{ source('raw', 'ingest_runs') }}
)

select
    run_id,
    parser_version,
    source,
    status,
    observed_at,
    cast(timezone('UTC', observed_at) as date) as price_date,
    started_at,
    finished_at,
    duration_s,
    documents_fetched,
    bytes_fetched,
    rows_parsed,
    rows_loaded,
    rows_rejected,
    error,
    landing_path,
    is_synthetic,
    trigger,
    -- what one day's snapshot stands for: a scraper's run is the whole source that day; an imported file's day-run
    -- (trigger import) only that file's prices, so two files imported under one source name never hide each other
    case when trigger = 'import' then source || ' ' || landing_path else source end as snapshot_stream
from source
