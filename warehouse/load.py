"""Loading one source-run into raw.*: a single transaction, all or nothing, idempotent.

The key is (run_id, parser_version). If raw.ingest_runs already holds that key, the load adds nothing at all.
Otherwise, in one transaction: the landed documents, the accepted offers (only when the result passed its
integrity check) or the exchange rates of a rates source, the quarantined rows / result with their reasons, and
the ingest_runs row.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from scrapers.base import FxRate
from warehouse.integrity import IntegrityResult
from warehouse.landing import LandedRun, sha256


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
    offers_parsed: int = 0
    offers_loaded: int = 0
    offers_rejected: int = 0
    error: str | None = None
    landing_path: str | None = None
    is_synthetic: bool = False
    trigger: str = "daily"

    def row(self) -> dict:
        return {
            **self.__dict__,
            "duration_s": (self.finished_at - self.started_at).total_seconds(),
        }


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


def _insert_record(connection, record: IngestRecord) -> None:
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
                sha256(document.body), len(document.body), run.landing_ref(index),
            ],
        )


def load_run(
    connection: duckdb.DuckDBPyConnection,
    run: LandedRun,
    record: IngestRecord,
    integrity: IntegrityResult | None,
    fx_rates: list[FxRate] | None = None,
) -> IngestRecord:
    """Write one source-run: offers (with their integrity result) or, for a rates source, `fx_rates` (loaded only
    when record.status is `loaded`). Returns the record as stored, or with status `already_loaded` if it was."""
    with transaction(connection):
        previous = already_ingested(connection, record.run_id, record.parser_version)
        if previous is not None:
            record.status, record.offers_loaded = f"already_{previous}", 0
            return record
        _insert_landing_documents(connection, run)
        if fx_rates and record.status == "loaded":
            rates = _fx_frame(run, record, fx_rates).to_arrow()  # noqa: F841 (read by DuckDB by name)
            connection.execute("INSERT INTO raw.fx_rates BY NAME SELECT * FROM rates")
        if integrity is not None:
            if integrity.passed and integrity.accepted.height:
                accepted = integrity.accepted.to_arrow()  # noqa: F841 (read by DuckDB by name)
                connection.execute("INSERT INTO raw.offers BY NAME SELECT * FROM accepted")
            _insert_quarantine(connection, record, integrity, datetime.now(UTC))
        _insert_record(connection, record)
        _hold_for_crash_test(record)
    return record


def _hold_for_crash_test(record: IngestRecord) -> None:
    """Fault injection for the crash tests: with GPUPRICES_FAULT_HOLD_LOAD=<file>, a load writes its run id to
    <file> and waits, its rows inserted but not committed, for the test to SIGKILL the process."""
    hold = os.environ.get("GPUPRICES_FAULT_HOLD_LOAD")
    if hold:
        Path(hold).write_text(record.run_id)
        time.sleep(3600)


def _fx_frame(run: LandedRun, record: IngestRecord, fx_rates: list[FxRate]) -> pl.DataFrame:
    """The rates as one frame (a history file holds ~200,000: inserted in bulk, not row by row)."""
    return pl.DataFrame(
        {
            "run_id": [run.run_id] * len(fx_rates),
            "parser_version": [record.parser_version] * len(fx_rates),
            "observed_at": [run.observed_at] * len(fx_rates),
            "source": [rate.source for rate in fx_rates],
            "rate_date": [rate.rate_date for rate in fx_rates],
            "base_currency": [rate.base_currency for rate in fx_rates],
            "quote_currency": [rate.quote_currency for rate in fx_rates],
            "rate": [rate.rate for rate in fx_rates],
            "landing_ref": [run.landing_ref(rate.document_index) for rate in fx_rates],
            "is_synthetic": [run.is_synthetic] * len(fx_rates),
        },
        schema_overrides={"rate": pl.Decimal(18, 8)},
    )


def _insert_quarantine(connection, record: IngestRecord, integrity: IntegrityResult, now: datetime) -> None:
    rows = [
        (record.run_id, record.parser_version, record.source, record.observed_at, "result", reason, None, now)
        for reason in integrity.result_reasons
    ]
    detail_columns = ["offer_id", "raw_gpu_name", "gpu_id", "pricing_type", "price", "currency",
                      "price_per_gpu_hour_usd", "region", "landing_ref"]
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
            _insert_record(connection, record)
    return record
