"""marts.offers_daily: every offer of each day with what its run loaded (data_origin, recorded in raw.ingest_runs
from the landing manifest), exported to Parquet with the price index and the quotes.

The offers are the bundled real SkyPilot Lambda capture and the documented-format Azure pages (made up, flagged);
the card price is an import written here (the format is ours, the amount an example); the quotes are the made-up
example file."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import duckdb
import pytest
from conftest import FIXTURES, document, gpuprices

from scrapers.base import Expectations
from scrapers.cloud.azure import AzureRetailPrices
from scrapers.errors import FetchError
from scrapers.registry import all_sources
from warehouse.store import db
from warehouse.ingest.imports import import_prices
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest, record_failure, records_observed_at
from warehouse.ingest.quotes import load_quotes
from warehouse.store.schema import RAW_TABLES, create_raw_schema

DAY_1 = datetime(2026, 4, 2, 23, 0, tzinfo=UTC)
DAY_2 = datetime(2026, 4, 3, 23, 0, tzinfo=UTC)
LAMBDA = "skypilot/lambda_2026-04-02.csv"
AZURE = "azure/synthetic_documented_format_gpu_items.json"


def azure_source():
    source = AzureRetailPrices()
    source.expectations = Expectations(frozenset({"h100-sxm5-80gb"}), min_offers=1, max_rejected_share=0.5)
    return source


def a_card_import(tmp_path) -> str:
    history = tmp_path / "shop.csv"
    history.write_text("observed_at,gpu,market,price,currency\n2026-04-03T10:00:00Z,RTX 4090,retail_new,1999,USD\n")
    return import_prices(history, "shop-a").file_run_id


def test_each_run_records_what_its_landing_is_and_an_older_warehouse_gains_the_column(home, tmp_path):
    lambda_source = all_sources()["skypilot-lambda"]
    assert ingest(lambda_source, land(lambda_source.id, DAY_1, [document(LAMBDA)], "stale_capture"), "test").status \
        == "loaded"
    assert ingest(azure_source(), land("azure", DAY_1, [document(AZURE)], "reconstructed"), "test").status == "loaded"
    a_card_import(tmp_path)
    record_failure("skypilot-gcp", 1, DAY_1, FetchError("connection reset"), DAY_1, "test")  # nothing landed
    with db.connect() as connection:
        stored = dict(connection.execute("SELECT source, data_origin FROM raw.ingest_runs").fetchall())
    assert stored == {"skypilot-lambda": "stale_capture", "azure": "reconstructed", "shop-a": "imported",
                      "skypilot-gcp": None}
    # what a scale-out parent reads back of its shards' runs keeps it too
    assert {r.source: r.data_origin for r in records_observed_at(DAY_1)}["skypilot-lambda"] == "stale_capture"

    # a warehouse made before the column: it is added, NULL in the old rows (stg_raw__ingest_runs derives those)
    older = duckdb.connect(str(tmp_path / "older.duckdb"))
    older.execute("CREATE SCHEMA raw")
    columns = re.sub(r"\n\s*data_origin .*?(?=\n\s*PRIMARY KEY)", "", RAW_TABLES["raw.ingest_runs"], flags=re.S)
    assert "data_origin" not in columns
    older.execute(f"CREATE TABLE raw.ingest_runs ({columns})")
    older.execute("INSERT INTO raw.ingest_runs (run_id, parser_version, source, status, observed_at, started_at, "
                  "finished_at, duration_s, documents_fetched, bytes_fetched, rows_parsed, rows_loaded, rows_rejected, "
                  "is_synthetic, trigger) VALUES ('r', 1, 's', 'loaded', now(), now(), now(), 0, 1, 1, 7, 6, 1, "
                  "false, 'daily')")
    create_raw_schema(older)
    assert older.execute("SELECT run_id, data_origin FROM raw.ingest_runs").fetchall() == [("r", None)]


def rows(home, sql):
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        result = connection.execute(sql)
        names = [column[0] for column in result.description]
        return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


@pytest.mark.slow  # a dbt build
def test_the_offers_mart_lists_each_offer_of_each_day_with_its_data_origin_and_is_exported(home, tmp_path):
    lambda_source = all_sources()["skypilot-lambda"]
    ingest(lambda_source, land(lambda_source.id, DAY_1, [document(LAMBDA)], "captured"), "test")
    ingest(azure_source(), land("azure", DAY_1, [document(AZURE)], "synthetic"), "test")
    with db.connect() as connection:  # as a run loaded before raw.ingest_runs recorded data_origin
        connection.execute("UPDATE raw.ingest_runs SET data_origin = NULL WHERE source = 'azure'")
    # day 2: Lambda's fetch fails (its day-1 snapshot is carried forward), a card price is imported
    record_failure(lambda_source.id, lambda_source.parser_version, DAY_2, FetchError("down"), DAY_2, "test")
    a_card_import(tmp_path)
    load_quotes(FIXTURES / "quotes" / "example_quotes.csv")
    gpuprices(home, "build")
    gpuprices(home, "export")

    days = rows(home, "SELECT price_date::varchar AS day, source, data_origin, is_carried_forward, count(*) AS n "
                      "FROM marts.offers_daily GROUP BY ALL ORDER BY ALL")
    lambda_offers, azure_offers = days[1]["n"], days[0]["n"]
    assert [(d["day"], d["source"], d["data_origin"], d["is_carried_forward"]) for d in days] == [
        ("2026-04-02", "azure", "unknown", False),  # flagged, origin not recorded: stale, reconstructed or made up
        ("2026-04-02", "skypilot-lambda", "captured", False),
        ("2026-04-03", "azure", "unknown", True),
        ("2026-04-03", "shop-a", "imported", False),
        ("2026-04-03", "skypilot-lambda", "captured", True)]
    assert lambda_offers == 255 and days[4]["n"] == lambda_offers and days[2]["n"] == azure_offers
    # an 8-GPU instance at offer grain: its count, type and region, its price as given and per GPU-hour in USD
    h100 = rows(home, "SELECT * FROM marts.offers_daily WHERE price_date = '2026-04-02' AND source = 'skypilot-lambda' "
                      "AND instance_type = 'gpu_8x_h100_sxm5' AND pricing_type = 'on_demand' LIMIT 1")[0]
    assert (h100["gpu_id"], h100["gpu_count"], h100["price_unit"], h100["price_per"], h100["channel"]) == (
        "h100-sxm5-80gb", 8, "instance_hour", "gpu_hour", "cloud")
    assert h100["region"] and h100["price_per_gpu_hour_usd"] == h100["price"] / 8 and h100["price_per_card_usd"] is None
    card = rows(home, "SELECT * FROM marts.offers_daily WHERE source = 'shop-a'")[0]
    assert (card["gpu_id"], card["price_per"], card["price_per_card_usd"], card["price_per_gpu_hour_usd"],
            card["condition"]) == ("rtx-4090-24gb", "card", 1999, None, "new")

    # exported with the price index and the quotes (partitioned by the quote's day)
    export = home / "export"
    assert sorted(p.name for p in (export / "offers_daily").iterdir()) == ["price_date=2026-04-02",
                                                                            "price_date=2026-04-03"]
    assert (export / "gpu_price_index_daily").is_dir()
    assert sorted(p.name for p in (export / "gpu_quotes").iterdir()) == ["quote_date=2026-04-03",
                                                                          "quote_date=2026-04-06"]
    # `sql --allow-files` finds export/... in the data home (the CLI runs from the repository here)
    exported = gpuprices(home, "sql", "--allow-files", "--json",
                         "SELECT count(*) AS n FROM read_parquet('export/offers_daily/*/*.parquet', "
                         "hive_partitioning = true)").stdout
    assert json.loads(exported)["n"] == sum(d["n"] for d in days)
