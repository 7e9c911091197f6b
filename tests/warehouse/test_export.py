"""The Parquet export (warehouse/store/export.py): a new version per export behind the mart's link, and a partition whose
rows did not change is hard-linked from the previous version instead of written again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import duckdb
import pytest

from warehouse.store import db, export

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


def version_folders(home: Path) -> list[Path]:
    return sorted(v for v in (home / "export" / ".versions").iterdir() if v.is_dir())


def test_versions_are_kept_for_the_grace_period_and_linked_files_outlive_the_one_that_wrote_them(one_mart,
                                                                                               monkeypatch):
    for _ in range(3):
        export.export_marts()
    assert len(version_folders(one_mart)) == 3  # within the readers' grace period (an hour by default) all stay
    monkeypatch.setenv("GPUPRICES_EXPORT_GRACE_S", "0")
    export.export_marts()
    (only,) = version_folders(one_mart)  # no grace: only the current one, whose files were linked from the first
    assert only == (one_mart / "export" / MART).resolve()
    assert len(list((one_mart / "export" / ".versions").glob(".*.json"))) == 1  # one manifest per kept version
    assert exported_rows(one_mart) == mart_rows()


def test_a_file_edited_in_place_in_the_last_version_is_written_again_not_linked(one_mart):
    export.export_marts()
    (day_file,) = (one_mart / "export" / MART / "price_date=2026-04-02").iterdir()
    inode = os.stat(day_file).st_ino
    with duckdb.connect() as connection:  # the same file, other figures (269.00 for 2.69): same inode, same name
        connection.execute(f"COPY (SELECT 'h100-sxm' AS gpu_id, 300::DECIMAL(12, 4) AS price_per_gpu_hour_usd) "
                           f"TO '{day_file}.tmp' (FORMAT PARQUET)")
    with open(day_file, "r+b") as handle:
        handle.write((day_file.parent / f"{day_file.name}.tmp").read_bytes())
        handle.truncate()
    (day_file.parent / f"{day_file.name}.tmp").unlink()
    assert os.stat(day_file).st_ino == inode
    export.export_marts()
    assert exported_rows(one_mart) == mart_rows()  # the mart's figures, not the edited file's
    assert inode not in files(one_mart)["price_date=2026-04-02"]
    assert files(one_mart)["price_date=2026-04-01"] & set().union(*[{os.stat(f).st_ino} for f in (
        version_folders(one_mart)[0] / "price_date=2026-04-01").iterdir()])  # the untouched day is still linked


def test_an_export_killed_midway_never_costs_the_complete_version_a_reader_has_open(one_mart, monkeypatch):
    export.export_marts()
    complete = (one_mart / "export" / MART).resolve()
    # an export killed mid-way: a newer name, half its partitions, no manifest, the link never switched; an hour ago
    half = complete.with_name(f"{MART}-29991231T000000000000Z-1")
    (half / "price_date=2026-04-01").mkdir(parents=True)
    (half / "price_date=2026-04-01" / "data_0.parquet").write_bytes(b"PAR1 cut")
    hour_ago = time.time() - 3600 - 60
    os.utime(half, (hour_ago, hour_ago))
    os.utime(complete, (hour_ago, hour_ago))  # and the complete one was written an hour ago too
    export.export_marts()
    current = (one_mart / "export" / MART).resolve()
    assert current not in (complete, half) and exported_rows(one_mart) == mart_rows()
    # the complete one a reader may have open stays for its grace period; the half-written one is gone
    assert complete.is_dir() and not half.exists()
    monkeypatch.setenv("GPUPRICES_EXPORT_GRACE_S", "0")
    export.prune_versions(one_mart / "export" / ".versions", MART, one_mart / "export" / MART, 0)
    assert version_folders(one_mart) == [current]  # never the current one, whatever its age
    os.utime(current, (hour_ago, hour_ago))
    export.prune_versions(one_mart / "export" / ".versions", MART, one_mart / "export" / MART, 0)
    assert version_folders(one_mart) == [current] and exported_rows(one_mart) == mart_rows()


@pytest.mark.parametrize("manifest", ["[]", "null", '"text"', '{"partitions": []}', '{"duckdb": 1}'])
def test_a_manifest_of_another_shape_writes_every_day_again(one_mart, manifest):
    export.export_marts()
    before = files(one_mart)
    current = (one_mart / "export" / MART).resolve()
    (current.parent / f".{current.name}.json").write_text(manifest)
    export.export_marts()
    assert all(files(one_mart)[day].isdisjoint(before[day]) for day in before)
    assert exported_rows(one_mart) == mart_rows()
    manifest = json.loads(((one_mart / "export" / MART).resolve().parent /
                           f".{(one_mart / 'export' / MART).resolve().name}.json").read_text())
    assert sorted(manifest["files"]) == sorted(f"{day}/{name}" for day in before for name in os.listdir(
        one_mart / "export" / MART / day))


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
