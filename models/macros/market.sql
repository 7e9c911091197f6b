{# The market a buyer compares, from the market channel and pricing type of int_offers__market_daily: on_demand,
   spot, reserved_1y, reserved_3y (clouds), marketplace_on_demand / marketplace_spot (peer-to-peer asks),
   retail_new, retail_used (cards). The same words as warehouse/markets.py (MARKETS; tests/warehouse/test_market_prices.py
   keeps them equal). #}
{% macro market_name(channel, pricing_type) -%}
    case
        when {{ channel }} in ('retail_new', 'retail_used') then {{ channel }}
        when {{ channel }} = 'marketplace' then 'marketplace_' || {{ pricing_type }}
        else {{ pricing_type }}
    end
{%- endmacro %}
