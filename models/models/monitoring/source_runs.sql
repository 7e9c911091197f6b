-- Every source-run: what each fetch of each source did (loaded, failed, quarantined...), its counts, error and
-- duration, for the Sources page and any reader of the run history. A view of stg_raw__ingest_runs (the day-runs of
-- retracted imports left out, like every model above staging).
select
    run_id,
    parser_version,
    source,
    status,
    observed_at,
    price_date as run_date,
    started_at,
    finished_at,
    duration_s,
    documents_fetched,
    bytes_fetched,
    rows_parsed,
    rows_loaded,
    rows_rejected,
    error,
    trigger,
    data_origin,
    is_synthetic
from {{ ref('stg_raw__ingest_runs') }}
