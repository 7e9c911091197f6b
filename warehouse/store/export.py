"""The marts as Parquet, partitioned by date, that any engine reads: <home>/export/<mart>/price_date=YYYY-MM-DD/
(gpu_quotes by the day of the quote: quote_date=YYYY-MM-DD/)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from config import settings
from warehouse.store import db
from warehouse.store.paths import export_root

EXPORTED_MARTS = (
    "gpu_market_prices_daily", "gpu_prices_daily", "gpu_prices_by_source_daily", "price_performance_daily",
    "training_cost_daily",
    "inference_cost_daily", "inference_api_prices_daily", "rent_vs_buy_daily", "buy_signals_daily",
    "gpu_price_index_daily",
    "offers_daily", "gpu_quotes", "gpu_price_relatives_daily", "gpu_price_outlook_daily", "spot_discount_daily",
    "commitment_outcomes",
)
# the date column a mart is partitioned by, where it is not price_date
PARTITION_COLUMNS = {"gpu_quotes": "quote_date", "commitment_outcomes": "commit_date"}
EXPORT_WORKERS = 2  # marts written at once (this machine's cores)


def export_marts() -> list[Path]:
    """Each mart to Parquet partitioned by its date (hive style: price_date=YYYY-MM-DD/), as a new version directory
    (export/.versions/<mart>-<time>/) that the link export/<mart> is then switched to in one rename: a reader
    resolves the link once and reads one complete version.

    A partition holding the same rows as in the previous version (same columns, same count and sum of row hashes) is
    hard-linked from it, not written again: a daily run writes the days its build changed, not years of history. A
    file is linked only after its bytes were checked against the sha256 the previous version's manifest recorded for
    it: a file edited in place (same inode) or missing makes its partition written again, never carried forward.

    Versions are pruned after the switch (prune_versions): never the one the link names, never one younger than the
    readers' grace period (GPUPRICES_EXPORT_GRACE_S; a version's age counts from when it stopped being the current
    one), whatever their names say; a version an export killed mid-way left behind goes once it is that old."""
    root = export_root()
    versions = root / ".versions"
    versions.mkdir(parents=True, exist_ok=True)
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}-{os.getpid()}"
    grace_s = settings.export_grace_s()

    def export(connection: duckdb.DuckDBPyConnection, mart: str) -> Path:
        column = PARTITION_COLUMNS.get(mart, "price_date")
        version = versions / f"{mart}-{stamp}"
        link = root / mart
        manifest = _manifest(connection, mart, column)
        kept = _unchanged_partitions(manifest, _previous_version(link), column)
        if len(kept) < len(manifest["partitions"]):
            rows = f"SELECT * FROM marts.{mart}"
            if kept:
                kept_values = ", ".join(db.sql_literal(value) for value in kept)
                rows += f" WHERE {column} IS NULL OR {column}::VARCHAR NOT IN ({kept_values})"
            connection.execute(f"COPY ({rows}) TO '{version}' (FORMAT PARQUET, PARTITION_BY ({column}))")
        version.mkdir(exist_ok=True)  # an empty mart, or nothing changed
        files = {}
        for previous_folder, hashes in kept.values():
            _link_folder(previous_folder, version / previous_folder.name)
            files |= {f"{previous_folder.name}/{name}": digest for name, digest in hashes.items()}
        written = {f"{folder.name}/{file.name}" for folder in version.iterdir() if folder.is_dir()
                   for file in folder.iterdir()}
        files |= {name: _sha256(version / name) for name in sorted(written - files.keys())}
        manifest["files"] = files
        _manifest_path(version).write_text(json.dumps(manifest))
        if link.is_dir() and not link.is_symlink():  # an export made before versions: replaced once
            shutil.rmtree(link)
        previous = link.resolve() if link.is_symlink() else None
        if previous is not None and previous.is_dir():
            os.utime(previous)  # its readers' grace period starts now, as it stops being the current version
        new_link = root / f".{mart}.link-{os.getpid()}"
        new_link.unlink(missing_ok=True)
        new_link.symlink_to(version.relative_to(root))  # relative: the export folder can be moved or synced
        os.replace(new_link, link)
        prune_versions(versions, mart, link, grace_s)
        return link

    # Same (read-write) configuration as the dbt-duckdb connection that may still be open in this process. The cost
    # is one small file per mart and day (~14,000 files after the offline run): two marts at once, each on one
    # DuckDB thread, took 9.1 s against 14.4 s one after the other (15.5 s one at a time on two threads).
    with db.connect() as connection, db.one_thread(connection), ThreadPoolExecutor(EXPORT_WORKERS) as pool:

        def export_on_own_cursor(mart: str) -> Path:
            with connection.cursor() as cursor:  # a cursor per thread: DuckDB's connection is not shared
                return export(cursor, mart)

        return list(pool.map(export_on_own_cursor, EXPORTED_MARTS))


def prune_versions(versions: Path, mart: str, link: Path, grace_s: float) -> list[Path]:
    """Delete the mart's versions that are not the one `link` names and that no reader can still be in: their folder
    unchanged for grace_s seconds (a version's folder is touched when it stops being the current one; a version an
    export killed mid-way was last changed when it died). Their manifests go with them, and a manifest whose folder
    is gone. Returns the versions deleted."""
    current = link.resolve() if link.is_symlink() else None
    now = time.time()
    deleted = []
    for folder in versions.glob(f"{mart}-*"):
        if not folder.is_dir() or folder == current:
            continue
        try:
            if now - folder.stat().st_mtime < grace_s:
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        _manifest_path(folder).unlink(missing_ok=True)
        deleted.append(folder)
    for manifest in versions.glob(f".{mart}-*.json"):
        if not (versions / manifest.name[1:].removesuffix(".json")).is_dir():
            manifest.unlink(missing_ok=True)
    return deleted


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _manifest(connection: duckdb.DuckDBPyConnection, mart: str, column: str) -> dict:
    """What decides whether a version's partition can be kept: the mart's columns and types, DuckDB's version (its
    hash function) and, per partition value, the row count and the sum of the rows' hashes."""
    columns = connection.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_catalog = current_database() AND table_schema = 'marts' AND table_name = ? "
        "ORDER BY ordinal_position", [mart]).fetchall()
    partitions = connection.execute(
        f"SELECT {column}::VARCHAR, count(*)::VARCHAR || ':' || sum(hash(row_))::VARCHAR "
        f"FROM marts.{mart} AS row_ GROUP BY ALL").fetchall()
    # a day that is NULL is listed as '' and never kept (its folder is not looked up by name)
    return {"duckdb": duckdb.__version__, "columns": [list(c) for c in columns],
            "partitions": {"" if value is None else value: digest for value, digest in partitions}}


def _manifest_path(version: Path) -> Path:
    # beside the version folder, not in it: a reader's glob of the mart's folder finds Parquet files only
    return version.parent / f".{version.name}.json"


def _previous_version(link: Path) -> tuple[Path, dict] | None:
    """The version the link names and its manifest; None when there is none, or its manifest is not one this code
    wrote (an export before manifests or file hashes, a damaged or edited one): then everything is written again."""
    if not link.is_symlink():
        return None
    folder = link.resolve()
    try:
        manifest = json.loads(_manifest_path(folder).read_text())
    except (OSError, ValueError):
        return None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("partitions"), dict)
            and isinstance(manifest.get("files"), dict)):
        return None
    return folder, manifest


def _unchanged_partitions(manifest: dict, previous: tuple[Path, dict] | None,
                          column: str) -> dict[str, tuple[Path, dict[str, str]]]:
    """The partition values whose rows the previous version holds already, each with its folder there and the
    sha256 of its files, checked against that version's manifest: a folder whose files are not exactly the ones the
    manifest lists, byte for byte, is not kept."""
    if previous is None:
        return {}
    folder, before = previous
    if (before.get("duckdb"), before.get("columns")) != (manifest["duckdb"], manifest["columns"]):
        return {}
    kept = {}
    for value, digest in manifest["partitions"].items():
        source = folder / f"{column}={value}"
        if value and before["partitions"].get(value) == digest and source.is_dir():
            hashes = _verified_files(source, before["files"])
            if hashes is not None:
                kept[value] = (source, hashes)
    return kept


def _verified_files(source: Path, recorded: dict) -> dict[str, str] | None:
    """The folder's files with their sha256 when they are exactly the files the manifest records for it, each with
    the hash recorded; None otherwise (a file edited, added or gone)."""
    prefix = f"{source.name}/"
    expected = {name.removeprefix(prefix): digest for name, digest in recorded.items() if name.startswith(prefix)}
    try:
        present = {file.name for file in source.iterdir()}
        if not expected or present != expected.keys():
            return None
        if any(_sha256(source / name) != digest for name, digest in expected.items()):
            return None
    except OSError:
        return None
    return expected


def _link_folder(source: Path, target: Path) -> None:
    target.mkdir()
    for file in source.iterdir():
        try:
            os.link(file, target / file.name)
        except OSError:  # a file system without hard links
            shutil.copy2(file, target / file.name)
