"""The DuckDB schema of the raw layer. dbt owns staging / intermediate / marts; Python owns `raw`.

raw.offers, raw.fx_rates, raw.api_token_prices and raw.spot_interruption_bands are append-only: rows are inserted once per (run_id,
parser_version) and never updated or deleted (one migration of an older warehouse aside: a legacy column's derived
figure moved to price_per_unit, _move_legacy_unit_prices; no observed value changes).
A re-parse after a parser fix adds a new parser_version beside the old rows; staging reads the newest.
Taking an import back (`gpuprices import undo`) appends to raw.retractions; the staging models leave retracted runs
and quotes out (warehouse/ingest/retractions.py).
"""

from __future__ import annotations

SCHEMAS = ("raw", "meta", "staging", "intermediate", "marts", "monitoring")

RAW_TABLES = {
    "raw.ingest_runs": """
        run_id            VARCHAR NOT NULL,     -- one fetch of one source (stable for the same observation)
        parser_version    INTEGER NOT NULL,
        source            VARCHAR NOT NULL,
        status            VARCHAR NOT NULL,     -- loaded | quarantined | failed | blocked | parse_error | skipped
        observed_at       TIMESTAMPTZ NOT NULL, -- when the prices were observed (the simulated day in a replay)
        started_at        TIMESTAMPTZ NOT NULL,
        finished_at       TIMESTAMPTZ NOT NULL,
        duration_s        DOUBLE NOT NULL,
        documents_fetched INTEGER NOT NULL,
        bytes_fetched     BIGINT NOT NULL,
        rows_parsed       INTEGER NOT NULL,     -- records the parser returned: offers, or exchange rates (ECB)
        rows_loaded       INTEGER NOT NULL,     -- of those, loaded into the kind's raw table (raw.offers, raw.fx_rates,
                                                --   raw.api_token_prices, raw.spot_interruption_bands)
        rows_rejected     INTEGER NOT NULL,     -- rows quarantined one by one (e.g. a $0 price)
        error             VARCHAR,              -- why the run failed or was quarantined
        landing_path      VARCHAR,              -- relative to the data home
        is_synthetic      BOOLEAN NOT NULL,     -- loaded from a recorded response that is not a real capture
        trigger           VARCHAR NOT NULL,     -- daily | offline | reparse | backfill | import
        data_origin       VARCHAR,              -- the landing manifest's: captured | imported | stale_capture |
                                                --   reconstructed | synthetic; NULL when nothing landed, and in
                                                --   rows loaded before it was recorded (staging derives those)
        commit_seq        BIGINT,               -- the order its load committed in (1, 2, ...; one number per commit,
                                                --   taken inside it): what the build's "what is new" mark counts;
                                                --   NULL in rows loaded before it was recorded
        PRIMARY KEY (run_id, parser_version)
    """,
    "raw.offers": """
        run_id                 VARCHAR NOT NULL,
        parser_version         INTEGER NOT NULL,
        observed_at            TIMESTAMPTZ NOT NULL,
        source                 VARCHAR NOT NULL,
        channel                VARCHAR NOT NULL,  -- cloud | marketplace | retail, as the source declares it
        provider               VARCHAR NOT NULL,
        offer_id               VARCHAR NOT NULL,
        title                  VARCHAR,
        raw_gpu_name           VARCHAR NOT NULL,
        gpu_id                 VARCHAR,           -- NULL when no alias matched (see gpuprices status)
        gpu_count              DECIMAL(12, 6),
        pricing_type           VARCHAR NOT NULL,  -- on_demand | spot | reserved_1y | reserved_3y | purchase (retail)
        term_months            SMALLINT,
        price                  DECIMAL(24, 10) NOT NULL,  -- exactly as given
        currency               VARCHAR NOT NULL,          -- ISO 4217, as given
        price_unit             VARCHAR NOT NULL,          -- gpu_hour | instance_hour | instance_term | card
        price_role             VARCHAR NOT NULL,          -- selling | list | shipping ...
        includes_host_vm       BOOLEAN NOT NULL,          -- the price includes the host VM
        region                 VARCHAR,
        instance_type          VARCHAR,
        condition              VARCHAR,
        seller_type            VARCHAR,
        in_stock               BOOLEAN,
        url                    VARCHAR,
        landing_ref            VARCHAR NOT NULL,          -- the landed raw document this row was parsed from
        is_synthetic           BOOLEAN NOT NULL,
        price_per_unit         DECIMAL(18, 6),            -- per GPU-hour (rentals) or per card, in `currency`
        via                    VARCHAR,                   -- the aggregator it was seen through; NULL = direct
        interconnect           VARCHAR,                   -- sxm | pcie_nvlink | nvlink | pcie where the source says
        cluster_network        VARCHAR,                   -- infiniband | roce | ethernet where the source says
        host_reliability       DECIMAL(7, 6)              -- the host's published reliability, 0-1 (vast reliability2)
    """,
    "raw.quotes": """
        load_id       VARCHAR NOT NULL,          -- one loaded file (sha256 of its bytes: the same file loads once)
        line          INTEGER NOT NULL,
        quote_date    DATE NOT NULL,
        raw_gpu_name  VARCHAR NOT NULL,
        gpu_id        VARCHAR,                   -- resolved at load; the models resolve again from raw_gpu_name
        low_price     DECIMAL(24, 4) NOT NULL,   -- per card, in `currency`
        high_price    DECIMAL(24, 4) NOT NULL,
        currency      VARCHAR NOT NULL,
        source_note   VARCHAR,                   -- who quoted it, how (broker, reseller, chat...)
        file_name     VARCHAR NOT NULL,
        loaded_at     TIMESTAMPTZ NOT NULL
    """,
    "raw.fx_rates": """
        run_id          VARCHAR NOT NULL,
        parser_version  INTEGER NOT NULL,
        observed_at     TIMESTAMPTZ NOT NULL,   -- when the file was fetched
        source          VARCHAR NOT NULL,
        rate_date       DATE NOT NULL,          -- the day the rate is for (a TARGET business day)
        base_currency   VARCHAR NOT NULL,       -- EUR for the ECB
        quote_currency  VARCHAR NOT NULL,
        rate            DECIMAL(18, 8) NOT NULL, -- units of quote_currency per 1 base_currency, as published
        landing_ref     VARCHAR NOT NULL,
        is_synthetic    BOOLEAN NOT NULL
    """,
    "raw.api_token_prices": """
        run_id                         VARCHAR NOT NULL,
        parser_version                 INTEGER NOT NULL,
        observed_at                    TIMESTAMPTZ NOT NULL,
        source                         VARCHAR NOT NULL,   -- the price list (openrouter)
        provider                       VARCHAR NOT NULL,   -- who sells the API access at this price
        model_slug                     VARCHAR NOT NULL,   -- the model as the price list names it
        usd_per_million_input_tokens   DECIMAL(24, 12) NOT NULL,  -- prompt tokens; 0 = a free tier
        usd_per_million_output_tokens  DECIMAL(24, 12) NOT NULL,  -- completion tokens
        context_length                 INTEGER,
        landing_ref                    VARCHAR NOT NULL,
        is_synthetic                   BOOLEAN NOT NULL
    """,
    "raw.spot_interruption_bands": """
        run_id                   VARCHAR NOT NULL,
        parser_version           INTEGER NOT NULL,
        observed_at              TIMESTAMPTZ NOT NULL,
        source                   VARCHAR NOT NULL,   -- the published file (aws-spot-advisor)
        provider                 VARCHAR NOT NULL,   -- whose spot instances (aws)
        region                   VARCHAR NOT NULL,
        operating_system         VARCHAR NOT NULL,   -- as published (Linux, Windows)
        instance_type            VARCHAR NOT NULL,
        interruption_band        VARCHAR NOT NULL,   -- the band's label as published ("<5%" .. ">20%")
        interruption_band_index  SMALLINT NOT NULL,  -- its place in the published ranges, 0 = least interrupted
        interruption_max_pct     SMALLINT NOT NULL,  -- its published upper edge, percent of instances interrupted
        spot_savings_pct         SMALLINT NOT NULL,  -- the published saving of spot over on-demand, percent
        landing_ref              VARCHAR NOT NULL,
        is_synthetic             BOOLEAN NOT NULL
    """,
    "raw.retractions": """
        import_id     VARCHAR NOT NULL,     -- as `gpuprices import list` names it: a price file's run id or a
                                            --   quotes load id
        kind          VARCHAR NOT NULL,     -- prices | quotes
        run_id        VARCHAR NOT NULL,     -- what is left out: a day-run of the file (raw.ingest_runs, raw.offers), or
                                            --   the quotes load (raw.quotes.load_id)
        source        VARCHAR,              -- the price import's source name; NULL for quotes
        retracted_at  TIMESTAMPTZ NOT NULL,
        reason        VARCHAR NOT NULL,     -- why (`gpuprices import undo --reason`)
        PRIMARY KEY (run_id)
    """,
    "raw.quarantine": """
        run_id          VARCHAR NOT NULL,
        parser_version  INTEGER NOT NULL,
        source          VARCHAR NOT NULL,
        observed_at     TIMESTAMPTZ NOT NULL,
        scope           VARCHAR NOT NULL,   -- result (the whole fresh result was held back) | row
        reason          VARCHAR NOT NULL,
        detail          VARCHAR,            -- the offending offer or figures, as JSON
        quarantined_at  TIMESTAMPTZ NOT NULL
    """,
    "meta.builds": """
        started_at          TIMESTAMPTZ NOT NULL,
        finished_at         TIMESTAMPTZ NOT NULL,
        ingested_through    TIMESTAMPTZ,          -- newest raw.ingest_runs.finished_at the build covered
        full_refresh        BOOLEAN NOT NULL,     -- every day rebuilt, or only the changed ones
        rebuilt_days        INTEGER NOT NULL,     -- days rewritten by an incremental build
        models_fingerprint  VARCHAR NOT NULL,     -- hash of models/seeds/tests: a change forces a full rebuild
        commit_seq_through  BIGINT                -- newest raw.ingest_runs.commit_seq the build covered (its mark)
    """,
    # The days the running `gpuprices build` rewrites (warehouse/store/build.py writes one row before dbt runs and deletes
    # it after; models/macros/rebuilt_days.sql reads it): no row, every day.
    "meta.build_in_progress": """
        full_refresh    BOOLEAN NOT NULL,
        rebuild_dates   DATE[] NOT NULL
    """,
    # Source incidents (warehouse/store/incidents.py): a source that broke, from the run that showed it to the run that
    # loaded normally again. Rows are opened and later closed (updated), never deleted.
    "meta.source_incidents": """
        incident_id          VARCHAR NOT NULL,     -- <source>#<n>: the source's n-th incident
        source               VARCHAR NOT NULL,
        kind                 VARCHAR NOT NULL,     -- parse_error | repeated_failure | low_offers
        detail               VARCHAR NOT NULL,     -- what the run that opened it showed (redacted)
        opened_at            TIMESTAMPTZ NOT NULL, -- when it was opened (the wall clock)
        opened_run_id        VARCHAR NOT NULL,     -- the raw.ingest_runs run that opened it
        opened_observed_at   TIMESTAMPTZ NOT NULL,
        last_good_run        VARCHAR,              -- the newest run before it that loaded normally; NULL: none
        last_good_at         TIMESTAMPTZ,          -- its observed_at
        usual_offers         DOUBLE,               -- offers a normal run loaded when it opened (median of the last
                                                   --   7 loaded runs, at least 3); NULL: too few runs yet
        notified_at          TIMESTAMPTZ,          -- the opening message reached a delivery; NULL: not (yet) sent
        closed_at            TIMESTAMPTZ,          -- NULL while open
        closed_run_id        VARCHAR,              -- the run that loaded normally again; NULL: closed by hand
        closed_observed_at   TIMESTAMPTZ,          -- the newest observation judged when it closed
        close_reason         VARCHAR,              -- recovered | new_usual | by hand: <reason>
        recovery_notified_at TIMESTAMPTZ,          -- the recovery message reached a delivery
        PRIMARY KEY (incident_id)
    """,
    "raw.landing_documents": """
        run_id      VARCHAR NOT NULL,
        source      VARCHAR NOT NULL,
        document_index INTEGER NOT NULL,
        url         VARCHAR NOT NULL,
        http_status INTEGER NOT NULL,
        fetched_at  TIMESTAMPTZ NOT NULL,
        sha256      VARCHAR NOT NULL,
        bytes       BIGINT NOT NULL,
        path        VARCHAR NOT NULL,
        PRIMARY KEY (run_id, document_index)
    """,
}


# Point in time: what each source last showed at `as_of` (its newest loaded run observed by then), as the warehouse
# knew it at `known_at` (runs and re-parses ingested by then, less the imports retracted by then; NULL = now). A
# source that failed at as_of keeps its previous good snapshot. Because raw rows (retractions too) are only ever
# appended, the answer for a past (as_of, known_at) never changes:
# `SELECT * FROM raw.offers_as_of(TIMESTAMPTZ '2026-04-20 23:30+00')`.
OFFERS_AS_OF_SQL = """
CREATE OR REPLACE MACRO raw.offers_as_of(as_of, known_at := NULL) AS TABLE
WITH runs AS (
    SELECT run_id, parser_version, source, observed_at
    FROM raw.ingest_runs
    WHERE status = 'loaded' AND observed_at <= as_of AND (known_at IS NULL OR finished_at <= known_at)
      AND run_id NOT IN (SELECT run_id FROM raw.retractions WHERE known_at IS NULL OR retracted_at <= known_at)
),
current_parse AS (
    SELECT run_id, max(parser_version) AS parser_version FROM runs GROUP BY run_id
),
latest_run AS (
    SELECT source, arg_max(run_id, observed_at) AS run_id FROM runs GROUP BY source
)
SELECT offers.*
FROM raw.offers AS offers
JOIN current_parse USING (run_id, parser_version)
JOIN latest_run USING (run_id)
"""


# Columns dropped from raw.offers: price_usd and price_per_gpu_hour_usd, the USD figures loads before 2026-11 computed
# for USD rows (NULL since: the models convert every currency from price / price_per_unit). Nothing read price_usd
# (the models recompute it from `price`); a legacy row may hold its per-unit price only in price_per_gpu_hour_usd,
# so that is moved first (_move_legacy_unit_prices).
DROPPED_OFFER_COLUMNS = ("price_usd", "price_per_gpu_hour_usd")


RENAMED_COLUMNS = (
    ("raw.offers", "bundled", "includes_host_vm"),
    ("raw.ingest_runs", "offers_parsed", "rows_parsed"),
    ("raw.ingest_runs", "offers_loaded", "rows_loaded"),
    ("raw.ingest_runs", "offers_rejected", "rows_rejected"),
)


def create_raw_schema(connection) -> None:
    for schema in SCHEMAS:
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    for table, columns in RAW_TABLES.items():
        connection.execute(f"CREATE TABLE IF NOT EXISTS {table} ({columns})")
    create_series_tables(connection)
    # Columns added after a table was first created: warehouses made before them gain the column (NULL in old rows).
    connection.execute("ALTER TABLE raw.offers ADD COLUMN IF NOT EXISTS price_per_unit DECIMAL(18, 6)")
    connection.execute("ALTER TABLE raw.offers ADD COLUMN IF NOT EXISTS via VARCHAR")
    connection.execute("ALTER TABLE raw.offers ADD COLUMN IF NOT EXISTS interconnect VARCHAR")
    connection.execute("ALTER TABLE raw.offers ADD COLUMN IF NOT EXISTS cluster_network VARCHAR")
    connection.execute("ALTER TABLE raw.offers ADD COLUMN IF NOT EXISTS host_reliability DECIMAL(7, 6)")
    connection.execute("ALTER TABLE raw.ingest_runs ADD COLUMN IF NOT EXISTS data_origin VARCHAR")
    connection.execute("ALTER TABLE raw.ingest_runs ADD COLUMN IF NOT EXISTS commit_seq BIGINT")
    connection.execute("ALTER TABLE meta.builds ADD COLUMN IF NOT EXISTS commit_seq_through BIGINT")
    # Columns renamed so one thing has one name from raw to mart (the values are untouched).
    for table, old, new in RENAMED_COLUMNS:
        schema, name = table.split(".")
        found = connection.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = ? AND table_name = ? AND column_name = ?",
            [schema, name, old]).fetchone()[0]
        if found:
            connection.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")
    _move_legacy_unit_prices(connection)
    connection.execute(OFFERS_AS_OF_SQL)


def _move_legacy_unit_prices(connection) -> None:
    """An older warehouse's raw.offers loses DROPPED_OFFER_COLUMNS. A USD rental row loaded before price_per_unit
    existed holds its price per GPU-hour only in price_per_gpu_hour_usd: that figure is set as its price_per_unit
    first. This rewrites no observation: price, currency and unit stay as given; price_per_unit is the same derived
    figure (price per GPU-hour in the row's own currency, USD) the load computed from them, copied exactly
    (DECIMAL(18, 6) to DECIMAL(18, 6)), as the models read it so far (coalesce(price_per_unit,
    price_per_gpu_hour_usd) for rentals). A card's or a non-USD row's legacy figures were read by no model. Each
    step can run again after a crash: the copy touches only rows whose price_per_unit is still NULL."""
    present = {row[0] for row in connection.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'raw' AND table_name = 'offers'"
    ).fetchall()}
    if "price_per_gpu_hour_usd" in present:
        # its own statement: DuckDB commits no ALTER TABLE in the transaction of an UPDATE of the same table
        connection.execute("""
            UPDATE raw.offers SET price_per_unit = price_per_gpu_hour_usd
            WHERE price_per_unit IS NULL AND price_per_gpu_hour_usd IS NOT NULL AND currency = 'USD'
              AND channel = 'cloud'""")
    for column in DROPPED_OFFER_COLUMNS:
        if column in present:
            connection.execute(f"ALTER TABLE raw.offers DROP COLUMN {column}")


# The tables of the series marts: Python writes them from whole price series after each build (flows/series_marts.py:
# analytics/outlook.py, analytics/buy_verdicts.py); dbt shows them as the views marts.gpu_price_outlook_daily,
# gpu_price_outlook_scores, buy_verdicts and buy_signal_backtest. They exist (empty) before the first build.
SERIES_TABLES = {
    "meta.gpu_price_outlooks": """
    price_date DATE NOT NULL, gpu_id VARCHAR NOT NULL, market VARCHAR NOT NULL, provider VARCHAR NOT NULL,
    horizon_days INTEGER NOT NULL,
    price_usd DOUBLE NOT NULL, prob_drop_5pct DOUBLE NOT NULL, prob_drop_10pct DOUBLE NOT NULL,
    p10_price_usd DOUBLE NOT NULL, p50_price_usd DOUBLE NOT NULL, p90_price_usd DOUBLE NOT NULL,
    expected_low_usd DOUBLE NOT NULL, days_of_history INTEGER NOT NULL, kind VARCHAR NOT NULL,
    basis VARCHAR NOT NULL, basis_note VARCHAR NOT NULL, days_unchanged INTEGER NOT NULL, is_synthetic BOOLEAN NOT NULL,
    PRIMARY KEY (price_date, gpu_id, market, provider, horizon_days)""",
    "meta.gpu_price_outlook_scores": """
    gpu_id VARCHAR NOT NULL, market VARCHAR NOT NULL, provider VARCHAR NOT NULL, horizon_days INTEGER NOT NULL,
    as_of DATE NOT NULL,
    days_of_history INTEGER NOT NULL, scored_days INTEGER NOT NULL, first_scored_date DATE, last_scored_date DATE,
    drop_5pct_brier DOUBLE, drop_5pct_brier_climatology DOUBLE, drop_5pct_skill DOUBLE,
    drop_10pct_brier DOUBLE, drop_10pct_brier_climatology DOUBLE, drop_10pct_skill DOUBLE,
    interval_80_coverage DOUBLE, quantile_loss DOUBLE, quantile_loss_naive DOUBLE, quantile_skill DOUBLE,
    is_synthetic BOOLEAN NOT NULL, PRIMARY KEY (gpu_id, market, provider, horizon_days)""",
    "meta.buy_verdicts": """
    gpu_id VARCHAR NOT NULL, market VARCHAR NOT NULL, series_key VARCHAR NOT NULL, series_kind VARCHAR NOT NULL,
    series_label VARCHAR NOT NULL, provider VARCHAR, panel_id VARCHAR, panel_providers VARCHAR[],
    panel_start DATE NOT NULL, price_per VARCHAR NOT NULL, as_of DATE NOT NULL,
    price_usd DECIMAL(18, 6) NOT NULL, buy_now BOOLEAN NOT NULL, days_of_history INTEGER NOT NULL,
    backtest JSON, is_synthetic BOOLEAN NOT NULL, sources VARCHAR[] NOT NULL, PRIMARY KEY (gpu_id, market, series_key)""",
    "meta.buy_signal_backtest": """
    window_days INTEGER NOT NULL PRIMARY KEY, report JSON NOT NULL, is_synthetic BOOLEAN NOT NULL""",
}
# a column each table has had since its series became one provider's or one constant panel's (issue 40): a table
# without it holds only what the next write computes again, and is dropped
SERIES_TABLES_LAYOUT_COLUMN = {"meta.gpu_price_outlooks": "provider", "meta.gpu_price_outlook_scores": "provider",
                               "meta.buy_verdicts": "series_key"}


def create_series_tables(connection) -> None:
    connection.execute("CREATE SCHEMA IF NOT EXISTS meta")
    for table, columns in SERIES_TABLES.items():
        schema, name = table.split(".")
        found = {row[0] for row in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
            [schema, name]).fetchall()}
        wanted = SERIES_TABLES_LAYOUT_COLUMN.get(table)
        if found and wanted and wanted not in found:
            connection.execute(f"DROP TABLE {table}")
        connection.execute(f"CREATE TABLE IF NOT EXISTS {table} ({columns})")
