-- The market offers every "cheapest" answer is computed from: int_offers__market_daily without the offers of a
-- provider whose price that day is suspect (int_provider_prices__daily.suspect_reason: below the market, a
-- placeholder, a lone jump, implausible or a drop in a thin market, no offer that may head) and without any offer
-- that may not head an answer (headline_gap, macros/market_offers.sql: a made-up figure, an unverified host's ask):
-- what is left is a provider's own list price or a verified host's ask, corroborated. A view: the models above filter it by day like the table below it.
with market_offers as (
    select * from {{ ref('int_offers__market_daily') }}
    where headline_gap is null
),

suspect_providers as (
    select price_date, gpu_id, market, price_per, provider
    from {{ ref('int_provider_prices__daily') }}
    where is_suspect
)

select market_offers.*
from market_offers
anti join suspect_providers using (price_date, gpu_id, market, price_per, provider)
