{# A model's per-column value rules, in one scan and one dbt node: `not_null` columns are set on every row, `positive`
   ones are > 0 where set, `non_negative` ones >= 0 where set. A dbt test per column and rule was one node and one
   scan each, and dbt's own cost per node (~0.1 s of CPU) was most of a small build. A failing row names the rule,
   the column and how many rows break it. #}
{% test column_values(model, not_null=[], positive=[], non_negative=[]) %}
{%- set failing = {'not_null': '{} is null', 'positive': '{} <= 0', 'non_negative': '{} < 0'} -%}
{%- set checks = [] -%}
{%- for rule, columns in [('not_null', not_null), ('positive', positive), ('non_negative', non_negative)] -%}
    {%- for column in columns -%}
        {%- do checks.append((rule ~ ' ' ~ column, failing[rule].replace('{}', column))) -%}
    {%- endfor -%}
{%- endfor %}
select split_part(check_name, ' ', 1) as rule, split_part(check_name, ' ', 2) as column_name, failing_rows
from (
    select
    {%- for name, condition in checks %}
        count(*) filter (where {{ condition }}) as "{{ name }}"{{ "," if not loop.last }}
    {%- endfor %}
    from {{ model }}
) unpivot (failing_rows for check_name in ({% for name, _ in checks %}"{{ name }}"{{ ", " if not loop.last }}{% endfor %}))
where failing_rows > 0
{% endtest %}
