"""Loading source-runs into raw.*: one transaction, all or nothing, idempotent.

The key is (run_id, parser_version). If raw.ingest_runs already holds that key, the load adds nothing at all.
Otherwise, in one transaction: the landed documents, the accepted rows (offers, or the exchange rates of a rates
source; only when the result passed its integrity check), the quarantined rows / result with their reasons, and
the ingest_runs row. Runs that wait for the writer together are loaded together (load_runs; warehouse/ingest/pipeline.py).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import duckdb
import polars as pl
import pyarrow as pa

from config.redact import redact
from warehouse.store.db import sql_literal
from warehouse.ingest.integrity import IntegrityResult
from warehouse.store.landing import LandedRun


# Offers inserted per statement when an imported history is written (warehouse/ingest/imports.py): DuckDB holds a statement's
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
    # what the landed documents are (warehouse/store/landing.py DATA_ORIGINS: captured, imported, stale_capture,
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


# A load's rows are written as Arrow tables (DuckDB reads them by name), not as bound parameters: DuckDB's Python
# client looks for pandas for every parameter it binds, and where pandas is not installed each look is a failed
# import that walks sys.path (~0.25 ms; a source-run's load bound ~70 parameters). Arrow, not polars: DuckDB scans a
# polars frame by converting it to Arrow first (a few ms per statement).


def _ingested_statuses(connection: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[tuple[str, int], str]:
    """The stored status of each (run_id, parser_version) of these runs in raw.ingest_runs."""
    listed = ", ".join(sql_literal(run_id) for run_id in run_ids)
    return {(run_id, version): status for run_id, version, status in connection.execute(
        f"SELECT run_id, parser_version, status FROM raw.ingest_runs WHERE run_id IN ({listed})").fetchall()}


def already_ingested(connection: duckdb.DuckDBPyConnection, run_id: str, parser_version: int) -> str | None:
    return _ingested_statuses(connection, [run_id]).get((run_id, parser_version))


def insert_ingest_records(connection, records: list[IngestRecord]) -> None:
    """The runs' raw.ingest_runs rows (the last write of a load: a run's row means the run is in), inside the load's
    transaction. Each row gets the commit's place in the build's order (commit_seq: one more than any stored), taken
    here, while this process is the warehouse's one writer, not when the run started or finished: a load that waited
    for the writer behind a later one still comes after it, and the build's mark never passes it
    (warehouse/store/build.py plan_build). Its finished_at stays when its work ended."""
    runs = pa.Table.from_pylist([record.row() for record in records])  # noqa: F841 (read by DuckDB by name)
    connection.execute("INSERT INTO raw.ingest_runs BY NAME SELECT *, "
                       "(SELECT coalesce(max(commit_seq), 0) + 1 FROM raw.ingest_runs) AS commit_seq FROM runs")


def _insert_landing_documents(connection, runs: list[LandedRun]) -> None:
    """The runs' documents not stored yet (a re-parse of a landed run stores none). Looked up, not `ON CONFLICT DO
    NOTHING`: that costs DuckDB twice the insert (~3 ms per load)."""
    run_ids = ", ".join(sql_literal(run.run_id) for run in runs)
    stored = set(connection.execute(
        f"SELECT run_id, document_index FROM raw.landing_documents WHERE run_id IN ({run_ids})").fetchall())
    rows = [
        {"run_id": run.run_id, "source": run.source, "document_index": index, "url": document.url,
         "http_status": document.status, "fetched_at": document.fetched_at, "sha256": document.sha256(),
         "bytes": document.size, "path": run.landing_ref(index)}
        for run in runs for index, document in enumerate(run.documents) if (run.run_id, index) not in stored
    ]
    if rows:
        documents = pa.Table.from_pylist(rows)  # noqa: F841 (read by DuckDB by name)
        connection.execute("INSERT INTO raw.landing_documents BY NAME SELECT * FROM documents")


@dataclass
class PendingLoad:
    """One source-run to load: its landed documents, its record, its checked rows (None when parsing failed) and
    the raw table they go to (warehouse/ingest/pipeline.py RECORD_KINDS: raw.offers, raw.fx_rates...)."""

    run: LandedRun
    record: IngestRecord
    checked: IntegrityResult | None
    table: str = "raw.offers"


def load_runs(connection: duckdb.DuckDBPyConnection, loads: list[PendingLoad]) -> None:
    """Write source-runs in one transaction, all or nothing: their landed documents, the accepted rows into each
    run's table (raw.offers, raw.fx_rates, raw.api_token_prices, raw.spot_interruption_bands; only when the result passed its check; `checked`
    is None when parsing failed), the quarantined rows / results with their reasons, and the ingest_runs rows. One
    statement per table for all of them (a replayed day's 67 loads each cost ~4 statements and a commit, one writer
    at a time). A run already stored is left as it is and its record says `already_*`."""
    with transaction(connection):
        stored = _ingested_statuses(connection, [load.record.run_id for load in loads])
        fresh = []
        for load in loads:
            key = (load.record.run_id, load.record.parser_version)
            if key in stored:
                load.record.status, load.record.rows_loaded = f"already_{stored[key]}", 0
                continue
            stored[key] = load.record.status  # the same run twice in one group goes in once
            fresh.append(load)
        if fresh:
            _write(connection, fresh)


def _write(connection, loads: list[PendingLoad]) -> None:
    _insert_landing_documents(connection, [load.run for load in loads])
    for table in dict.fromkeys(load.table for load in loads):
        frames = [load.checked.accepted for load in loads if load.table == table and load.checked is not None
                  and load.checked.passed and load.checked.accepted.height]
        if frames:
            accepted = pl.concat(frames, how="diagonal_relaxed").to_arrow()  # noqa: F841 (read by DuckDB by name)
            connection.execute(f"INSERT INTO {table} BY NAME SELECT * FROM accepted")
    now = datetime.now(UTC)
    quarantine = [row for load in loads if load.checked is not None
                  for row in _quarantine_rows(load.record, load.checked, now)]
    if quarantine:
        quarantined = pa.Table.from_pylist(quarantine)  # noqa: F841 (read by DuckDB by name)
        connection.execute("INSERT INTO raw.quarantine BY NAME SELECT * FROM quarantined")
    insert_ingest_records(connection, [load.record for load in loads])


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
    insert_ingest_records(connection, records)


def _quarantine_rows(record: IngestRecord, integrity: IntegrityResult, now: datetime) -> list[dict]:
    """The raw.quarantine rows of a run: its result's reasons, then each rejected row with its reason."""
    held = {"run_id": record.run_id, "parser_version": record.parser_version, "source": record.source,
            "observed_at": record.observed_at, "quarantined_at": now}
    rows = [{**held, "scope": "result", "reason": reason, "detail": None} for reason in integrity.result_reasons]
    detail_columns = [c for c in ("offer_id", "raw_gpu_name", "gpu_id", "pricing_type", "price", "currency",
                                  "price_per_unit", "region", "model_slug", "usd_per_million_input_tokens",
                                  "usd_per_million_output_tokens", "landing_ref") if c in integrity.rejected.columns]
    for offer in integrity.rejected.select([*detail_columns, "reason"]).iter_rows(named=True):
        reason = offer.pop("reason")
        rows.append({**held, "scope": "row", "reason": reason, "detail": json.dumps(offer, default=str)})
    return rows


def record_without_landing(connection: duckdb.DuckDBPyConnection, record: IngestRecord,
                           one_per_observation: bool = False) -> IngestRecord:
    """A run that never produced documents (fetch failed, blocked, skipped): only its ingest_runs row.
    `one_per_observation`: when the source holds a run of the same observation started since this one's start (the
    same run's: its load committed, then its task was interrupted), that run's record is returned and nothing is
    written (a failure is no second outcome of an observation that loaded). An earlier run of the observation (a
    replayed day run again) does not count: this run's failure is its own outcome."""
    with transaction(connection):
        if one_per_observation:
            stored = _stored_outcome(connection, record.source, record.observed_at, record.started_at)
            if stored is not None:
                return stored
        if already_ingested(connection, record.run_id, record.parser_version) is None:
            insert_ingest_records(connection, [record])
    return record


def _stored_outcome(connection, source: str, observed_at: datetime, since: datetime) -> IngestRecord | None:
    """The newest stored run of this source and observation started at `since` or later (by commit order)."""
    fields = [name for name in IngestRecord.__dataclass_fields__ if name != "stage_seconds"]  # not stored
    found = connection.execute(
        f"SELECT {', '.join(fields)} FROM raw.ingest_runs WHERE source = ? AND observed_at = ? AND started_at >= ? "
        "ORDER BY commit_seq DESC NULLS LAST, finished_at DESC LIMIT 1", [source, observed_at, since]).fetchone()
    return IngestRecord(**dict(zip(fields, found, strict=True))) if found else None
