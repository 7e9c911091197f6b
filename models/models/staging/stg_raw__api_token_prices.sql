-- One row per per-token API price as loaded (every run and parser version), USD per million tokens.
with source as (
    select * from {{ source('raw', 'api_token_prices') }}
)

select
    run_id,
    parser_version,
    observed_at,
    cast(timezone('UTC', observed_at) as date) as price_date,
    source,
    provider,
    model_slug,
    usd_per_million_input_tokens,
    usd_per_million_output_tokens,
    context_length,
    landing_ref,
    is_synthetic
from source
