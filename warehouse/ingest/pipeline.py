"""The one ingest pipeline: fetch -> land -> parse -> normalize -> check -> load.

Every source goes through the same steps whatever it returns: a record kind (RECORD_KINDS, chosen by
Source.records) says how its records are normalized, checked and which raw table they load into: offers into
raw.offers, exchange rates into raw.fx_rates, per-token API prices into raw.api_token_prices, spot interruption bands
into raw.spot_interruption_bands. The Prefect flows and the CLI call these functions; no step lives only in one of
them.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl

from scrapers.base import Expectations, Source
from scrapers.errors import BlockedError, ParseError, SourceError
from scrapers.http import HttpClient, RawDocument
from warehouse.ingest.integrity import (
    IntegrityResult,
    check,
    check_rates,
    check_spot_interruptions,
    check_token_prices,
)
from warehouse.ingest.load import (
    IngestRecord,
    PendingLoad,
    already_ingested,
    load_runs,
    record_without_landing,
)
from warehouse.ingest.normalize import (
    normalize,
    normalize_rates,
    normalize_spot_interruptions,
    normalize_token_prices,
)
from warehouse.ingest.report import timed
from warehouse.store import db
from warehouse.store.landing import LandedRun, iter_landed_runs, land, read_landed
from warehouse.store.progress import progress, utc_now


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
    "spot_interruptions": RecordKind("raw.spot_interruption_bands", normalize_spot_interruptions,
                                     check_spot_interruptions),
}


# -- fetch + land ----------------------------------------------------------------------------------------------------
async def fetch_and_land(
    source: Source, client: HttpClient, observed_at: datetime, data_origin: str = "captured"
) -> LandedRun:
    """Fetch every raw document of a source and land them on disk. Raises a SourceError on failure."""
    source.require_key()
    source.require_watch_list()
    documents = await source.fetch(client)
    # on a worker thread: hashing, compressing and writing the bodies would hold up the event loop, and with it every
    # other source's fetch
    return await asyncio.to_thread(land, source.id, observed_at, documents, data_origin)


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
    kind = RECORD_KINDS[source.records]
    checked = None
    try:
        repeated = None
        if _repeats is not None:
            with timed(record.stage_seconds, "repeat"):
                repeated = _repeated(source, run)
        if repeated is not None:  # the very documents of this source's previous run: its result, made this run's
            record.rows_parsed, checked = repeated
        else:
            with timed(record.stage_seconds, "parse"):
                records = source.parse(run.documents)
            with timed(record.stage_seconds, "normalize"):
                frame = kind.normalize(records, run, source.parser_version)
            record.rows_parsed = frame.height
            with timed(record.stage_seconds, "check"):
                checked = kind.check(frame, source.expectations)
            _remember(source, run, frame.height, checked)
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
    with timed(record.stage_seconds, "load"):
        record.finished_at = started_at + timedelta(seconds=time.monotonic() - clock)
        return _load_together(PendingLoad(run, record, checked, kind.table))


# -- group loads -----------------------------------------------------------------------------------------------------
# Source-runs load one writer at a time (warehouse/store/db.py). Those that queue while another loads go in together when
# the writer is free: one transaction and one statement per table for the group (load_runs) instead of ~4 statements
# and a commit each. A group that fails is loaded again one run at a time, so one bad run fails alone.
@dataclass(eq=False)  # found in the queue by identity (its frames do not compare)
class _Waiting:
    load: PendingLoad
    done: bool = False
    error: Exception | None = None


_waiting: list[_Waiting] = []
_waiting_lock = threading.Lock()


def _load_together(load: PendingLoad) -> IngestRecord:
    entry = _Waiting(load)
    with _waiting_lock:
        _waiting.append(entry)
    try:
        with db.connect() as connection:  # the writer; whoever had it before may have loaded this run already
            with _waiting_lock:
                group = list(_waiting)
                _waiting.clear()
            if group:
                _load_group(connection, group)
    except BaseException:
        with _waiting_lock:  # the warehouse could not be opened: this run fails here, and no later group loads it
            if entry in _waiting:
                _waiting.remove(entry)
        raise
    if entry.error is not None:
        raise entry.error
    if not entry.done:  # cannot happen: the entry was queued before the writer was asked for
        raise RuntimeError(f"{load.record.run_id}: its group's load did not finish")
    return load.record


def _load_group(connection, group: list[_Waiting]) -> None:
    try:
        load_runs(connection, [entry.load for entry in group])
    except Exception as error:
        if len(group) == 1:
            group[0].error, group[0].done = error, True
            return
        for entry in group:  # one at a time: the run that failed the group fails alone
            _load_group(connection, [entry])
        return
    for entry in group:
        entry.done = True


# -- repeated documents ----------------------------------------------------------------------------------------------
# The offline replay serves most sources the very same recorded bytes day after day. Parsing is pure (the same
# documents always give the same records), and so are normalizing and checking them but for the run's own columns.
# Inside `repeated_documents()`, a source-run whose documents (bytes, URLs, statuses, content types, landed file
# names), parser version, settings and data origin equal those of its source's previous run in this process takes
# that run's normalized and checked frames with its own run id, observation time and landing references instead of
# parsing, normalizing and checking the same bytes again (its stage seconds say `repeat`).
_repeats: dict[str, tuple[tuple, LandedRun, int, IntegrityResult]] | None = None  # source id -> its last
_repeats_lock = threading.Lock()


@contextlib.contextmanager
def repeated_documents() -> Iterator[None]:
    """For the block (the offline replay): a source-run with its source's previous documents reuses that run's parse,
    normalization and check (see above). One result per source is kept, and dropped when the block ends."""
    global _repeats
    with _repeats_lock:
        _repeats = {}
    try:
        yield
    finally:
        with _repeats_lock:
            _repeats = None


def _documents_key(source: Source, run: LandedRun) -> tuple | None:
    if any(document.spool is not None for document in run.documents):  # a very large body is not kept
        return None
    return (type(source).__qualname__, source.parser_version, source.records, repr(sorted(vars(source).items())),
            repr(source.expectations), run.data_origin, tuple(run.document_files),
            tuple((d.url, d.status, d.content_type, d.sha256()) for d in run.documents))


def _remember(source: Source, run: LandedRun, rows_parsed: int, checked: IntegrityResult) -> None:
    if _repeats is None:
        return
    key = _documents_key(source, run)
    with _repeats_lock:
        if _repeats is not None and key is not None:
            _repeats[source.id] = (key, run, rows_parsed, checked)


def _repeated(source: Source, run: LandedRun) -> tuple[int, IntegrityResult] | None:
    """The rows parsed and the checked frames of this source's previous run, as this run's, when its documents are
    the same; else None."""
    if _repeats is None or source.id not in _repeats:
        return None
    key, earlier, rows_parsed, checked = _repeats[source.id]
    if key != _documents_key(source, run):
        return None
    old_prefix, new_prefix = f"{earlier.relative_path}/", f"{run.relative_path}/"

    def this_runs(part: pl.DataFrame) -> pl.DataFrame:
        if part.is_empty():
            return part
        columns = []
        if "run_id" in part.columns:
            columns.append(pl.lit(run.run_id, pl.String).alias("run_id"))
        if "observed_at" in part.columns:
            columns.append(pl.lit(run.observed_at, part.schema["observed_at"]).alias("observed_at"))
        if "landing_ref" in part.columns:  # <landed run>/<file>: the same files, in this run's folder
            columns.append((pl.lit(new_prefix) + pl.col("landing_ref").str.strip_prefix(old_prefix))
                           .alias("landing_ref"))
        return part.with_columns(columns) if columns else part

    return rows_parsed, IntegrityResult(this_runs(checked.accepted), this_runs(checked.rejected),
                                        list(checked.result_reasons))


def parse_file(source: Source, path: Path) -> pl.DataFrame:
    """What a saved page or payload yields through the source's parser and normalization (`gpuprices parse`)."""
    fetched_at = utc_now()
    document = RawDocument(url=path.as_uri(), status=200, body=path.read_bytes(), fetched_at=fetched_at)
    run = LandedRun(
        source=source.id, run_id="adhoc", observed_at=fetched_at, data_origin="captured",
        directory=path.parent, documents=[document], document_files=[path.name],
    )
    kind = RECORD_KINDS[source.records]
    return kind.normalize(source.parse([document]), run, source.parser_version)


def record_failure(
    source_id: str, parser_version: int, observed_at: datetime, error: BaseException, started_at: datetime, trigger: str
) -> IngestRecord:
    """A source that produced no documents: recorded in raw.ingest_runs with its reason; nothing else changes. One
    outcome per source and observation: when a run of this source and observation is stored already (its load
    committed, and then its task was interrupted: a signal, a crash after the load), that stored run is returned and
    no failure is added beside it."""
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
        return record_without_landing(connection, record, one_per_observation=True)


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
