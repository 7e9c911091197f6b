-- The cheapest credible commitment per GPU, term and day: the 1- and 3-year markets' credible minimum
-- (gpu_market_prices_daily: suspect providers set aside) with the size that price is sold at (gpu_term_prices_daily
-- min_gpus: a cluster rate's smallest cluster, an instance's GPUs). The one place the two are joined: rent vs buy
-- (rent_vs_buy_daily) and `gpuprices estimate --term` read it. A view over two tables built by day.
with markets as (
    select * from {{ ref('gpu_market_prices_daily') }}
    where market in ('reserved_1y', 'reserved_3y')
      and price_per = 'gpu_hour'
      and credible_min_price_usd is not null
),

terms as (
    select price_date, gpu_id, provider, pricing_type, min_gpus from {{ ref('gpu_term_prices_daily') }}
)

select
    markets.price_date,
    markets.gpu_id,
    markets.market,
    markets.credible_min_price_usd as committed_usd_per_gpu_hour,
    markets.credible_min_provider as committed_provider,
    markets.credible_min_source as committed_source,
    -- the commitment covers at least this many GPUs (NULL where the term mart has no row for the provider)
    terms.min_gpus,
    markets.is_synthetic
from markets
left join terms
    on terms.price_date = markets.price_date
    and terms.gpu_id = markets.gpu_id
    and terms.provider = markets.credible_min_provider
    and terms.pricing_type = markets.market
