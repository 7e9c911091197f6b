-- One row per loaded quote line, as loaded; the lines of a retracted load (`gpuprices import undo`) are left out.
with source as (
    select * from {{ source('raw', 'quotes') }}
    where load_id not in (select run_id from {{ source('raw', 'retractions') }} where kind = 'quotes')
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
