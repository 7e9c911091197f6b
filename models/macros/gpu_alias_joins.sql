{# The alias seed keyed for matching, for a CTE named `aliases`: scope ('' = any provider), match key, gpu_id. #}
{% macro gpu_alias_keys() -%}
    select coalesce(scope, '') as scope, {{ gpu_name_key('raw_name') }} as name_key, gpu_id
    from {{ ref('gpu_aliases') }}
{%- endmacro %}

{# The canonical gpu_id of a raw name: the alias of `scope` (a provider, or `quotes`) first, then a global one.
   Needs the `aliases` CTE above; select `coalesce(scoped.gpu_id, global_alias.gpu_id)`. #}
{% macro gpu_alias_joins(raw_name, scope) -%}
    left join aliases as scoped
        on scoped.scope = {{ scope }}
        and scoped.name_key = {{ gpu_name_key(raw_name) }}
    left join aliases as global_alias
        on global_alias.scope = ''
        and global_alias.name_key = {{ gpu_name_key(raw_name) }}
{%- endmacro %}
