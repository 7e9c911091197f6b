-- Spot against on-demand, per GPU, provider and day: the spot discount, and what a spot job risks: on how many days
-- of the trailing week (the day and the 6 before) the provider's spot price stood above `spot_risk_share` of its
-- on-demand price that day. Credible provider prices only (int_provider_prices__daily, suspect ones set aside); a
-- day counts when the provider gave both prices. Clouds (on_demand / spot) and peer-to-peer marketplaces
-- (marketplace_on_demand / marketplace_spot) apart, in column channel. Incremental by day (the week before each
-- rebuilt day is read).
{% set risk_share = var('spot_risk_share') %}
with provider_prices as (
    select * from {{ ref('int_provider_prices__daily') }}
    where price_per = 'gpu_hour'
      and pricing_type in ('on_demand', 'spot')
      and channel in ('cloud', 'marketplace')
      and not is_suspect
      and {{ rebuilt_days_filter('price_date', lookback_days=6) }}
),

paired as (
    select
        price_date,
        gpu_id,
        provider,
        channel,
        max(price_usd) filter (where pricing_type = 'on_demand') as on_demand_usd,
        max(price_usd) filter (where pricing_type = 'spot') as spot_usd,
        bool_or(is_synthetic) as is_synthetic
    from provider_prices
    group by all
    having count(*) filter (where pricing_type = 'on_demand') = 1
       and count(*) filter (where pricing_type = 'spot') = 1
),

shared as (
    select
        *,
        spot_usd::double / on_demand_usd::double as spot_share_of_on_demand
    from paired
),

weekly as (
    select
        *,
        count(*) over week as week_days,
        count(*) filter (where spot_share_of_on_demand > {{ risk_share }}) over week as week_days_above_risk_share,
        max(spot_share_of_on_demand) over week as week_max_spot_share
    from shared
    window week as (
        partition by gpu_id, provider, channel order by price_date
        range between interval 6 days preceding and current row
    )
)

select
    price_date,
    gpu_id,
    provider,
    channel,
    on_demand_usd as on_demand_usd_per_gpu_hour,
    spot_usd as spot_usd_per_gpu_hour,
    1 - spot_share_of_on_demand as spot_discount,
    spot_share_of_on_demand,
    cast({{ risk_share }} as double) as risk_share,
    week_days,
    week_days_above_risk_share,
    week_days_above_risk_share::double / week_days as week_share_above_risk_share,
    week_max_spot_share,
    is_synthetic
from weekly
where {{ rebuilt_days_filter('price_date') }}
