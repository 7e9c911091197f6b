"""`gpuprices sql --allow-files`: a relative `export/...` path reads the data home's Parquet export from any
directory; a file relative to the current directory is still found; without the flag no file is read.

The command runs in-process (flows.cli.main.main, as the console script runs it)."""

from __future__ import annotations

import json

import duckdb

from flows.cli.main import main
from warehouse.store import db


def sql(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["sql", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_allow_files_reads_export_paths_from_the_data_home_wherever_it_runs(home, tmp_path, monkeypatch, capsys):
    with db.connect():  # the warehouse, empty
        pass
    partition = home / "export" / "gpu_prices_daily"
    partition.parent.mkdir()
    with duckdb.connect() as connection:  # an export as `gpuprices export` lays it out
        connection.execute(f"COPY (SELECT 'h100-sxm5-80gb' AS gpu_id, DATE '2026-04-02' AS price_date) TO "
                           f"'{partition}' (FORMAT PARQUET, PARTITION_BY (price_date))")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.csv").write_text("a\n7\n")
    monkeypatch.chdir(elsewhere)

    query = "SELECT gpu_id, price_date FROM read_parquet('export/gpu_prices_daily/*/*.parquet', hive_partitioning = 1)"
    code, out, err = sql(capsys, "--allow-files", "--json", query)
    assert code == 0, err
    assert json.loads(out) == {"gpu_id": "h100-sxm5-80gb", "price_date": "2026-04-02"}
    assert sql(capsys, "--allow-files", "--json", "SELECT a FROM 'mine.csv'")[1].strip() == '{"a": 7}'
    # without --allow-files the query reads no file at all
    code, _, err = sql(capsys, query)
    assert code == 1 and "gpuprices sql:" in err
