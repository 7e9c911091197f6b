-- Commit or not, from the history: for each day a provider listed a credible 1- or 3-year commitment price for a GPU
-- (markets reserved_1y / reserved_3y), what committing that day would have cost over the term (the day's committed
-- price for every hour of the term, as reserved instances and committed-use discounts bill) against renting the
-- same GPU from the same provider on demand, and on spot, over the same days at the prices each day then had; and
-- the break-even utilisation: the share of the term's hours a renter must use for the commitment to cost less than
-- on-demand.
-- Histories are sparse (the GCP list-price history has a snapshot every week or so): a provider's on-demand or spot
-- price stands for the days after it until its next snapshot, at most `commitment_price_hold_days` days, and never
-- past the warehouse's newest day. A term whose days are not all covered (the history ends before the term does,
-- or a longer gap) is compared over its covered days only: observed_days says how many, is_term_complete whether
-- all. A table (a new day changes the outcome of every commitment of the 3 years before); it reads the provider
-- prices (one row per provider, GPU, market and day), not the offers.
{% set hold_days = var('commitment_price_hold_days') | int %}
with provider_prices as (
    -- decimal prices: the sums over a term are exact, so a rebuild gives the same figures to the last digit
    select price_date, gpu_id, provider, market, price_usd, is_synthetic
    from {{ ref('int_provider_prices__daily') }}
    where price_per = 'gpu_hour'
      and market in ('on_demand', 'spot', 'reserved_1y', 'reserved_3y')
      and not is_suspect
),

newest as (
    select max(price_date) as newest_date from {{ ref('int_provider_prices__daily') }}
),

commitment_keys as (
    select distinct gpu_id, provider from provider_prices where market in ('reserved_1y', 'reserved_3y')
),

-- each on-demand or spot snapshot of a GPU and provider with commitments stands until the next one, at most
-- hold_days days, never past the newest day
held as (
    select
        rentals.*,
        least(
            coalesce(lead(price_date) over (partition by gpu_id, provider, market order by price_date),
                     newest.newest_date + 1),
            price_date + {{ hold_days }},
            newest.newest_date + 1
        ) - price_date as held_days
    from provider_prices as rentals
    semi join commitment_keys using (gpu_id, provider)
    cross join newest
    where market in ('on_demand', 'spot')
),

covered as (
    select
        gpu_id,
        provider,
        market,
        price_date + cast(unnest(range(held_days)) as integer) as day,
        price_usd,
        is_synthetic
    from held
),

commitments as (
    select
        gpu_id,
        provider,
        price_date as day,
        max(price_usd) filter (where market = 'reserved_1y') as reserved_1y_usd,
        max(price_usd) filter (where market = 'reserved_3y') as reserved_3y_usd,
        bool_or(is_synthetic) as commitment_is_synthetic
    from provider_prices
    where market in ('reserved_1y', 'reserved_3y')
    group by all
),

rentals_daily as (
    select
        gpu_id,
        provider,
        day,
        max(price_usd) filter (where market = 'on_demand') as on_demand_usd,
        -- spot counts on the days on-demand is known too: the two compare over the same days
        case when count(*) filter (where market = 'on_demand') > 0
            then max(price_usd) filter (where market = 'spot') end as spot_usd,
        bool_or(is_synthetic) as rental_is_synthetic
    from covered
    group by all
),

-- each commitment day beside every day of the same GPU and provider's rentals
series as (
    select
        gpu_id,
        provider,
        day,
        rentals_daily.on_demand_usd,
        rentals_daily.spot_usd,
        coalesce(rentals_daily.rental_is_synthetic, false) as rental_is_synthetic,
        commitments.reserved_1y_usd,
        commitments.reserved_3y_usd,
        commitments.commitment_is_synthetic
    from rentals_daily
    full outer join commitments using (gpu_id, provider, day)
),

windowed as (
    select
        *,
        count(on_demand_usd) over term_1y as observed_days_1y,
        sum(on_demand_usd) over term_1y as on_demand_sum_1y,
        count(spot_usd) over term_1y as spot_days_1y,
        sum(spot_usd) over term_1y as spot_sum_1y,
        bool_or(rental_is_synthetic) over term_1y as rental_is_synthetic_1y,
        max(day) filter (where on_demand_usd is not null) over term_1y as observed_through_1y,
        count(on_demand_usd) over term_3y as observed_days_3y,
        sum(on_demand_usd) over term_3y as on_demand_sum_3y,
        count(spot_usd) over term_3y as spot_days_3y,
        sum(spot_usd) over term_3y as spot_sum_3y,
        bool_or(rental_is_synthetic) over term_3y as rental_is_synthetic_3y,
        max(day) filter (where on_demand_usd is not null) over term_3y as observed_through_3y
    from series
    window
        term_1y as (partition by gpu_id, provider order by day
                    range between current row and interval 364 days following),
        term_3y as (partition by gpu_id, provider order by day
                    range between current row and interval 1094 days following)
),

terms as (
    select
        day as commit_date, gpu_id, provider, '1y' as term, 'reserved_1y' as market, 365 as term_days,
        reserved_1y_usd as committed_usd, on_demand_usd, spot_usd,
        observed_days_1y as observed_days, observed_through_1y as observed_through, on_demand_sum_1y as on_demand_sum,
        spot_days_1y as spot_days, spot_sum_1y as spot_sum,
        commitment_is_synthetic or rental_is_synthetic_1y as is_synthetic
    from windowed
    where reserved_1y_usd is not null
    union all
    select
        day, gpu_id, provider, '3y', 'reserved_3y', 1095,
        reserved_3y_usd, on_demand_usd, spot_usd,
        observed_days_3y, observed_through_3y, on_demand_sum_3y,
        spot_days_3y, spot_sum_3y,
        commitment_is_synthetic or rental_is_synthetic_3y
    from windowed
    where reserved_3y_usd is not null
)

select
    commit_date,
    gpu_id,
    provider,
    term,
    market,
    term_days,
    committed_usd as committed_usd_per_gpu_hour,
    on_demand_usd as on_demand_usd_per_gpu_hour,
    spot_usd as spot_usd_per_gpu_hour,
    committed_usd / on_demand_usd as break_even_utilisation_at_commit,
    observed_days,
    observed_days = term_days as is_term_complete,
    observed_through,
    -- every cost: one GPU over the covered days of the term, used every hour (24 a day); NULL when none is covered
    case when observed_days > 0 then committed_usd * 24 * observed_days end as committed_cost_usd,
    on_demand_sum * 24 as on_demand_cost_usd,
    on_demand_sum / nullif(observed_days, 0) as mean_on_demand_usd_per_gpu_hour,
    committed_usd * observed_days / nullif(on_demand_sum, 0) as break_even_utilisation,
    (on_demand_sum - committed_usd * observed_days) * 24 as saving_vs_on_demand_usd,
    spot_days,
    case when spot_days > 0 then committed_usd * 24 * spot_days end as committed_cost_spot_days_usd,
    spot_sum * 24 as spot_cost_usd,
    spot_sum / nullif(spot_days, 0) as mean_spot_usd_per_gpu_hour,
    committed_usd * spot_days / nullif(spot_sum, 0) as break_even_utilisation_vs_spot,
    is_synthetic
from terms
