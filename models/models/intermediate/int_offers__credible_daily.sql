{{ config(materialized='view') }}
-- The market offers every "cheapest" answer is computed from: int_offers__market_daily without the offers of a
-- provider whose price that day is suspect (int_provider_prices__daily.suspect_reason). A view: the models above
-- filter it by day like the table below it.
with market_offers as (
    select * from {{ ref('int_offers__market_daily') }}
),

suspect_providers as (
    select price_date, gpu_id, market, price_per, provider
    from {{ ref('int_provider_prices__daily') }}
    where is_suspect
)

select market_offers.*
from market_offers
anti join suspect_providers using (price_date, gpu_id, market, price_per, provider)
