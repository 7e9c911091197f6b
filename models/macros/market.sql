{# The market of an offer, computed once, in staging (stg_raw__offers), from its channel (cloud | marketplace |
   retail), pricing type and a card's condition: on_demand, spot, reserved_1y, reserved_3y (clouds),
   marketplace_on_demand / marketplace_spot (peer-to-peer asks), retail_new, retail_used (cards). NULL for an offer
   no market compares (a card for parts or of unknown condition): the market figures leave it out. The same words
   as warehouse/store/markets.py (MARKETS; tests/warehouse/test_markets.py keeps them equal for every offer). #}
{% macro market_name(channel, pricing_type, condition) -%}
    case
        when {{ channel }} = 'cloud' and {{ pricing_type }} in ('on_demand', 'spot', 'reserved_1y', 'reserved_3y')
            then {{ pricing_type }}
        when {{ channel }} = 'marketplace' and {{ pricing_type }} in ('on_demand', 'spot')
            then 'marketplace_' || {{ pricing_type }}
        when {{ channel }} = 'retail' and {{ pricing_type }} = 'purchase' and {{ condition }} = 'new' then 'retail_new'
        when {{ channel }} = 'retail' and {{ pricing_type }} = 'purchase'
            and {{ condition }} in ('used', 'refurbished', 'open_box') then 'retail_used'
    end
{%- endmacro %}
