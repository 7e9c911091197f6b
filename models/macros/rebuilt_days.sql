{# Incremental builds: which days a build rewrites.

   `gpuprices build` writes them to meta.build_in_progress (one row: full_refresh, rebuild_dates) before dbt runs and
   empties it after (warehouse/store/build.py): the observation days of every source-run loaded, re-parsed or given new
   exchange rates since the previous build. Observations are append-only and each day's figures depend only on that
   day's runs (and the week of ECB rates before it), so rewriting those days gives the same tables as a full
   rebuild. With no row (a first build, `--full-refresh`, or dbt run by hand) every day is built. A table read at
   run time, not a `--vars` list: dbt's saved parse stays valid from one build to the next (it is thrown away
   whenever the command-line vars change), which saves the few seconds of a full parse on every build. #}

{# The rebuilt days as ISO dates, or none: every day. Read when the node runs (`execute`), never while parsing. #}
{% macro rebuild_dates() -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set plan_table = adapter.get_relation(database=target.database, schema='meta', identifier='build_in_progress') -%}
    {%- if plan_table is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set found = run_query(
        "select strftime(unnest(rebuild_dates), '%Y-%m-%d') from " ~ plan_table ~ " where not full_refresh") -%}
    {%- set planned = run_query("select count(*) from " ~ plan_table ~ " where not full_refresh") -%}
    {%- if planned.columns[0].values()[0] == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(found.columns[0].values() | list) }}
{%- endmacro %}

{# A predicate for the rows of an incremental model's input that fall on a rebuilt day. `timestamp_column`, when
   given, adds a range on the raw timestamp so DuckDB skips row groups of other days instead of scanning all.
   `onward`: every day from the first rebuilt one on, for a table whose rows depend on earlier days (trailing
   windows, lowest price so far). `lookback_days`: also the days up to that many days before the first rebuilt one
   (the snapshots int_offers__daily carries forward; the trailing windows of buy_signals_daily). #}
{% macro rebuilt_days_filter(date_column, timestamp_column=none, onward=false, lookback_days=0) -%}
    {#- a unit test has no `this` (and is never incremental): every given row is in -#}
    {%- set dates = rebuild_dates() if this is not none and is_incremental() else none -%}
    {%- if dates is none -%}
        true
    {%- elif dates | length == 0 -%}
        false
    {%- elif onward -%}
        {{ date_column }} >= date '{{ dates | min }}'{% if lookback_days > 0 %} - {{ lookback_days }}{% endif %}
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
   that wrote them): their `where` config says `rebuilt_days(<date column>)`, and for raw rows also
   `rebuild_window(<timestamp column>)` (a range DuckDB uses to skip the other days' row groups). dbt does not
   allow macros in test configs, so this override of dbt's get_where_subquery puts the predicates in when the test
   runs; a full build tests every row. #}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if not where -%}
        {{ return(relation) }}
    {%- endif -%}
    {%- set dates = rebuild_dates() -%}
    {%- set found = namespace(where=where) -%}  {#- a `set` inside a loop would not outlive it -#}
    {%- for column in modules.re.findall('rebuilt_days\\((\\w+)\\)', where) -%}
        {%- set predicate -%}
            {%- if dates is none -%} true
            {%- elif dates | length == 0 -%} false
            {%- else -%} {{ column }} in ({% for day in dates %}date '{{ day }}'{{ ', ' if not loop.last }}{% endfor %})
            {%- endif -%}
        {%- endset -%}
        {%- set found.where = found.where.replace('rebuilt_days(' ~ column ~ ')', '(' ~ predicate | trim ~ ')') -%}
    {%- endfor -%}
    {%- for column in modules.re.findall('rebuild_window\\((\\w+)\\)', where) -%}
        {%- set predicate -%}
            {%- if dates is none -%} true
            {%- elif dates | length == 0 -%} false
            {%- else -%} {{ column }} >= timestamptz '{{ dates | min }} 00:00:00+00' and {{ column }} < timestamptz '{{ dates | max }} 00:00:00+00' + interval 1 day
            {%- endif -%}
        {%- endset -%}
        {%- set found.where = found.where.replace('rebuild_window(' ~ column ~ ')', '(' ~ predicate | trim ~ ')') -%}
    {%- endfor -%}
    {%- set filtered -%}
        (select * from {{ relation }} where {{ found.where }}) dbt_subquery
    {%- endset -%}
    {{ return(filtered) }}
{%- endmacro %}
