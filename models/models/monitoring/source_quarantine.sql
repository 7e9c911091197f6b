-- What the integrity check held back, with why: whole results (scope result) and single rows (scope row), for the
-- Sources page. Read from raw.quarantine as written (no staging model of its own), less the rows of retracted
-- imports, which no model above the raw layer sees.
select
    run_id,
    parser_version,
    source,
    observed_at,
    scope,
    reason,
    detail,
    quarantined_at
from {{ source('raw', 'quarantine') }}
where run_id not in (select run_id from {{ source('raw', 'retractions') }})
