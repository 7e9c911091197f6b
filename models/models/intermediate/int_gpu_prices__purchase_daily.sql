-- What buying one GPU costs each day, and where the figure comes from (its date, its source):
-- - a card (PCIe, consumer, workstation): today's street price, the newest credible retail price on or before the day,
--   new or used (the market mart's credible minimum per market, marts.gpu_market_prices_daily: the market's rules
--   decide what may head a "cheapest" answer); on that newest day, the cheaper of new and used;
-- - an SXM or OAM part: it runs only on its baseboard in a server, so its price is its share of the system it needs,
--   a published 8-GPU system's price over its GPUs (reference.gpu_system_prices), from that price's date on; a part
--   without a sourced system price has no purchase price (a bare module's price is not what owning one costs);
-- - a card never seen at a retailer: the spec table's launch price, from its launch date on, labelled so.
-- A table, rebuilt whole at every build: a day's price may come from any earlier day's observation.
with days as (
    select distinct price_date from {{ ref('gpu_market_prices_daily') }}
),

specs as (
    select
        gpu_id,
        -- an SXM/OAM module or a superchip board sits on a baseboard; it is bought as part of a system
        regexp_matches(coalesce(form_factor, ''), 'SXM|OAM|HGX|superchip', 'i') as needs_system,
        cast(launch_price_usd as decimal(18, 2)) as launch_price_usd,
        coalesce(try_strptime(launch_date, '%Y-%m-%d'), try_strptime(launch_date, '%Y-%m'))::date as launch_date,
        coalesce(nullif(price_source, ''), 'spec table launch price (reference.gpu_specs)') as launch_price_source
    from {{ ref('gpu_specs') }}
),

street as (
    -- each day's credible cheapest card per GPU and condition, as the market mart gives it
    select
        price_date as observed_date,
        gpu_id,
        market,
        credible_min_price_usd as price_usd,
        credible_min_provider as provider,
        credible_min_source as source,
        credible_provider_count,
        is_synthetic
    from {{ ref('gpu_market_prices_daily') }}
    where market in ('retail_new', 'retail_used')
      and price_per = 'card'
      and credible_min_price_usd is not null
),

street_days as (
    select distinct gpu_id, observed_date from street
),

-- the newest street observation on or before each day (an as-of join per GPU); on that day, the cheaper of new and
-- used
todays_street as (
    select
        days_by_gpu.price_date,
        street.*
    from (select days.price_date, gpus.gpu_id from days cross join (select distinct gpu_id from street) as gpus)
        as days_by_gpu
    asof join street_days
        on street_days.gpu_id = days_by_gpu.gpu_id and street_days.observed_date <= days_by_gpu.price_date
    inner join street on street.gpu_id = street_days.gpu_id and street.observed_date = street_days.observed_date
    qualify row_number() over (partition by days_by_gpu.price_date, street.gpu_id order by street.price_usd, street.market) = 1
),

systems as (
    select
        gpu_id,
        cast(system_price_usd / system_gpus as decimal(18, 2)) as usd_per_gpu,
        system_price_usd,
        system_gpus,
        price_date as system_price_date,
        system || ': ' || source as system_source
    from {{ ref('gpu_system_prices') }}
),

candidates as (
    -- a card's street price
    select
        todays_street.price_date, todays_street.gpu_id, todays_street.price_usd as purchase_price_usd,
        case todays_street.market when 'retail_new' then 'street_new' else 'street_used' end as purchase_price_basis,
        todays_street.observed_date as purchase_price_date,
        case when todays_street.provider = todays_street.source then todays_street.provider
             else todays_street.provider || ' via ' || todays_street.source end as purchase_price_source,
        todays_street.credible_provider_count as street_provider_count,
        cast(null as decimal(18, 2)) as system_price_usd, cast(null as integer) as system_gpus,
        todays_street.is_synthetic, 1 as preference
    from todays_street
    inner join specs using (gpu_id)
    where not specs.needs_system
    union all
    -- an SXM/OAM part's share of its system
    select
        days.price_date, systems.gpu_id, systems.usd_per_gpu, 'system_share', systems.system_price_date,
        systems.system_source, 0, systems.system_price_usd, systems.system_gpus, false, 1
    from days
    inner join systems on systems.system_price_date <= days.price_date
    inner join specs on specs.gpu_id = systems.gpu_id and specs.needs_system
    union all
    -- a card's launch price, where no street price is known yet
    select
        days.price_date, specs.gpu_id, specs.launch_price_usd, 'launch_price', specs.launch_date,
        specs.launch_price_source, 0, null, null, false, 2
    from days
    inner join specs on specs.launch_date <= days.price_date
    where specs.launch_price_usd is not null and not specs.needs_system
)

select
    price_date,
    gpu_id,
    cast(purchase_price_usd as decimal(18, 2)) as purchase_price_usd,
    purchase_price_basis,
    purchase_price_date,
    price_date - purchase_price_date as purchase_price_age_days,
    purchase_price_source,
    street_provider_count,
    system_price_usd,
    system_gpus,
    is_synthetic
from candidates
qualify row_number() over (partition by price_date, gpu_id order by preference) = 1
