-- What paying per token costs, day by day: each price list's prices of its last loaded run of the UTC day, in USD
-- per million input (prompt) and output (completion) tokens, with the reference model each listed model is
-- (seeds/api_model_aliases.csv; NULL for a model that is none of ours). A price list with no loaded run on a day
-- keeps its last good snapshot for up to `carry_forward_days` days (is_carried_forward), as offers do.
{% set carry_days = var('carry_forward_days') | int %}
with prices as (
    select * from {{ ref('stg_raw__api_token_prices') }}
),

-- each loaded run of a price list at its newest loaded parser version
loaded_runs as (
    select
        runs.run_id,
        any_value(runs.source) as source,
        any_value(runs.price_date) as price_date,
        any_value(runs.observed_at) as observed_at,
        max(runs.parser_version) as parser_version
    from {{ ref('stg_raw__ingest_runs') }} as runs
    where runs.status = 'loaded' and runs.run_id in (select run_id from prices)
    group by runs.run_id
),

last_run_of_day as (
    select *
    from loaded_runs
    qualify row_number() over (partition by source, price_date order by observed_at desc, run_id desc) = 1
),

-- the days the warehouse has runs on (any source, any status): the days a snapshot can stand in on
days as (
    select distinct price_date from {{ ref('stg_raw__ingest_runs') }}
),

snapshot_of_day as (
    select
        days.price_date,
        last_run_of_day.run_id,
        last_run_of_day.parser_version,
        last_run_of_day.price_date <> days.price_date as is_carried_forward
    from days
    inner join last_run_of_day
        on last_run_of_day.price_date between days.price_date - {{ carry_days }} and days.price_date
    qualify row_number() over (
        partition by days.price_date, last_run_of_day.source order by last_run_of_day.price_date desc
    ) = 1
),

aliases as (
    select * from {{ ref('api_model_aliases') }}
)

select
    snapshot_of_day.price_date,
    aliases.model_id,
    prices.provider,
    prices.usd_per_million_input_tokens,
    prices.usd_per_million_output_tokens,
    prices.model_slug,
    prices.source,
    prices.context_length,
    -- a free tier is rate-limited (and a per-song or per-image model also lists 0 per token): not a price to buy at
    prices.usd_per_million_input_tokens = 0 and prices.usd_per_million_output_tokens = 0 as is_free,
    snapshot_of_day.is_carried_forward,
    prices.observed_at,
    prices.is_synthetic
from snapshot_of_day
inner join prices
    on prices.run_id = snapshot_of_day.run_id and prices.parser_version = snapshot_of_day.parser_version
-- a price list's sources share its model names: openrouter-endpoints names models as openrouter does
left join aliases
    on aliases.source = split_part(prices.source, '-', 1) and aliases.model_slug = prices.model_slug
