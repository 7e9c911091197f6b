"""Made-up price history at warehouse scale, for benchmarks (`gpuprices bench build`) and scale tests.

Every row is synthetic (is_synthetic = true, trigger `synthetic-history`, run ids ending in `-synthetic`) and the
generator refuses a warehouse that holds anything else, so it can never mix into observed prices.

Realistic shape: the template is one real day of every bundled source, fetched by the real fetch code from the
offline recordings and parsed, checked and loaded by the real pipeline into a scratch warehouse. Each generated day
repeats that day with
  * a per-GPU price path: a random walk (about 1% a day) plus a yearly swing, the same for every source of a GPU,
  * per-offer noise (+-2%) and about 5% of the offers missing on any day (offers come and go),
  * a marketplace snapshot (`vast`) of `marketplace_offers` listings: the bundled Vast offers repeated as separate
    hosts, each host priced within +-30% of the template,
  * ECB rates for every weekday, drifting a little from the template's.
The randomness is a hash of (seed, key, day), so the same arguments give the same history.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import duckdb

from config.settings import use_data_home
from scrapers.http import HttpClient
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)
from warehouse.store.paths import database_path
from warehouse.ingest.pipeline import fetch_and_land, ingest
from warehouse.store.schema import DROPPED_OFFER_COLUMNS

TRIGGER = "synthetic-history"
MARKETPLACE_SOURCE = "vast"
MARKETPLACE_TEMPLATE_SOURCES = ("vast", "skypilot-vast")  # their listings seed the marketplace hosts


def build_template(home: Path) -> Path:
    """One real bundled day (the last) through fetch, land, parse, check and load, into `home`. Returns the
    warehouse file. Reused when it exists."""
    with use_data_home(home):
        path = database_path()
        if path.exists():
            return path
        day = replay_plan(load_recordings())[-1]

        async def replay() -> None:
            async with HttpClient(OFFLINE_HTTP, rewrite=rewrite_to(server.base_url)) as client:
                for source_id in day.sources:
                    source = all_sources({source_id: day.overrides.get(source_id) or {}})[source_id]
                    run = await fetch_and_land(source, client, day.observed_at, day.data_origins[source_id])
                    ingest(source, run, TRIGGER)

        with RecordedServer() as server, placeholder_credentials(list(all_sources().values())):
            server.routes = day.routes
            asyncio.run(replay())
        return path


def refuse_observed_data(connection: duckdb.DuckDBPyConnection) -> None:
    observed = connection.execute(
        "SELECT count(*) FROM raw.ingest_runs WHERE trigger <> ?", [TRIGGER]
    ).fetchone()[0]
    if observed:
        raise SystemExit(
            f"this warehouse holds {observed} observed source-run(s): synthetic history goes in a warehouse of its "
            "own (set GPUPRICES_HOME to an empty directory)"
        )


def generate(
    connection: duckdb.DuckDBPyConnection,
    template_path: Path,
    first_day: date,
    days: int,
    marketplace_offers: int = 10_000,
    seed: int = 7,
    chunk_days: int = 61,
) -> int:
    """Append `days` days of synthetic history starting at `first_day` to the raw tables. Returns the offer rows
    written. The raw schema must exist (warehouse.store.db.connect creates it)."""
    refuse_observed_data(connection)
    connection.execute(f"ATTACH '{template_path}' AS template (READ_ONLY)")
    try:
        _prepare_templates(connection, marketplace_offers, seed)
        written = 0
        for start in range(0, days, chunk_days):
            span = min(chunk_days, days - start)
            written += _generate_days(connection, first_day + timedelta(days=start), span, seed)
        return written
    finally:
        connection.execute("DETACH template")


def _prepare_templates(connection, marketplace_offers: int, seed: int) -> None:
    connection.execute(
        """
        CREATE OR REPLACE TEMP TABLE offer_template AS
        SELECT * FROM template.raw.offers WHERE source NOT IN (SELECT unnest($marketplace_sources))
        """,
        {"marketplace_sources": list(MARKETPLACE_TEMPLATE_SOURCES)},
    )
    # The marketplace: the bundled Vast listings repeated as `marketplace_offers` hosts, each with its own price.
    connection.execute(
        """
        CREATE OR REPLACE TEMP TABLE marketplace_template AS
        WITH listings AS (
            SELECT *, row_number() OVER (ORDER BY source, offer_id, pricing_type) - 1 AS listing_number,
                   count(*) OVER () AS listing_count
            FROM template.raw.offers
            WHERE source IN (SELECT unnest($marketplace_sources)) AND gpu_id IS NOT NULL
        ),
        hosts AS (SELECT range AS host FROM range($offers))
        SELECT listings.* EXCLUDE (listing_number, listing_count, offer_id, source, provider, run_id, observed_at,
                                   landing_ref, is_synthetic),
               $source AS source, $source AS provider, 'host-' || hosts.host AS offer_id,
               0.7 + 0.6 * ((hash($seed, 'host', hosts.host) % 1000) / 1000.0) AS host_factor
        FROM hosts JOIN listings ON listings.listing_number = hosts.host % listings.listing_count
        """,
        {"marketplace_sources": list(MARKETPLACE_TEMPLATE_SOURCES), "offers": marketplace_offers,
         "source": MARKETPLACE_SOURCE, "seed": seed},
    )
    # a template loaded before the legacy USD columns were dropped (warehouse/store/schema.py) still has them, NULL
    for table in ("offer_template", "marketplace_template"):
        for column in DROPPED_OFFER_COLUMNS:
            connection.execute(f"ALTER TABLE {table} DROP COLUMN IF EXISTS {column}")
    connection.execute(
        """
        CREATE OR REPLACE TEMP TABLE fx_template AS
        SELECT base_currency, quote_currency, arg_max(rate, rate_date) AS rate, max(parser_version) AS parser_version
        FROM template.raw.fx_rates GROUP BY ALL
        """
    )


def _generate_days(connection, first_day: date, days: int, seed: int) -> int:
    params = {"first_day": first_day, "days": days, "seed": seed}
    # One price path per GPU (or raw name) and day: a random walk of ~1%/day steps, a yearly swing, kept in bounds.
    connection.execute(
        """
        CREATE OR REPLACE TEMP TABLE price_paths AS
        WITH keys AS (
            SELECT DISTINCT coalesce(gpu_id, raw_gpu_name) AS gpu_key FROM offer_template
            UNION SELECT DISTINCT coalesce(gpu_id, raw_gpu_name) FROM marketplace_template
        ),
        steps AS (
            SELECT gpu_key, day_number,
                   ((hash($seed, gpu_key, day_number) % 2001)::BIGINT - 1000) / 100000.0 AS step
            FROM keys CROSS JOIN range(date_diff('day', date '2020-01-01', $first_day::DATE) + $days) AS d(day_number)
        )
        SELECT gpu_key, date '2020-01-01' + cast(day_number AS INTEGER) AS day,
               greatest(0.4, least(2.5, exp(
                   sum(step) OVER (PARTITION BY gpu_key ORDER BY day_number)
                   + 0.08 * sin(2 * pi() * day_number / 365.0 + (hash($seed, gpu_key) % 628) / 100.0)
               ))) AS factor
        FROM steps
        QUALIFY day >= $first_day::DATE
        """,
        params,
    )
    before = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0]
    connection.execute(
        """
        INSERT INTO raw.offers BY NAME
        WITH days AS (
            SELECT $first_day::DATE + cast(range AS INTEGER) AS day FROM range($days)
        ),
        rows AS (
            SELECT offer_template.* EXCLUDE (run_id, observed_at, landing_ref, is_synthetic), 1.0 AS host_factor
            FROM offer_template
            UNION ALL BY NAME
            SELECT * FROM marketplace_template
        ),
        priced AS (
            SELECT rows.*, days.day,
                   price_paths.factor * rows.host_factor
                       * (0.98 + 0.04 * ((hash($seed, rows.offer_id, rows.pricing_type, days.day) % 1000) / 1000.0))
                       AS factor
            FROM rows
            CROSS JOIN days
            JOIN price_paths ON price_paths.gpu_key = coalesce(rows.gpu_id, rows.raw_gpu_name)
                            AND price_paths.day = days.day
            WHERE hash($seed, 'present', rows.source, rows.offer_id, days.day) % 100 >= 5
        )
        SELECT priced.* EXCLUDE (day, factor, host_factor, price, price_per_unit),
               source || '-' || strftime(day, '%Y%m%d') || 'T230000Z-synthetic' AS run_id,
               timezone('UTC', day + TIME '23:00:00') AS observed_at,
               'synthetic-history/' || source || '/' || strftime(day, '%Y-%m-%d') AS landing_ref,
               true AS is_synthetic,
               greatest(0.01, round(price * factor, 4))::DECIMAL(24, 10) AS price,
               greatest(0.01, round(price_per_unit * factor, 6))::DECIMAL(18, 6) AS price_per_unit
        FROM priced
        ORDER BY day, source
        """,
        params,
    )
    written = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0] - before
    connection.execute(
        """
        INSERT INTO raw.fx_rates
        SELECT 'ecb-fx-' || strftime(day, '%Y%m%d') || 'T230000Z-synthetic', parser_version,
               timezone('UTC', day + TIME '23:00:00'), 'ecb-fx', day, base_currency, quote_currency,
               (rate * (0.995 + 0.01 * ((hash($seed, quote_currency, day) % 1000) / 1000.0)))::DECIMAL(18, 8),
               'synthetic-history/ecb-fx/' || strftime(day, '%Y-%m-%d'), true
        FROM fx_template
        CROSS JOIN (SELECT $first_day::DATE + cast(range AS INTEGER) AS day FROM range($days))
        WHERE dayofweek(day) BETWEEN 1 AND 5
        """,
        params,
    )
    # One loaded source-run per source and day, as the pipeline records them.
    connection.execute(
        """
        INSERT INTO raw.ingest_runs BY NAME
        WITH runs AS (
            SELECT run_id, parser_version, source, min(observed_at) AS observed_at, count(*) AS offers
            FROM raw.offers WHERE observed_at >= $first_at AND observed_at < $end_at AND run_id LIKE '%-synthetic'
            GROUP BY ALL
            UNION ALL
            SELECT run_id, parser_version, source, min(observed_at), count(*)
            FROM raw.fx_rates WHERE observed_at >= $first_at AND observed_at < $end_at AND run_id LIKE '%-synthetic'
            GROUP BY ALL
        )
        SELECT run_id, parser_version, source, 'loaded' AS status, observed_at,
               now() AS started_at, now() AS finished_at, 0.0 AS duration_s, 0 AS documents_fetched,
               0 AS bytes_fetched, offers AS rows_parsed, offers AS rows_loaded, 0 AS rows_rejected,
               NULL AS error, NULL AS landing_path, true AS is_synthetic, $trigger AS trigger,
               'synthetic' AS data_origin,
               -- the commit's place in the build's order, as warehouse/ingest/load.py takes it (one number per commit)
               (SELECT coalesce(max(commit_seq), 0) + 1 FROM raw.ingest_runs) AS commit_seq
        FROM runs
        """,
        {"first_at": datetime.combine(first_day, time(0), UTC),
         "end_at": datetime.combine(first_day + timedelta(days=days), time(0), UTC), "trigger": TRIGGER},
    )
    return written
