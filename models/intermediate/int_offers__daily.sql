{{ config(schema='intermediate', materialized='table') }}
-- The day's snapshot of each source: the offers of its last loaded run of that UTC day.
with offers as (
    select * from {{ ref('int_offers__current') }}
),

last_run_of_day as (
    select source, observed_date, max(observed_at) as observed_at
    from offers
    group by source, observed_date
)

select offers.*
from offers
inner join last_run_of_day using (source, observed_date, observed_at)
