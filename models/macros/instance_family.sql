{# An instance type's family: its name with every size figure replaced by '#', so the sizes of one family match
   and different families do not (GCP a2-highgpu-1g / a2-highgpu-8g -> a#-highgpu-#, a2-ultragpu-8g ->
   a#-ultragpu-#; AWS p4d.24xlarge -> p#d.#, p4de.24xlarge -> p#de.#; Azure Standard_ND96asr_v4 ->
   standard_nd#asr_v#). '' when the offer has no instance type (retail, single-GPU rentals). Used to prefer one
   source per provider and family in int_offers__market_daily. #}
{% macro instance_family(instance_type) -%}
    regexp_replace(lower(coalesce({{ instance_type }}, '')), '[0-9]+(xlarge|large|g|x)?', '#', 'g')
{%- endmacro %}
