{# A node lands in the schema its folder names in dbt_project.yml (models: staging, intermediate, marts,
   monitoring; seeds: reference) as written, never in dbt's default "<target schema>_<schema>"; a node that names
   none, in the target's schema. #}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {{ (custom_schema_name or target.schema) | trim }}
{%- endmacro %}
