-- The ECB reference rates every non-USD price is converted at, as USD per one unit of each currency per rate date:
-- what an analyst or the alert engine (a rule's threshold in another currency) reads, so nothing outside dbt reads
-- the intermediate layer. A view over int_fx_rates__daily (whose data tests check the grain).
select
    rate_date,
    currency,
    usd_per_unit,
    is_synthetic
from {{ ref('int_fx_rates__daily') }}
