{# A model lands in the schema named after its folder (staging, intermediate, marts, monitoring), anything else in
   the schema it names (seeds: reference, dbt_project.yml), never in "<target>_<schema>". The folder is read here
   because the folders are separate model paths: dbt's config paths start below a model path, so a folder key in
   dbt_project.yml (`staging: +schema: staging`) would reach no model. #}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name -%}
        {{ custom_schema_name | trim }}
    {%- elif node is not none and node.resource_type == 'model' -%}
        {{ node.original_file_path.replace('\\', '/').split('/')[0] }}
    {%- else -%}
        {{ target.schema }}
    {%- endif -%}
{%- endmacro %}
