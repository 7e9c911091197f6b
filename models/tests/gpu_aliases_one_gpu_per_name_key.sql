-- Two alias rows with the same match key in the same scope would multiply offers in int_offers__current.
select coalesce(scope, '') as scope, {{ gpu_name_key('raw_name') }} as name_key, count(*) as aliases
from {{ ref('gpu_aliases') }}
group by all
having count(*) > 1
