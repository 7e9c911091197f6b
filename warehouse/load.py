"""Loading one source-run into raw.*: a single transaction, all or nothing, idempotent.

The key is (run_id, parser_version). If raw.ingest_runs already holds that key, the load adds nothing at all.
Otherwise, in one transaction: the landed documents, the accepted rows (offers, or the exchange rates of a rates
source; only when the result passed its integrity check), the quarantined rows / result with their reasons, and
the ingest_runs row.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import duckdb
import polars as pl

from config.redact import redact
from warehouse.integrity import IntegrityResult
from warehouse.landing import LandedRun


# Offers inserted per statement when an imported history is written (warehouse/imports.py): DuckDB holds a statement's
# rows in memory at once; a 300,000-row history in one statement costs ~150 MB more at peak.
INSERT_SLICE_ROWS = 50_000


@dataclass
class IngestRecord:
    run_id: str
    parser_version: int
    source: str
    status: str
    observed_at: datetime
    started_at: datetime
    finished_at: datetime
    documents_fetched: int = 0
    bytes_fetched: int = 0
    rows_parsed: int = 0
    rows_loaded: int = 0
    rows_rejected: int = 0
    error: str | None = None
    landing_path: str | None = None
    is_synthetic: bool = False
    trigger: str = "daily"
    # what the landed documents are (warehouse/landing.py DATA_ORIGINS: captured, imported, stale_capture,
    # reconstructed, synthetic); None for a run that landed nothing (failed, blocked, skipped)
    data_origin: str | None = None
    # seconds per pipeline stage (fetch, parse, normalize, check, load): in the run report, not in raw.ingest_runs
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def __setattr__(self, name: str, value) -> None:
        # an error message may quote a URL with a key in it: stored, reported and shown only redacted
        super().__setattr__(name, redact(value) if name == "error" and value else value)

    def row(self) -> dict:
        """The raw.ingest_runs row."""
        row = {name: value for name, value in self.__dict__.items() if name != "stage_seconds"}
        return {**row, "duration_s": (self.finished_at - self.started_at).total_seconds()}


@contextlib.contextmanager
def transaction(connection: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """All or nothing: committed when the block ends normally, rolled back on any exception."""
    connection.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def already_ingested(connection: duckdb.DuckDBPyConnection, run_id: str, parser_version: int) -> str | None:
    found = connection.execute(
        "SELECT status FROM raw.ingest_runs WHERE run_id = ? AND parser_version = ?", [run_id, parser_version]
    ).fetchone()
    return found[0] if found else None


def insert_ingest_record(connection, record: IngestRecord) -> None:
    """The run's raw.ingest_runs row (the last write of a load: its presence means the run is in)."""
    row = record.row()
    columns = ", ".join(row)
    placeholders = ", ".join("?" for _ in row)
    connection.execute(f"INSERT INTO raw.ingest_runs ({columns}) VALUES ({placeholders})", list(row.values()))


def _insert_landing_documents(connection, run: LandedRun) -> None:
    for index, document in enumerate(run.documents):
        connection.execute(
            """INSERT INTO raw.landing_documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT DO NOTHING""",
            [
                run.run_id, run.source, index, document.url, document.status, document.fetched_at,
                document.sha256(), document.size, run.landing_ref(index),
            ],
        )


def load_run(
    connection: duckdb.DuckDBPyConnection,
    run: LandedRun,
    record: IngestRecord,
    checked: IntegrityResult | None,
    table: str = "raw.offers",
) -> IngestRecord:
    """Write one source-run: its landed documents, the accepted rows into `table` (raw.offers, raw.fx_rates or
    raw.api_token_prices; only when the result passed its check), the quarantined rows / result with their reasons,
    and the ingest_runs row.
    `checked` is None when parsing failed. Returns the record as stored, or with status `already_*` if it was."""
    with transaction(connection):
        previous = already_ingested(connection, record.run_id, record.parser_version)
        if previous is not None:
            record.status, record.rows_loaded = f"already_{previous}", 0
            return record
        write_run(connection, run, record, checked, table)
    return record


def write_run(connection, run: LandedRun, record: IngestRecord, checked: IntegrityResult | None,
              table: str = "raw.offers") -> None:
    """load_run's writes, inside the caller's transaction."""
    _insert_landing_documents(connection, run)
    if checked is not None:
        if checked.passed and checked.accepted.height:
            accepted = checked.accepted.to_arrow()  # noqa: F841 (read by DuckDB by name)
            connection.execute(f"INSERT INTO {table} BY NAME SELECT * FROM accepted")
        _insert_quarantine(connection, record, checked, datetime.now(UTC))
    insert_ingest_record(connection, record)


def write_runs(connection, landed: LandedRun, records: list[IngestRecord], checked: IntegrityResult) -> None:
    """An imported file's day-runs (one landed file, every row accepted), inside the caller's transaction: the file
    as each run's document, all their offers in one insert, then their ingest_runs rows. Every offer's landing_ref
    is the file's, given in the insert: as a column of 300,000 copies it cost a long history ~25 MB twice."""
    # frames, not executemany: thousands of day-runs in one statement each
    document = landed.documents[0]
    documents = pl.DataFrame({  # noqa: F841 (read by DuckDB by name)
        "run_id": [record.run_id for record in records], "source": landed.source, "document_index": 0,
        "url": document.url, "http_status": document.status, "fetched_at": document.fetched_at,
        "sha256": document.sha256(), "bytes": document.size, "path": landed.landing_ref(0)})
    connection.execute("INSERT INTO raw.landing_documents BY NAME SELECT * FROM documents ON CONFLICT DO NOTHING")
    for part in checked.accepted.iter_slices(INSERT_SLICE_ROWS):  # a long history in slices: bounded memory
        accepted = part.to_arrow()  # noqa: F841
        connection.execute("INSERT INTO raw.offers BY NAME SELECT * REPLACE (? AS landing_ref) FROM accepted",
                           [landed.landing_ref(0)])
    runs = pl.DataFrame([record.row() for record in records])  # noqa: F841
    connection.execute("INSERT INTO raw.ingest_runs BY NAME SELECT * FROM runs")


def _insert_quarantine(connection, record: IngestRecord, integrity: IntegrityResult, now: datetime) -> None:
    rows = [
        (record.run_id, record.parser_version, record.source, record.observed_at, "result", reason, None, now)
        for reason in integrity.result_reasons
    ]
    detail_columns = [c for c in ("offer_id", "raw_gpu_name", "gpu_id", "pricing_type", "price", "currency",
                                  "price_per_unit", "region", "model_slug", "usd_per_million_input_tokens",
                                  "usd_per_million_output_tokens", "landing_ref") if c in integrity.rejected.columns]
    for offer in integrity.rejected.select([*detail_columns, "reason"]).iter_rows(named=True):
        reason = offer.pop("reason")
        detail = json.dumps(offer, default=str)
        rows.append((record.run_id, record.parser_version, record.source, record.observed_at, "row", reason, detail, now))
    if rows:
        connection.executemany("INSERT INTO raw.quarantine VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def record_without_landing(connection: duckdb.DuckDBPyConnection, record: IngestRecord) -> IngestRecord:
    """A run that never produced documents (fetch failed, blocked, skipped): only its ingest_runs row."""
    with transaction(connection):
        if already_ingested(connection, record.run_id, record.parser_version) is None:
            insert_ingest_record(connection, record)
    return record
