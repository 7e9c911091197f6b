"""DuckDB connections to the warehouse file, and the snapshot readers fall back to while a run writes.

DuckDB lets one process write a database file, and no other process open it meanwhile, not even to read. So:
  * a writer (a run, a build, a load) waits up to GPUPRICES_LOCK_WAIT_S for readers' short sessions to end;
  * a reader (`gpuprices sql`, `status`, `estimate`, the dashboard build) that finds the file held by a writer reads
    the snapshot instead: a copy of the whole warehouse published at the end of every run and build
    (<home>/snapshot/gpuprices.duckdb, swapped in by rename, so a reader sees the last complete state, never half
    of a new one). It says so on stderr, with the snapshot's time.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from config import settings
from warehouse.store.paths import database_path, database_target, is_hosted, snapshot_path
from warehouse.store.schema import create_raw_schema


class WarehouseBusy(duckdb.IOException):
    """A writer waited GPUPRICES_LOCK_WAIT_S and another process still holds the warehouse file (one line, exit 1)."""


class WarehouseUnreadable(duckdb.IOException):
    """The warehouse file is not a whole DuckDB database (truncated by a full disk or a copy cut short, or another
    file under its name): one line, exit 1 (flows/cli/main.py), never a traceback."""


# What DuckDB says of a file that is cut short or not a database (at open, or at a query that reads a lost block)
_DAMAGED = ("could not read enough bytes", "not a valid duckdb database file")


def is_damaged_file_error(error: BaseException) -> bool:
    return isinstance(error, duckdb.IOException) and any(text in str(error).lower() for text in _DAMAGED)


def unreadable(path: Path, error: BaseException) -> WarehouseUnreadable:
    detail = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    snapshot = snapshot_path(path)
    restore = f"a backup, or the last snapshot {snapshot} (copy it over the file)" if snapshot.exists() else "a backup"
    return WarehouseUnreadable(f"the warehouse file {path} cannot be read: it is damaged or cut short ({detail}); "
                               f"restore it from {restore}")


def _is_lock_conflict(error: Exception) -> bool:
    return isinstance(error, duckdb.IOException) and "lock" in str(error).lower()


def open_for_reading(path: Path | None = None) -> duckdb.DuckDBPyConnection:
    """The live warehouse read-only, or, while a writer holds it, the last published snapshot."""
    if path is None and is_hosted():  # MotherDuck: no file lock to work around
        return duckdb.connect(database_target(), read_only=True)
    path = path or database_path()
    if not path.exists():
        raise FileNotFoundError(f"no warehouse at {path}: run `gpuprices run --offline` (or `gpuprices run`) first")
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.IOException as error:
        if is_damaged_file_error(error):
            raise unreadable(path, error) from None
        snapshot = snapshot_path(path)
        if not _is_lock_conflict(error) or not snapshot.exists():
            raise
        published = datetime.fromtimestamp(snapshot.stat().st_mtime, UTC)
        print(f"note: a run is writing the warehouse; reading the snapshot published {published:%Y-%m-%d %H:%M:%S} "
              "UTC", file=sys.stderr)
        return duckdb.connect(str(snapshot), read_only=True)


def open_for_writing(path: Path | None = None) -> duckdb.DuckDBPyConnection:
    """The live warehouse read-write, waiting (config/settings.py lock_wait_s, default 120 s) while readers hold it."""
    if path is None and is_hosted():
        return duckdb.connect(database_target())
    path = path or database_path()
    wait_s = settings.lock_wait_s()
    deadline = time.monotonic() + wait_s
    pause = 0.05
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException as error:
            if is_damaged_file_error(error):
                raise unreadable(path, error) from None
            if not _is_lock_conflict(error):
                raise
            if time.monotonic() > deadline:
                holder = re.search(r"\(PID (\d+)\)", str(error))
                raise WarehouseBusy(
                    f"the warehouse {path} is still held by another process"
                    f"{f' (PID {holder.group(1)})' if holder else ''} after waiting {wait_s:g} s "
                    "(GPUPRICES_LOCK_WAIT_S): a run, build or load is writing it; try again when it ends") from None
            time.sleep(pause)
            pause = min(pause * 2, 2.0)


_SCHEMA_READY: set[tuple[str, int]] = set()  # (file, inode) this process has created the raw schema in


_held: dict[str, duckdb.DuckDBPyConnection] = {}  # database target -> the connection a writer session holds
# One writer at a time in this process: the flows ingest on worker threads, and DuckDB has one writer per file anyway.
_write_lock = threading.RLock()


def _open_writer() -> duckdb.DuckDBPyConnection:
    connection = open_for_writing()
    try:
        # once per process and file: a run opens the warehouse a few times per source
        key = (database_target(), 0 if is_hosted() else database_path().stat().st_ino)
        if key not in _SCHEMA_READY:
            create_raw_schema(connection)
            _SCHEMA_READY.add(key)
    except BaseException:
        connection.close()
        raise
    return connection


@contextlib.contextmanager
def writer_session(single_thread: bool = False) -> Iterator[None]:
    """Hold one read-write connection for the block: every `connect()` inside it reuses that connection, so many
    small loads cost one open and one checkpoint instead of one each. For a single process that owns the warehouse
    for the block (the offline replay of a day); other processes' writers wait meanwhile, readers read the snapshot.
    `single_thread`: DuckDB on one thread for the block (one_thread), for many small statements: a one-row insert
    took 3 ms on one thread against 7 ms on two, where starting the thread pool's tasks costs more than it saves."""
    target = database_target()
    if target in _held:
        yield
        return
    with _write_lock:
        _held[target] = _open_writer()
    try:
        with one_thread(_held[target]) if single_thread else contextlib.nullcontext():
            yield
    finally:
        with _write_lock:
            _held.pop(target).close()


@contextlib.contextmanager
def connect(read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection for one block of work: read-only (the snapshot while a run writes), or read-write (the
    process's writers take turns; inside a writer_session, its connection)."""
    if read_only:
        connection = open_for_reading()
        try:
            yield connection
        finally:
            connection.close()
        return
    with _write_lock:
        held = _held.get(database_target())
        if held is not None:
            yield held
            return
        connection = _open_writer()
        try:
            yield connection
        finally:
            connection.close()


# A write's DuckDB memory bound, for a small warehouse. A DuckDB allowed 80% of RAM keeps what a write works with
# and every block it writes cached until the end: a 300,000-offer import held ~250 MB for its insert, and a small
# warehouse's build several times what it needs (300,000 offers: ~370 MB; the 30-day bench's 505,000: ~800 MB),
# when those builds run in 128-160 MB no slower (`gpuprices bench import`, docs/operations.md#benchmarks). A large
# warehouse keeps DuckDB's default: under a bound of 512 B an offer, the 3-year bench's full rebuild (18M offers)
# took 208.5 s instead of 171.5 (int_offers__daily writes 17.8M rows: 88 s instead of 59).
MEMORY_BOUND_FLOOR_MB = 192
MEMORY_BOUND_PER_OFFER_BYTES = 512
MEMORY_BOUND_UP_TO_OFFERS = 2_000_000  # ~1 GB of bound; past it, the cache is worth more than the footprint


def memory_bound_mb(offers: int) -> int | None:
    """The bound for a warehouse of `offers` offers, or None (DuckDB's own limit) past MEMORY_BOUND_UP_TO_OFFERS."""
    if offers > MEMORY_BOUND_UP_TO_OFFERS:
        return None
    return max(MEMORY_BOUND_FLOOR_MB, offers * MEMORY_BOUND_PER_OFFER_BYTES // 2**20)


@contextlib.contextmanager
def memory_bound(connection: duckdb.DuckDBPyConnection, new_offers: int = 0) -> Iterator[Callable[[], None]]:
    """DuckDB's memory limit at memory_bound_mb(the warehouse's offers + `new_offers`, those the block adds) while
    the block runs, for every connection to this database (dbt's too: the setting is the instance's), and DuckDB's
    own limit again after. Only around one writer's work: the bound holds for all of the instance. Yields a function
    that lifts the bound early."""
    offers = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0]
    bound = memory_bound_mb(offers + new_offers)
    default = connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]

    def lift() -> None:
        # by value (RESET alone did not reach dbt's open connections), then RESET for the exact figure (the value
        # reads rounded: 18.8 GiB)
        connection.execute(f"SET memory_limit = '{default}'")
        connection.execute("RESET memory_limit")

    if bound is None:
        yield lambda: None
        return
    connection.execute(f"SET memory_limit = '{bound}MB'")
    try:
        yield lift
    finally:
        lift()


@contextlib.contextmanager
def one_thread(connection: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB on one thread while the block runs, its own setting again after; around a transaction, not inside it
    (in a transaction a failed statement aborts, DuckDB then refuses the SET that would put the setting back). For a
    long import's insert: two threads appended each slice as two row groups in the making, ~60 MB more at the
    import's peak (300,000 rows), and were slower (1.3 s against 1.5 s)."""
    threads = connection.execute("SELECT current_setting('threads')").fetchone()[0]
    connection.execute("SET threads = 1")
    try:
        yield
    finally:
        connection.execute(f"SET threads = {int(threads)}")


def publish_snapshot() -> Path | None:
    """Copy the warehouse, checkpointed (every committed row in the main file, none only in the WAL), to
    <home>/snapshot/ under a temporary name and rename it into place. Called by the writing process at the end of
    a run or a build, while it is the only writer."""
    if is_hosted():  # a hosted warehouse serves readers itself
        return None
    source, target = database_path(), snapshot_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with connect() as connection:
        connection.execute("CHECKPOINT")
        shutil.copyfile(source, temporary)
    os.replace(temporary, target)
    return target


def sql_literal(value: str) -> str:
    """A SQL string literal (quotes doubled), for values of our own (run ids, partition days) where a bound parameter
    cannot go (COPY) or costs more than the statement (DuckDB's client looks for pandas on every bound parameter)."""
    return "'" + value.replace("'", "''") + "'"


def fetch_dicts(connection: duckdb.DuckDBPyConnection, sql: str, parameters=None) -> list[dict]:
    """Run a query and return its rows as dicts keyed by column name."""
    cursor = connection.execute(sql, parameters) if parameters is not None else connection.execute(sql)
    columns = [column[0] for column in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
