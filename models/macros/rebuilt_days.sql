{# Incremental builds: which days a build rewrites.

   `gpuprices build` passes `rebuild_dates` (a list of ISO dates): the observation days of every source-run loaded,
   re-parsed or given new exchange rates since the previous build. Observations are append-only and each day's
   figures depend only on that day's runs (and the week of ECB rates before it), so rewriting those days gives the
   same tables as a full rebuild. With no `rebuild_dates` (a first build, `--full-refresh`, or dbt run by hand)
   every day is built. #}

{# A predicate for the rows of an incremental model's input that fall on a rebuilt day. `timestamp_column`, when
   given, adds a range on the raw timestamp so DuckDB skips row groups of other days instead of scanning all.
   `onward`: every day from the first rebuilt one on, for a table whose rows depend on earlier days (trailing
   windows, lowest price so far). `lookback_days`: also the days up to that many days before the first rebuilt one
   (the snapshots int_offers__daily carries forward). #}
{% macro rebuilt_days_filter(date_column, timestamp_column=none, onward=false, lookback_days=0) -%}
    {%- set dates = var('rebuild_dates', none) -%}
    {#- a unit test has no `this` (and is never incremental): every given row is in -#}
    {%- if dates is none or this is none or not is_incremental() -%}
        true
    {%- elif dates | length == 0 -%}
        false
    {%- elif onward -%}
        {{ date_column }} >= date '{{ dates | min }}'
    {%- elif lookback_days > 0 -%}
        {{ date_column }} between date '{{ dates | min }}' - {{ lookback_days }} and date '{{ dates | max }}'
        {%- if timestamp_column %}
        and {{ timestamp_column }} >= timestamptz '{{ dates | min }} 00:00:00+00' - interval {{ lookback_days }} day
        and {{ timestamp_column }} < timestamptz '{{ dates | max }} 00:00:00+00' + interval 1 day
        {%- endif -%}
    {%- else -%}
        {{ date_column }} in ({% for day in dates %}date '{{ day }}'{{ ', ' if not loop.last }}{% endfor %})
        {%- if timestamp_column %}
        and {{ timestamp_column }} >= timestamptz '{{ dates | min }} 00:00:00+00'
        and {{ timestamp_column }} < timestamptz '{{ dates | max }} 00:00:00+00' + interval 1 day
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{# Data tests of the incremental tables check the days the build wrote (the other days were checked by the build
   that wrote them): their `where` config is "<date column> in ({{ var('rebuild_dates_sql', '<date column>') }})".
   dbt does not allow macros in test configs, so the build also passes the dates as SQL literals; without them (a
   full build) the predicate is `<date column> in (<date column>)`, true for every row. #}
