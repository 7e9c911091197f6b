-- Raw GPU names that no alias resolves: kept in the warehouse, listed here (and by `gpuprices status`). Counted
-- over the daily snapshots (int_offers__daily), the table the daily figures come from.
with unmatched as (
    select * from {{ ref('int_offers__daily') }} where gpu_id is null
)

select
    source,
    provider,
    raw_gpu_name,
    count(*) as observation_count,
    count(distinct offer_id) as offer_count,
    min(observed_at) as first_seen_at,
    max(observed_at) as last_seen_at
from unmatched
group by all
