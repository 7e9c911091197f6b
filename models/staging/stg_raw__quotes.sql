{{ config(schema='staging', materialized='view') }}
-- One row per loaded quote line, as loaded.
with source as (
    select * from {{ source('raw', 'quotes') }}
)

select
    load_id,
    line,
    quote_date,
    raw_gpu_name,
    low_price,
    high_price,
    currency,
    source_note,
    file_name,
    loaded_at
from source
