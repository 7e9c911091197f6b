-- One row per published spot interruption band as loaded (every run and parser version).
with source as (
    select * from {{ source('raw', 'spot_interruption_bands') }}
)

select
    run_id,
    parser_version,
    observed_at,
    cast(timezone('UTC', observed_at) as date) as price_date,
    source,
    provider,
    region,
    operating_system,
    instance_type,
    interruption_band,
    interruption_band_index,
    interruption_max_pct,
    spot_savings_pct,
    landing_ref,
    is_synthetic
from source
