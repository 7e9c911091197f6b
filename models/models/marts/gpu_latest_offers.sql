-- Each GPU's offers on its latest day with market offers, as the market figures count them
-- (int_offers__market_daily: complete rentals per GPU-hour and retail cards in stock, one source per provider),
-- ranked cheapest first among the credible ones (int_offers__credible_daily's rule: no headline gap, a provider
-- whose price is not suspect), then the others, each with the reason it is set aside: what a GPU page lists under
-- "Cheapest offers", where a suspect or unverified offer is never on top.
-- int_offers__market_daily is named twice, not through one CTE: DuckDB would materialize a CTE read twice, every
-- offer of every day (7.7 s at three years of history, 0.1 s this way).
with latest as (
    select gpu_id, max(price_date) as price_date
    from {{ ref('int_offers__market_daily') }}
    group by gpu_id
),

offers as (
    select
        market_offers.*,
        {{ headline_gap_reason('market_offers.headline_gap') }} as headline_gap_reason
    from {{ ref('int_offers__market_daily') }} as market_offers
    inner join latest using (gpu_id, price_date)
),

provider_prices as (
    select price_date, gpu_id, market, price_per, provider, suspect_reason
    from {{ ref('int_provider_prices__daily') }}
    inner join latest using (gpu_id, price_date)
),

judged as (
    select
        offers.*,
        coalesce(offers.headline_gap_reason, provider_prices.suspect_reason) as suspect_reason
    from offers
    left join provider_prices using (price_date, gpu_id, market, price_per, provider)
)

select
    offers.gpu_id,
    offers.price_date,
    row_number() over (partition by offers.gpu_id
                       order by offers.suspect_reason is not null, offers.unit_price_usd, offers.provider,
                                offers.region, offers.offer_id) as price_rank,
    offers.provider,
    offers.source,
    offers.channel,
    offers.market,
    offers.region,
    offers.instance_type,
    offers.title,
    offers.unit_price_usd,
    offers.price_per,
    offers.url,
    offers.is_carried_forward,
    offers.is_synthetic,
    offers.is_imported,
    offers.suspect_reason is null as is_credible,
    -- why the offer is set aside from the answers (an offer's headline gap, else its provider's suspect price)
    offers.suspect_reason
from judged as offers
