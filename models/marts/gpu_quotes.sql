{{ config(schema='marts', materialized='table') }}
-- Broker and reseller quotes: a dated low-high price range per card, in the quoted currency and in USD at the ECB
-- rate of the quote date (the last rate on or before it, none when over a week old). The GPU is resolved from the
-- quoted name like any raw name (alias scope `quotes`, then global).
with quotes as (
    select * from {{ ref('stg_raw__quotes') }}
),

aliases as (
    select coalesce(scope, '') as scope, {{ gpu_name_key('raw_name') }} as name_key, gpu_id
    from {{ ref('gpu_aliases') }}
),

resolved as (
    select
        quotes.*,
        coalesce(scoped.gpu_id, global_alias.gpu_id) as gpu_id
    from quotes
    left join aliases as scoped
        on scoped.scope = 'quotes' and scoped.name_key = {{ gpu_name_key('quotes.raw_gpu_name') }}
    left join aliases as global_alias
        on global_alias.scope = '' and global_alias.name_key = {{ gpu_name_key('quotes.raw_gpu_name') }}
),

fx_rates as (
    select * from {{ ref('int_fx_rates__daily') }}
)

select
    resolved.quote_date,
    resolved.gpu_id,
    resolved.raw_gpu_name,
    resolved.low_price,
    resolved.high_price,
    resolved.currency,
    case when resolved.currency = 'USD' then resolved.low_price
         when resolved.quote_date - fx_rates.rate_date <= 7
             then cast(resolved.low_price * fx_rates.usd_per_unit as decimal(24, 2)) end as low_price_usd,
    case when resolved.currency = 'USD' then resolved.high_price
         when resolved.quote_date - fx_rates.rate_date <= 7
             then cast(resolved.high_price * fx_rates.usd_per_unit as decimal(24, 2)) end as high_price_usd,
    case when resolved.currency <> 'USD' and resolved.quote_date - fx_rates.rate_date <= 7
        then fx_rates.rate_date end as fx_rate_date,
    resolved.source_note,
    resolved.file_name,
    resolved.load_id,
    resolved.line
from resolved
asof left join fx_rates
    on fx_rates.currency = resolved.currency
    and resolved.quote_date >= fx_rates.rate_date
