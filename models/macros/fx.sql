{# An amount in USD: `usd_amount` (default: the amount itself) when the currency is USD, else the amount at the
   as-of joined ECB rate (alias `fx`, a row of int_fx_rates__daily) when that rate is at most a week older than the
   day it converts for; otherwise NULL. `usd_amount` must already have type `as_type` when both are given. #}
{% macro usd_at_fx_rate(amount, currency, day, usd_amount=none, fx='fx_rates', as_type=none) -%}
    {#- as_type: the converted figure is cast inside its branch, so the CASE has that type and millions of USD rows
        pass through untouched (casting the CASE from the product's wide DECIMAL(38, x) costs ~30x more) -#}
    case
        when {{ currency }} = 'USD' then {{ usd_amount if usd_amount is not none else amount }}
        when {{ day }} - {{ fx }}.rate_date <= 7 then
            {% if as_type %}cast({{ amount }} * {{ fx }}.usd_per_unit as {{ as_type }}){% else %}{{ amount }} * {{ fx }}.usd_per_unit{% endif %}
    end
{%- endmacro %}

{# The rate date used for a non-USD amount (NULL for USD, or when no recent enough rate exists). #}
{% macro fx_rate_date_used(currency, day, fx='fx_rates') -%}
    case when {{ currency }} <> 'USD' and {{ day }} - {{ fx }}.rate_date <= 7 then {{ fx }}.rate_date end
{%- endmacro %}
