-- One row per published exchange rate as loaded (units of quote_currency per one base_currency).
with source as (
    select * from {{ source('raw', 'fx_rates') }}
)

select
    run_id,
    parser_version,
    observed_at,
    source,
    rate_date,
    base_currency,
    quote_currency,
    rate,
    is_synthetic
from source
