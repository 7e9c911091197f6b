-- Each provider's own credible price series (issue 40): per day, GPU, market and unit, the provider's cheapest offer
-- after the source preference (int_provider_prices__daily), suspect prices left out. A provider's series is one
-- constant panel (itself): the GPU pages draw the ones with history as the provider's own line (GCP's list prices
-- 2022-25), and the buy signal is backtested on them (analytics/price_history.py). A view: the table below it is
-- incremental by day.
select
    price_date,
    gpu_id,
    channel,
    market,
    price_per,
    provider,
    source,
    price_usd,
    -- the other providers' median that day (the outlook's distance from the panel median)
    others_median_usd,
    is_imported,
    is_synthetic,
    is_carried_forward
from {{ ref('int_provider_prices__daily') }}
where not is_suspect
