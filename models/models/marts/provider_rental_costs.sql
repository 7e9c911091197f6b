-- What renting costs beyond the GPU-hours, per provider, from its published price page (seed published_rental_costs:
-- each figure with the page, its capture date and the words it was read from), in one unit each: storage in USD per
-- TB-month and egress in USD per TB (TB = 10^12 bytes; a GiB is 1.073741824 GB; a month 730 hours, as the price
-- lists count one). A figure the page does not state stays NULL (unknown), never 0.
with published as (
    select * from {{ ref('published_rental_costs') }}
)

select
    provider,
    applies_to,
    storage_product,
    cast(case storage_per
        when 'TB-month' then storage_price_usd
        when 'GB-month' then storage_price_usd * 1000
        when 'GiB-month' then storage_price_usd * 1000 / 1.073741824
        when 'GB-hour' then storage_price_usd * 1000 * 730
    end as decimal(18, 6)) as storage_usd_per_tb_month,
    cast(case egress_per
        when 'TB' then egress_price_usd
        when 'GB' then egress_price_usd * 1000
        when 'GiB' then egress_price_usd * 1000 / 1.073741824
    end as decimal(18, 6)) as egress_usd_per_tb,
    billing_increment_seconds,
    minimum_rental_hours,
    -- the rentals a row is for, by GPUs per rental (a provider may bill its VMs and its bare-metal nodes apart)
    min_rental_gpus,
    max_rental_gpus,
    storage_price_usd,
    storage_per,
    egress_price_usd,
    egress_per,
    as_of,
    source_url,
    recording,
    quotes,
    -- real published pages, each figure dated by as_of and never claimed for a later day: a reference table (like
    -- the spec table), not a replayed observation
    false as is_synthetic
from published
