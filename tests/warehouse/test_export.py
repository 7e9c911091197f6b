"""The Parquet export (warehouse/export.py): a new version per export behind the mart's link, and a partition whose
rows did not change is hard-linked from the previous version instead of written again."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest

from warehouse import db, export

MART = "gpu_prices_daily"


@pytest.fixture
def one_mart(home, monkeypatch) -> Path:
    """A warehouse with one exported mart of three days (the other marts are left out of the export)."""
    monkeypatch.setattr(export, "EXPORTED_MARTS", (MART,))
    with db.connect() as connection:
        connection.execute("CREATE SCHEMA IF NOT EXISTS marts")
        connection.execute(f"CREATE TABLE marts.{MART} AS SELECT DATE '2026-04-01' + i::INTEGER AS price_date, "
                           "'h100-sxm' AS gpu_id, (2 + i)::DECIMAL(12, 4) AS price_per_gpu_hour_usd FROM range(3) t(i)")
    return home


def change(sql: str) -> None:
    with db.connect() as connection:
        connection.execute(sql)


def files(home: Path) -> dict[str, set[int]]:
    """Each partition folder of the mart's current version, with the inodes of its files."""
    folder = home / "export" / MART
    return {partition.name: {os.stat(file).st_ino for file in partition.iterdir()} for partition in folder.iterdir()}


def exported_rows(home: Path) -> list[tuple]:
    with duckdb.connect() as connection:
        return connection.execute(
            f"SELECT * EXCLUDE (price_date), price_date FROM read_parquet('{home}/export/{MART}/*/*.parquet', "
            "hive_partitioning = true) ORDER BY ALL").fetchall()


def mart_rows() -> list[tuple]:
    with db.connect(read_only=True) as connection:
        return connection.execute(
            f"SELECT * EXCLUDE (price_date), price_date FROM marts.{MART} ORDER BY ALL").fetchall()


def test_an_unchanged_day_is_linked_a_changed_or_new_one_written_and_a_gone_one_left_out(one_mart):
    export.export_marts()
    first = files(one_mart)
    assert set(first) == {"price_date=2026-04-01", "price_date=2026-04-02", "price_date=2026-04-03"}
    change(f"UPDATE marts.{MART} SET price_per_gpu_hour_usd = 2.5 WHERE price_date = DATE '2026-04-02'")
    change(f"DELETE FROM marts.{MART} WHERE price_date = DATE '2026-04-03'")
    change(f"INSERT INTO marts.{MART} VALUES (DATE '2026-04-04', 'h100-sxm', 2.75)")
    export.export_marts()
    second = files(one_mart)
    assert set(second) == {"price_date=2026-04-01", "price_date=2026-04-02", "price_date=2026-04-04"}
    assert second["price_date=2026-04-01"] == first["price_date=2026-04-01"]  # the same file, linked
    assert second["price_date=2026-04-02"].isdisjoint(first["price_date=2026-04-02"])  # written again
    assert exported_rows(one_mart) == mart_rows()


def test_a_third_export_keeps_two_versions_and_linked_files_outlive_the_one_that_wrote_them(one_mart):
    for _ in range(3):
        export.export_marts()
    versions = one_mart / "export" / ".versions"
    assert len([v for v in versions.iterdir() if v.is_dir()]) == 2
    assert len(list(versions.glob(".*.json"))) == 2  # one manifest per kept version
    assert exported_rows(one_mart) == mart_rows()


def test_a_new_column_or_a_damaged_manifest_writes_every_day_again(one_mart):
    export.export_marts()
    first = files(one_mart)
    change(f"ALTER TABLE marts.{MART} ADD COLUMN memory_gib INTEGER DEFAULT 80")
    export.export_marts()
    second = files(one_mart)
    assert all(second[day].isdisjoint(first[day]) for day in first)
    assert exported_rows(one_mart) == mart_rows() and len(exported_rows(one_mart)[0]) == 4
    current = (one_mart / "export" / MART).resolve()
    (current.parent / f".{current.name}.json").write_text("{not json")
    export.export_marts()
    assert all(files(one_mart)[day].isdisjoint(second[day]) for day in second)
    assert exported_rows(one_mart) == mart_rows()
