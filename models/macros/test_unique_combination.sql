{# No two rows share the combination of `columns`. The rows are first grouped by one 64-bit hash of the combination
   (a hash table of integers: half the time of grouping millions of rows by several strings); only the rows of a
   hash seen twice are then grouped by the columns themselves, so a collision is never reported as a duplicate. #}
{% test unique_combination(model, columns) %}
{%- set combination = columns | join(', ') -%}
with repeated_hashes as (
    select hash({{ combination }}) as combination_hash
    from {{ model }}
    group by combination_hash
    having count(*) > 1
)

select {{ combination }}, count(*) as occurrences
from {{ model }}
where hash({{ combination }}) in (select combination_hash from repeated_hashes)
group by {{ combination }}
having count(*) > 1
{% endtest %}
