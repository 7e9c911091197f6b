"""`gpuprices import prices`: price history observed elsewhere, landed and loaded like scraped history.

The CSVs here are written in the test (the format is ours, the amounts examples); the Keepa file is a real Amazon
history (recordings/retail_history/, provenance in its README)."""

from __future__ import annotations

import gzip
from decimal import Decimal

import duckdb
import pytest
from conftest import gpuprices

from config.settings import PROJECT_ROOT
from warehouse.imports import ImportFileError, import_prices

HEADER = "observed_at,gpu,market,price,currency,provider,region,per,gpu_count\n"
KEEPA_T4 = PROJECT_ROOT / "recordings" / "retail_history" / "NVIDIA_Tesla_T4.json"


def rows(home, sql):
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def test_a_csv_lands_whole_and_loads_one_real_run_per_day_with_the_days_last_price(home, tmp_path):
    history = tmp_path / "shop_history.csv"
    history.write_text(
        HEADER
        + "2026-01-01T10:00:00Z,Tesla T4,retail_new,1999.00,USD,shopx,,,\n"
        + "2026-01-01T18:00:00Z,Tesla T4,retail_new,1899.00,USD,shopx,,,\n"  # later the same day: this one counts
        + "2026-01-03,H100 SXM5 80GB,on_demand,24.00,USD,acme,us-east,instance_hour,8\n"
        + "2026-01-03,A100 SXM4 80GB,reserved_1y,1.2,EUR,acme,eu,gpu_hour,\n"
    )
    result = import_prices(history, "shop-history")
    assert (result.prices, result.days, result.offers_loaded) == (4, 2, 3)
    runs = rows(home, "SELECT observed_at::date, trigger, status, is_synthetic, rows_loaded FROM raw.ingest_runs "
                      "ORDER BY 1")
    assert [(str(day), trigger, status, synthetic, loaded) for day, trigger, status, synthetic, loaded in runs] == [
        ("2026-01-01", "import", "loaded", False, 1), ("2026-01-03", "import", "loaded", False, 2)]
    offers = rows(home, "SELECT gpu_id, pricing_type, term_months, condition, price_unit, price_per_unit, currency, "
                        "is_synthetic FROM raw.offers ORDER BY gpu_id")
    assert offers == [
        ("a100-sxm4-80gb", "reserved_1y", 12, None, "gpu_hour", Decimal("1.2"), "EUR", False),
        ("h100-sxm5-80gb", "on_demand", None, None, "instance_hour", Decimal("3"), "USD", False),
        ("t4-16gb", "purchase", None, "new", "card", Decimal("1899"), "USD", False),
    ]
    # the file itself is kept, byte for byte, and every loaded row points at it
    landed = list((home / "landing" / "shop-history").rglob("*.csv.gz"))
    assert len(landed) == 1 and gzip.decompress(landed[0].read_bytes()) == history.read_bytes()
    references = rows(home, "SELECT DISTINCT landing_ref FROM raw.offers")
    assert len(references) == 1 and references[0][0].endswith(landed[0].name)
    # the same bytes again: nothing changes
    again = import_prices(history, "shop-history")
    assert again.already_loaded and again.offers_loaded == 0
    assert rows(home, "SELECT count(*) FROM raw.offers")[0][0] == 3


def test_a_bad_file_names_every_bad_line_and_loads_nothing(home, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        HEADER
        + "2026-01-01,Tesla T4,retail_new,0,USD,,,,\n"  # $0
        + "2026-01-01,Tesla T9,retail_new,100,USD,,,,\n"  # no such GPU
        + "2026-01-01,H100,on_demand,2.5,USD,,,,\n"  # SXM or PCIe? never guessed
        + "2026-01-01,Tesla T4,retail,100,USD,,,,\n"  # unknown market
        + "2026-01-01,Tesla T4,retail_new,100,dollars,,,,\n"  # not ISO
        + "2026-01-01,Tesla T4,retail_new,100,USD,,,gpu_hour,\n"  # a card is not priced per GPU-hour
        + "yesterday,Tesla T4,retail_new,100,USD,,,,\n"
        + "2026-01-01,Tesla T4,retail_new,1500,USD,,,,\n"  # fine
    )
    with pytest.raises(ImportFileError) as raised:
        import_prices(bad, "shop-history")
    message = str(raised.value)
    for line in range(2, 9):
        assert f"line {line}:" in message
    assert "line 9" not in message
    assert not (home / "landing").exists() and not (home / "gpuprices.duckdb").exists()


def test_a_price_a_scraped_row_could_not_have_is_a_bad_line_too(home, tmp_path):
    wrong = tmp_path / "wrong.csv"
    wrong.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD,,,,\n"
                     + "2026-01-02,Tesla T4,retail_new,15,USD,,,,\n")  # a $15 T4 is a listing for something else
    with pytest.raises(ImportFileError, match=r"line 3: card_price_out_of_band"):
        import_prices(wrong, "shop-history")
    assert not (home / "gpuprices.duckdb").exists()


def test_an_import_may_not_take_a_scrapers_name(home, tmp_path):
    history = tmp_path / "h.csv"
    history.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD,,,,\n")
    with pytest.raises(ImportFileError, match="scraper's source id"):
        import_prices(history, "amazon")
    result = gpuprices(home, "import", "prices", str(history), "--source", "Not A Name", "--no-build", check=False)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_real_keepa_history_imports_every_price_change(home):
    result = import_prices(KEEPA_T4, "keepa-amazon", file_format="keepa")
    assert result.prices == 306  # every entry of the file
    assert str(result.first_day) == "2019-07-17" and str(result.last_day) == "2025-06-30"
    loaded = rows(home, "SELECT count(*), count(DISTINCT observed_at::date), min(price), max(price), "
                        "bool_or(is_synthetic), any_value(provider), any_value(gpu_id) FROM raw.offers")[0]
    assert loaded[0] == loaded[1] == result.days  # one price a day: the day's last
    assert loaded[2] > 0 and loaded[4] is False and loaded[5] == "amazon" and loaded[6] == "t4-16gb"


def test_a_second_file_adds_only_the_days_no_earlier_file_of_the_source_holds(home, tmp_path):
    first, second = tmp_path / "export_1.csv", tmp_path / "export_2.csv"
    first.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD,shopx,,,\n"
                     + "2026-01-02,Tesla T4,retail_new,1450,USD,shopx,,,\n")
    second.write_text(HEADER + "2026-01-02,Tesla T4,retail_new,1400,USD,shopx,,,\n"  # a day the first file holds
                      + "2026-01-03,Tesla T4,retail_new,1350,USD,shopx,,,\n")
    import_prices(first, "shop-history")
    added = import_prices(second, "shop-history")
    assert (added.days, added.offers_loaded) == (1, 1)
    assert rows(home, "SELECT observed_at::date::varchar, price::int FROM raw.offers ORDER BY 1") == [
        ("2026-01-01", 1500), ("2026-01-02", 1450), ("2026-01-03", 1350)]
    assert import_prices(second, "shop-history").already_loaded
