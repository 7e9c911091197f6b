"""The README's offline run, through the real CLI in a subprocess, on a fresh data home: recorded responses
served on 127.0.0.1 to the real fetch code, then load, dbt build (with its data and unit tests), export."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parent.parent
SINCE = "2026-04-28"  # four replay days: every bundled source has a recording by then (vast from 04-29)


def gpuprices(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GPUPRICES_HOME": str(home)}
    result = subprocess.run(
        [sys.executable, "-m", "flows.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    if check and result.returncode != 0:
        raise AssertionError(f"gpuprices {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def row_counts(home: Path) -> dict:
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        tables = connection.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema IN ('raw', 'marts', 'intermediate') AND table_type = 'BASE TABLE'"
        ).fetchall()
        return {t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for (t,) in tables}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("offline")
    gpuprices(home, "run", "--offline", "--since", SINCE)
    return home


def test_mart_has_real_prices_per_gpu_hour_from_both_sources(warehouse):
    result = gpuprices(warehouse, "sql", "--json", "select * from marts.gpu_prices_by_source_daily")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    sources = {r["source"] for r in rows}
    assert {"azure", "skypilot-azure", "skypilot-gcp", "skypilot-lambda", "skypilot-vast"} <= sources
    assert {r["price_date"] for r in rows} == {"2026-04-28", "2026-04-29", "2026-04-30", "2026-05-01"}
    # rows from the reconstructed Azure API pages are flagged; rows from real catalogs are not
    assert all(r["is_synthetic"] for r in rows if r["source"] == "azure")
    assert not any(r["is_synthetic"] for r in rows if r["source"].startswith("skypilot-"))
    # the Lambda catalog lists one price for every region: e.g. gpu_8x_h100_sxm5 on 2026-04-20 at 8 GPUs
    lambda_h100 = [r for r in rows if r["source"] == "skypilot-lambda" and r["gpu_id"] == "h100-sxm5-80gb"]
    assert lambda_h100 and all(float(r["min_price_per_gpu_hour_usd"]) > 1 for r in lambda_h100)
    # a reserved or hourly price read wrong would be off by 100x+; every figure sits in a sane band
    assert all(0.02 <= float(r["min_price_per_gpu_hour_usd"]) <= 40 for r in rows)


def test_running_it_again_changes_no_row_count(warehouse):
    before = row_counts(warehouse)
    result = gpuprices(warehouse, "run", "--offline", "--since", SINCE)
    assert "already_loaded" in result.stdout
    assert row_counts(warehouse) == before


def test_status_reports_freshness_quarantine_and_unmatched_names(warehouse):
    report = json.loads(gpuprices(warehouse, "status", "--json").stdout)
    by_source = {s["source"]: s for s in report["sources"]}
    assert by_source["skypilot-gcp"]["last_status"] == "loaded"
    assert by_source["azure"]["has_synthetic_rows"] is True
    unmatched = {(u["source"], u["raw_gpu_name"]) for u in report["unmatched_gpu_names"]}
    assert ("skypilot-lambda", "a100") in unmatched and ("skypilot-vast", "Tesla V100 16GB") in unmatched
    text = gpuprices(warehouse, "status").stdout
    assert "Unmatched GPU names" in text and "'a100'" in text


def test_parquet_export_is_partitioned_by_date_and_readable(warehouse):
    export = warehouse / "export" / "gpu_prices_daily"
    partitions = sorted(p.name for p in export.iterdir())
    assert partitions[0] == f"price_date={SINCE}"
    with duckdb.connect() as connection:
        exported = connection.execute(
            f"SELECT count(*) FROM read_parquet('{export}/*/*.parquet', hive_partitioning = true)"
        ).fetchone()[0]
    assert exported == row_counts(warehouse)["marts.gpu_prices_daily"]


def test_parse_command_prints_normalized_offers(warehouse):
    result = gpuprices(warehouse, "parse", "skypilot-vast", str(ROOT / "tests/fixtures/skypilot/vast_2026-04-29.csv"))
    offers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(offers) == 64
    for field in ("source", "gpu_id", "gpu_count", "pricing_type", "price", "currency", "price_per_gpu_hour_usd",
                  "region", "in_stock", "condition", "title"):
        assert field in offers[0]


def test_readme_schema_and_source_table_match_the_real_warehouse(warehouse):
    readme = (ROOT / "README.md").read_text()
    schema = gpuprices(warehouse, "schema").stdout.strip()
    sources = gpuprices(warehouse, "sources").stdout.strip()
    embedded_schema = re.search(r"<!-- schema:start -->\n(.*?)\n<!-- schema:end -->", readme, re.S)
    embedded_sources = re.search(r"<!-- sources:start -->\n(.*?)\n<!-- sources:end -->", readme, re.S)
    assert embedded_schema and embedded_schema.group(1).strip() == schema, "README schema drifted: paste `gpuprices schema`"
    assert embedded_sources and embedded_sources.group(1).strip() == sources, "README sources drifted: paste `gpuprices sources`"
