{# The rules that decide which offers the market figures count, in one place: int_offers__market_daily keeps the
   offers they let through, marts.offer_decisions_daily says for every offer which rule kept it or set it aside
   (read by `gpuprices explain`). #}

{# Why an offer cannot count on its own terms (its rule's name), or NULL when it can: a card for parts or of unknown
   condition is in no market (macros/market.sql); no USD figure per unit (no GPU count, or no ECB rate within a
   week); a shipping charge or list price is not what the item sells for; a GPU-only rental SKU needs a VM on top;
   a card out of stock cannot be bought. Reads the columns of market_offers_priced. #}
{% macro market_entry_gap() -%}
    case
        when market is null then 'no_market'
        when unit_price_usd is null then 'no_usd_price'
        when price_role <> 'selling' then 'not_a_selling_price'
        when price_per = 'gpu_hour' and not includes_host_vm then 'needs_a_vm'
        when price_per = 'card' and not coalesce(in_stock, true) then 'out_of_stock'
    end
{%- endmacro %}

{# The offers of `daily_offers` (rows of int_offers__daily) with their unit, USD price per unit and instance
   family: the select list of a CTE. #}
{% macro market_offers_priced(daily_offers) -%}
    select
        {{ daily_offers }}.*,
        case when {{ daily_offers }}.price_unit = 'card' then 'card' else 'gpu_hour' end as price_per,
        {{ unit_price('price_usd', 'price_per_gpu_hour_usd', offers=daily_offers) }} as unit_price_usd,
        {{ instance_family(daily_offers ~ '.instance_type') }} as instance_family
    from {{ daily_offers }}
{%- endmacro %}

{# CTEs (comma-separated, no leading WITH) over `priced` (market_offers_priced rows):
   - complete: the offers with no market_entry_gap;
   - direct_or_only_via: per day, provider, GPU, pricing type, instance family and source, the source families
     left after the aggregator rule: an aggregator's copy (via shadeform, primeintellect...) counts only where no
     source lists the provider directly for that GPU and pricing type that day (the same machine seen twice is one
     offer; both stay in the by-source mart);
   - preferred_sources: of those, one source per provider, GPU, pricing type and instance family: a real capture
     beats a reconstructed or synthetic one, the provider's own source beats a SkyPilot catalog, then by name. #}
{% macro market_offer_choice(priced) -%}
complete as (
    select *
    from {{ priced }}
    where {{ market_entry_gap() }} is null
),

source_families as (
    select
        price_date, provider, gpu_id, pricing_type, instance_family, source,
        bool_or(is_synthetic) as is_synthetic,
        bool_or(via is not null) as is_via_aggregator
    from complete
    group by all
),

direct_or_only_via as (
    select *
    from source_families
    qualify not is_via_aggregator
        or not bool_or(not is_via_aggregator) over (partition by price_date, provider, gpu_id, pricing_type)
),

preferred_sources as (
    select price_date, provider, gpu_id, pricing_type, instance_family, source
    from direct_or_only_via
    qualify row_number() over (
        partition by price_date, provider, gpu_id, pricing_type, instance_family
        order by is_synthetic, source like 'skypilot-%', source
    ) = 1
)
{%- endmacro %}

{# Why a market offer may not head a "cheapest" answer (its rule's name), or NULL when it may: only a provider's own
   list price (its API, page or catalog) or the ask of a marketplace host the marketplace vouches for may. The offer
   keeps its row, badged with the reason, in the by-source tables (int_offers__credible_daily leaves it out;
   marts.offer_decisions_daily names the rule). Reads channel, seller_type, source and data_origin.
   - made_up: the figure comes from a documented-format file (ingest run data_origin 'synthetic': the source's
     documented format filled with made-up figures for the offline run), which no provider printed;
   - unverified_host: a marketplace host's ask nobody vouches for. A marketplace offer may head when the marketplace
     marks its host verified (vast.ai's `verification`, recorded as seller_type '<hosting>_verified':
     scrapers/cloud/vast.py), or when it is no single host's ask: RunPod's community-cloud price (seller_type
     community_cloud, one price RunPod lists per GPU type) and SkyPilot's vast catalog (its median per shape over
     many hosts). Every other marketplace ask (a vast host marked unverified or deverified; lium, spheron, akash and
     tensordock hosts, which publish no verification) is unverified. #}
{% macro headline_gap() -%}
    case
        when data_origin = 'synthetic' then 'made_up'
        when channel = 'marketplace'
            and not coalesce(regexp_matches(seller_type, '(^|_)verified$'), false)
            and coalesce(seller_type, '') <> 'community_cloud'
            and source <> 'skypilot-vast'
            then 'unverified_host'
    end
{%- endmacro %}

{# The words a by-source row or an offer's explanation gives for its headline_gap (NULL when it has none). #}
{% macro headline_gap_reason(gap) -%}
    case {{ gap }}
        when 'made_up' then 'made up: a documented-format file''s figure (offline recording), no price a provider printed'
        when 'unverified_host' then 'unverified: a marketplace host ' || provider || ' does not mark verified ('
            || coalesce(seller_type, 'no verification published') || ')'
    end
{%- endmacro %}
