-- USD per one unit of each currency, per ECB rate date: the ECB quotes everything per EUR, so
-- USD per unit of X = (USD per EUR) / (X per EUR); EUR itself is USD per EUR. Rates from loaded runs only;
-- a rate seen by several runs (the daily file, a history backfill) counts once, from its latest observation.
with rates as (
    select rates.*
    from {{ ref('stg_raw__fx_rates') }} as rates
    inner join {{ ref('stg_raw__ingest_runs') }} as runs
        on runs.run_id = rates.run_id and runs.parser_version = rates.parser_version and runs.status = 'loaded'
    where rates.base_currency = 'EUR'
    qualify row_number() over (
        partition by rates.rate_date, rates.quote_currency order by rates.observed_at desc, rates.parser_version desc
    ) = 1
),

usd_per_eur as (
    select rate_date, rate as usd_per_eur, is_synthetic
    from rates
    where quote_currency = 'USD'
),

per_currency as (
    select
        rates.rate_date,
        rates.quote_currency as currency,
        usd_per_eur.usd_per_eur / rates.rate as usd_per_unit,
        rates.is_synthetic or usd_per_eur.is_synthetic as is_synthetic
    from rates
    inner join usd_per_eur using (rate_date)
    where rates.quote_currency <> 'USD'
    union all
    select rate_date, 'EUR', usd_per_eur, is_synthetic from usd_per_eur
    union all
    select rate_date, 'USD', 1, false from usd_per_eur
)

select rate_date, currency, cast(usd_per_unit as decimal(24, 12)) as usd_per_unit, is_synthetic
from per_currency
