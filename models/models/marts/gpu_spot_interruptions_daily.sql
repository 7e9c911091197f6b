-- How often a cloud's spot GPU instances are interrupted, day by day, beside the instance type's on-demand price:
-- the band and spot saving the cloud publishes per region, operating system and instance type (AWS Spot Instance
-- Advisor, stg_raw__spot_interruption_bands), from the file's last loaded run of the UTC day (or its last good
-- snapshot for up to `carry_forward_days` days, as offers), on the instance types the cloud's own price list priced
-- that day (int_offers__daily: the GPU and its count come from there). The marketplaces' figure, a host's published
-- reliability, is per offer (offers_daily, gpu_availability_daily).
{% set carry_days = var('carry_forward_days') | int %}
with bands as (
    select * from {{ ref('stg_raw__spot_interruption_bands') }}
),

-- each loaded run of an interruption file at its newest loaded parser version
loaded_runs as (
    select
        runs.run_id,
        any_value(runs.source) as source,
        any_value(runs.price_date) as price_date,
        any_value(runs.observed_at) as observed_at,
        max(runs.parser_version) as parser_version
    from {{ ref('stg_raw__ingest_runs') }} as runs
    where runs.status = 'loaded' and runs.run_id in (select run_id from bands)
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

-- the instance types the cloud's price list priced on demand that day, with their GPU
on_demand as (
    select
        price_date,
        provider,
        region,
        instance_type,
        any_value(gpu_id) as gpu_id,
        any_value(gpu_count) as gpu_count,
        min(price_per_gpu_hour_usd) as on_demand_usd_per_gpu_hour,
        bool_or(is_synthetic) as is_synthetic
    from {{ ref('int_offers__daily') }}
    where pricing_type = 'on_demand'
      and gpu_id is not null
      and instance_type is not null
      and provider in (select distinct provider from bands)
    group by all
)

select
    snapshot_of_day.price_date,
    on_demand.gpu_id,
    on_demand.gpu_count,
    bands.provider,
    bands.region,
    bands.operating_system,
    bands.instance_type,
    bands.interruption_band,
    bands.interruption_band_index,
    bands.interruption_max_pct,
    bands.spot_savings_pct,
    cast(on_demand.on_demand_usd_per_gpu_hour as decimal(18, 6)) as on_demand_usd_per_gpu_hour,
    bands.source,
    snapshot_of_day.is_carried_forward,
    bands.observed_at,
    bands.is_synthetic or on_demand.is_synthetic as is_synthetic
from snapshot_of_day
inner join bands
    on bands.run_id = snapshot_of_day.run_id and bands.parser_version = snapshot_of_day.parser_version
inner join on_demand
    on on_demand.price_date = snapshot_of_day.price_date
   and on_demand.provider = bands.provider
   and on_demand.region = bands.region
   and on_demand.instance_type = bands.instance_type
