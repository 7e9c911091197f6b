"""The one ingest pipeline: fetch -> land -> parse -> normalize -> check -> load.

Every source goes through the same steps whatever it returns: a record kind (RECORD_KINDS, chosen by
Source.kind) says how its records are normalized, checked and which raw table they load into: offers into
raw.offers, exchange rates into raw.fx_rates, per-token API prices into raw.api_token_prices. The Prefect flows and the CLI call these functions; no step lives only
in one of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl

from scrapers.base import Expectations, Source
from scrapers.errors import BlockedError, ParseError, SourceError
from scrapers.http import HttpClient, RawDocument
from warehouse import db
from warehouse.integrity import IntegrityResult, check, check_rates, check_token_prices
from warehouse.landing import LandedRun, iter_landed_runs, land, read_landed
from warehouse.load import (
    IngestRecord,
    already_ingested,
    load_run,
    record_without_landing,
)
from warehouse.normalize import normalize, normalize_rates, normalize_token_prices
from warehouse.report import progress, timed, utc_now


@dataclass(frozen=True)
class RecordKind:
    """How one kind of parsed record travels: normalized into a frame, checked, loaded into `table`."""

    table: str
    normalize: Callable[[list, LandedRun, int], pl.DataFrame]
    check: Callable[[pl.DataFrame, Expectations], IntegrityResult]


RECORD_KINDS = {
    "offers": RecordKind("raw.offers", normalize, check),
    "fx_rates": RecordKind("raw.fx_rates", normalize_rates, check_rates),
    "token_prices": RecordKind("raw.api_token_prices", normalize_token_prices, check_token_prices),
}


# -- fetch + land ----------------------------------------------------------------------------------------------------
async def fetch_and_land(
    source: Source, client: HttpClient, observed_at: datetime, data_origin: str = "captured"
) -> LandedRun:
    """Fetch every raw document of a source and land them on disk. Raises a SourceError on failure."""
    source.require_key()
    source.require_watch_list()
    documents = await source.fetch(client)
    return land(source.id, observed_at, documents, data_origin)


# -- parse, normalize, check, load -----------------------------------------------------------------------------------
def ingest(source: Source, run: LandedRun, trigger: str, started_at: datetime | None = None) -> IngestRecord:
    """Parse a landed run with the source's current parser, normalize and check the result, load it (one
    transaction). A parse error, a captcha page or a failed check is recorded, never raised."""
    try:
        return _ingest(source, run, trigger, started_at)
    finally:
        run.discard_spools()  # very large bodies wait in spool files until parsed; the landed copy stays


def _ingest(source: Source, run: LandedRun, trigger: str, started_at: datetime | None) -> IngestRecord:
    started_at = started_at or utc_now()
    clock = time.monotonic()
    record = IngestRecord(
        run_id=run.run_id,
        parser_version=source.parser_version,
        source=source.id,
        status="loaded",
        observed_at=run.observed_at,
        started_at=started_at,
        finished_at=started_at,
        documents_fetched=len(run.documents),
        bytes_fetched=run.bytes_fetched,
        landing_path=run.relative_path,
        is_synthetic=run.is_synthetic,
        trigger=trigger,
        data_origin=run.data_origin,
    )
    with db.connect() as connection:
        previous = already_ingested(connection, run.run_id, source.parser_version)
    if previous is not None:  # the same observation, same parser: nothing to parse or load
        record.status, record.finished_at = f"already_{previous}", utc_now()
        return record
    kind = RECORD_KINDS[source.kind]
    checked = None
    try:
        with timed(record.stage_seconds, "parse"):
            records = source.parse(run.documents)
        with timed(record.stage_seconds, "normalize"):
            frame = kind.normalize(records, run, source.parser_version)
        record.rows_parsed = frame.height
        with timed(record.stage_seconds, "check"):
            checked = kind.check(frame, source.expectations)
        record.rows_rejected = checked.rejected.height
        if checked.passed:
            record.rows_loaded = checked.accepted.height
        else:
            record.status = "quarantined"
            record.error = "; ".join(checked.result_reasons)
    except (ParseError, BlockedError) as error:  # a changed layout, a truncated body, a captcha page: kept, not loaded
        record.status, record.error = error.status, str(error)
    except Exception as error:  # noqa: BLE001 - a parser tripping on a shape it never saw is a parse error too
        record.status, record.error = "parse_error", f"{type(error).__name__}: {error}"
    with timed(record.stage_seconds, "load"), db.connect() as connection:
        record.finished_at = started_at + timedelta(seconds=time.monotonic() - clock)
        return load_run(connection, run, record, checked, kind.table)


def parse_file(source: Source, path: Path) -> pl.DataFrame:
    """What a saved page or payload yields through the source's parser and normalization (`gpuprices parse`)."""
    fetched_at = utc_now()
    document = RawDocument(url=path.as_uri(), status=200, body=path.read_bytes(), fetched_at=fetched_at)
    run = LandedRun(
        source=source.id, run_id="adhoc", observed_at=fetched_at, data_origin="captured",
        directory=path.parent, documents=[document], document_files=[path.name],
    )
    kind = RECORD_KINDS[source.kind]
    return kind.normalize(source.parse([document]), run, source.parser_version)


def record_failure(
    source_id: str, parser_version: int, observed_at: datetime, error: BaseException, started_at: datetime, trigger: str
) -> IngestRecord:
    """A source that produced no documents: recorded in raw.ingest_runs with its reason; nothing else changes."""
    status = error.status if isinstance(error, SourceError) else "failed"
    record = IngestRecord(
        run_id=f"{source_id}-{observed_at:%Y%m%dT%H%M%SZ}-{status}",
        parser_version=parser_version,
        source=source_id,
        status=status,
        observed_at=observed_at,
        started_at=started_at,
        finished_at=max(utc_now(), started_at),
        error=f"{type(error).__name__}: {error}",
        trigger=trigger,
    )
    with db.connect() as connection:
        return record_without_landing(connection, record)


def records_observed_at(observed_at: datetime) -> list[IngestRecord]:
    """The ingest records of one observation time (what shards of a distributed run wrote)."""
    fields = [name for name in IngestRecord.__dataclass_fields__ if name != "stage_seconds"]  # not stored
    with db.connect() as connection:
        rows = db.fetch_dicts(
            connection, f"SELECT {', '.join(fields)} FROM raw.ingest_runs WHERE observed_at = ? ORDER BY source",
            [observed_at])
    return [IngestRecord(**row) for row in rows]


def ingest_landed_runs(
    sources: dict[str, Source], source_id: str | None = None, since: date | None = None, trigger: str = "reparse"
) -> list[IngestRecord]:
    """(Re)parse landed runs that the current parser version has not ingested yet. This is both `load` (after
    `fetch`) and `reparse` (after a parser fix bumps its parser_version): old rows stay, new rows are added."""
    records = []
    run_dirs = list(iter_landed_runs(source_id, since))
    with db.connect() as connection:
        pending = []
        for run_dir in run_dirs:
            source = sources.get(run_dir.parent.parent.name)
            if source and already_ingested(connection, run_dir.name, source.parser_version) is None:
                pending.append((source, run_dir))
    for number, (source, run_dir) in enumerate(pending, start=1):
        progress(f"ingest {number}/{len(pending)}: {source.id} {run_dir.name}")
        records.append(ingest(source, read_landed(run_dir), trigger))
    return records


async def fetch_only(sources: list[Source], client: HttpClient) -> list[tuple[str, LandedRun | SourceError]]:
    """`gpuprices fetch`: fetch and land each source (no parse, no load); a failure is returned, not raised."""
    observed_at = utc_now()
    results = []
    for source in sources:
        try:
            results.append((source.id, await fetch_and_land(source, client, observed_at)))
        except SourceError as error:
            results.append((source.id, error))
    return results
