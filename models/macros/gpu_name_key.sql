{# The alias match key: lower case, letters and digits only. Same rule as scrapers/gpu_names.py:name_key. #}
{% macro gpu_name_key(expression) -%}
    regexp_replace(lower({{ expression }}), '[^a-z0-9]+', '', 'g')
{%- endmacro %}
