-- A retracted import's day-runs (`gpuprices import undo`, raw.retractions) are left out: no model above sees them.
with source as (
    select * from {{ source('raw', 'ingest_runs') }}
    where run_id not in (select run_id from {{ source('raw', 'retractions') }})
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
    -- what the landed documents are (warehouse/store/landing.py DATA_ORIGINS). Runs loaded before raw.ingest_runs recorded
    -- it hold NULL; is_synthetic says enough for most of them: a real one is an import (trigger import) or a capture
    -- (nothing else lands unflagged), a flagged one any of stale_capture, reconstructed, synthetic (`unknown`)
    coalesce(data_origin, case
        when trigger = 'import' then 'imported'
        when is_synthetic then 'unknown'
        when landing_path is not null then 'captured'
    end) as data_origin,
    -- what one day's snapshot stands for: a scraper's run is the whole source that day; an imported file's day-run
    -- (trigger import) only that file's prices, so two files imported under one source name never hide each other
    case when trigger = 'import' then source || ' ' || landing_path else source end as snapshot_stream
from source
