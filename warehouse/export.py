"""The marts as Parquet, partitioned by date, that any engine reads: <home>/export/<mart>/price_date=YYYY-MM-DD/
(gpu_quotes by the day of the quote: quote_date=YYYY-MM-DD/)."""

from __future__ import annotations

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from warehouse import db
from warehouse.paths import export_root

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
    resolves the link once and reads one complete version. The previous version is kept (a reader that opened it
    before the switch can finish); older ones are deleted.

    A partition holding the same rows as in the previous version (same columns, same count and sum of row hashes) is
    hard-linked from it, not written again: a daily run writes the days its build changed, not years of history."""
    root = export_root()
    versions = root / ".versions"
    versions.mkdir(parents=True, exist_ok=True)
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}-{os.getpid()}"

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
        for previous_folder in kept.values():
            _link_folder(previous_folder, version / previous_folder.name)
        _manifest_path(version).write_text(json.dumps(manifest))
        if link.is_dir() and not link.is_symlink():  # an export made before versions: replaced once
            shutil.rmtree(link)
        new_link = root / f".{mart}.link-{os.getpid()}"
        new_link.unlink(missing_ok=True)
        new_link.symlink_to(version.relative_to(root))  # relative: the export folder can be moved or synced
        os.replace(new_link, link)
        for old in sorted(versions.glob(f"{mart}-*"))[:-2]:
            shutil.rmtree(old, ignore_errors=True)
            _manifest_path(old).unlink(missing_ok=True)
        return link

    # Same (read-write) configuration as the dbt-duckdb connection that may still be open in this process. The cost
    # is one small file per mart and day (~14,000 files after the offline run): two marts at once, each on one
    # DuckDB thread, took 9.1 s against 14.4 s one after the other (15.5 s one at a time on two threads).
    with db.connect() as connection, db.one_thread(connection), ThreadPoolExecutor(EXPORT_WORKERS) as pool:

        def export_on_own_cursor(mart: str) -> Path:
            with connection.cursor() as cursor:  # a cursor per thread: DuckDB's connection is not shared
                return export(cursor, mart)

        return list(pool.map(export_on_own_cursor, EXPORTED_MARTS))


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
    if not link.is_symlink():
        return None
    folder = link.resolve()
    try:
        return folder, json.loads(_manifest_path(folder).read_text())
    except (OSError, ValueError):  # no manifest (an export before manifests) or a damaged one: write it all
        return None


def _unchanged_partitions(manifest: dict, previous: tuple[Path, dict] | None, column: str) -> dict[str, Path]:
    """The partition values whose rows the previous version holds already, with its folder for each."""
    if previous is None:
        return {}
    folder, before = previous
    if (before.get("duckdb"), before.get("columns")) != (manifest["duckdb"], manifest["columns"]):
        return {}
    kept = {}
    for value, digest in manifest["partitions"].items():
        source = folder / f"{column}={value}"
        if value and before["partitions"].get(value) == digest and source.is_dir():
            kept[value] = source
    return kept


def _link_folder(source: Path, target: Path) -> None:
    target.mkdir()
    for file in source.iterdir():
        try:
            os.link(file, target / file.name)
        except OSError:  # a file system without hard links
            shutil.copy2(file, target / file.name)
