{# What a price is per unit of the market figures: a rental per GPU-hour, a card per card (a rare multi-GPU board
   per GPU: DuckDB divides DECIMALs as DOUBLE, so that quotient is rounded to 10 decimals; a one-GPU card stays the
   exact DECIMAL). `card_price` / `gpu_hour_price`: the columns to use in each case (USD or the offer's currency).
   `offers`: the relation the columns are read from. Used by int_offers__market_daily and
   gpu_prices_by_source_daily. #}
{% macro unit_price(card_price, gpu_hour_price, offers='') -%}
    {%- set o = offers ~ '.' if offers else '' -%}
    case
        when {{ o }}price_unit <> 'card' then {{ o }}{{ gpu_hour_price }}
        when {{ o }}gpu_count = 1 then {{ o }}{{ card_price }}
        else cast({{ o }}{{ card_price }} / {{ o }}gpu_count as decimal(24, 10))
    end
{%- endmacro %}
