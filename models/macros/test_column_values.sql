{# A model's row rules in one dbt node: `unique_combination` (its grain: no two rows share the combination of these
   columns), `not_null` columns are set on every row, `positive` ones are > 0 where set, `non_negative` ones >= 0
   where set, and `accepted_values` (a mapping, column -> its list of values) ones are one of their values where set
   (NULL passes, as in dbt's own accepted_values; the values are compared as quoted strings). A dbt test per column
   and rule was one node each, and dbt's own cost per node (~0.1 s of CPU) was most of a small build (229 nodes; 96
   now). A failing row names the rule, the column(s) and how many rows (for the grain: how many combinations) break
   it.
   The grain is checked by one 64-bit hash of the combination first (a hash table of integers: half the time of
   grouping millions of rows by several strings); only the rows of a hash seen twice are then grouped by the columns
   themselves, so a collision is never reported as a duplicate. #}
{% test column_values(model, unique_combination=[], not_null=[], positive=[], non_negative=[],
                      accepted_values={}) %}
{%- set failing = {'not_null': '{} is null', 'positive': '{} <= 0', 'non_negative': '{} < 0'} -%}
{%- set checks = [] -%}
{%- for rule, columns in [('not_null', not_null), ('positive', positive), ('non_negative', non_negative)] -%}
    {%- for column in columns -%}
        {%- do checks.append((rule ~ ' ' ~ column, failing[rule].replace('{}', column))) -%}
    {%- endfor -%}
{%- endfor -%}
{%- for column, values in accepted_values.items() -%}
    {%- set quoted = [] -%}
    {%- for value in values -%}
        {%- do quoted.append("'" ~ (value | string).replace("'", "''") ~ "'") -%}
    {%- endfor -%}
    {%- do checks.append(('accepted_values ' ~ column, column ~ ' not in (' ~ quoted | join(', ') ~ ')')) -%}
{%- endfor -%}
{%- set parts = [] -%}
{%- if checks -%}
{%- set value_sql -%}
select split_part(check_name, ' ', 1) as rule, split_part(check_name, ' ', 2) as column_name, failing_rows
from (
    select
    {%- for name, condition in checks %}
        count(*) filter (where {{ condition }}) as "{{ name }}"{{ "," if not loop.last }}
    {%- endfor %}
    from {{ model }}
) unpivot (failing_rows for check_name in ({% for name, _ in checks %}"{{ name }}"{{ ", " if not loop.last }}{% endfor %}))
where failing_rows > 0
{%- endset -%}
{%- do parts.append(value_sql) -%}
{%- endif -%}
{%- if unique_combination -%}
{%- set combination = unique_combination | join(', ') -%}
{%- set grain_sql -%}
select 'unique_combination' as rule, '{{ combination }}' as column_name, count(*) as failing_rows
from (
    select {{ combination }}
    from {{ model }}
    where hash({{ combination }}) in (
        select hash({{ combination }}) as combination_hash
        from {{ model }}
        group by combination_hash
        having count(*) > 1
    )
    group by {{ combination }}
    having count(*) > 1
) as repeated
having count(*) > 0
{%- endset -%}
{%- do parts.append(grain_sql) -%}
{%- endif %}
{{ parts | join('\nunion all\n') }}
{% endtest %}
