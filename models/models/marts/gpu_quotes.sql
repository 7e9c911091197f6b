-- Broker and reseller quotes: a dated low-high price range per card, in the quoted currency and in USD at the ECB
-- rate of the quote date (the last rate on or before it, none when over a week old). The GPU is resolved from the
-- quoted name like any raw name (scrapers/gpu_names.py, alias scope `quotes`, then global).
with quotes as (
    select * from {{ ref('stg_raw__quotes') }}
),

resolved as (
    select
        quotes.*,
        name_matches.gpu_id
    from quotes
    left join {{ source('meta', 'gpu_name_matches') }} as name_matches
        on name_matches.scope = 'quotes'
        and name_matches.raw_gpu_name = quotes.raw_gpu_name
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
    cast({{ usd_at_fx_rate('resolved.low_price', 'resolved.currency', 'resolved.quote_date') }} as decimal(24, 2))
        as low_price_usd,
    cast({{ usd_at_fx_rate('resolved.high_price', 'resolved.currency', 'resolved.quote_date') }} as decimal(24, 2))
        as high_price_usd,
    {{ fx_rate_date_used('resolved.currency', 'resolved.quote_date') }} as fx_rate_date,
    -- a quote is what a person was offered; its USD figure is made up when the exchange rate that converted it is
    resolved.currency <> 'USD' and coalesce(fx_rates.is_synthetic, false) as is_synthetic,
    resolved.source_note,
    resolved.file_name,
    resolved.load_id,
    resolved.line
from resolved
asof left join fx_rates
    on fx_rates.currency = resolved.currency
    and resolved.quote_date >= fx_rates.rate_date
