"""`gpuprices import prices`: price history observed elsewhere, landed and loaded like scraped history.

The CSVs here are written in the test (the format is ours, the amounts examples); the Keepa file is a real Amazon
history (recordings/retail_history/, provenance in its README)."""

from __future__ import annotations

import gzip
import threading
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import duckdb
import polars as pl
import pytest
from conftest import gpuprices

import flows.cli.imports
import warehouse.ingest.imports
from config.settings import PROJECT_ROOT
from flows.cli.main import main as cli
from warehouse.ingest.imports import ImportFileError, import_prices, parse_columns
from warehouse.store.status import render, status

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


# -- files as people have them: bad rows held back, other shapes, gzip ----------------------------------------------
def test_quarantine_loads_the_good_rows_and_holds_back_each_bad_one_with_its_line_and_reason(home, tmp_path):
    history = tmp_path / "gcp_history.csv"
    history.write_text(
        HEADER
        + "2026-01-05,A100,on_demand,29.38,USD,gcp,us-central1,instance_hour,8\n"
        + "2026-01-05,A100,on_demand,0.12,USD,gcp,us-east1,instance_hour,8\n"  # the VM without its GPUs
        + "2026-01-05,Tesla T9,on_demand,0.35,USD,gcp,us-east1,instance_hour,1\n"  # no such GPU
        + "\n"  # a blank line is no row (and keeps the line numbers)
        + "2026-01-12,A100,on_demand,29.10,USD,gcp,us-central1,instance_hour,8,extra\n"  # a field too many
        + "next week,A100,on_demand,29.10,USD,gcp,us-central1,instance_hour,8\n"
        + "2026-01-12,A100,on_demand,29.10,USD,gcp,us-central1,instance_hour,8\n"
    )
    result = import_prices(history, "gcp-history", bad_rows="quarantine")
    assert (result.prices, result.rows_quarantined, result.offers_loaded, result.days) == (6, 4, 2, 2)
    assert result.first_reasons == [
        "line 3: price_out_of_band (0.12 USD)",
        "line 4: gpu 'Tesla T9' is not a GPU the alias table or the GPU catalogue knows (a datacenter part must say "
        "SXM or PCIe)",
        "line 6: 10 fields, the header has 9",
        "line 7: observed_at 'next week' is not an ISO date or time (2025-03-01 or 2025-03-01T14:00:00Z)"]
    loaded = rows(home, "SELECT observed_at::date::varchar, region, price, price_per_unit FROM raw.offers ORDER BY 1")
    assert loaded == [
        ("2026-01-05", "us-central1", Decimal("29.38"), Decimal("3.6725")),
        ("2026-01-12", "us-central1", Decimal("29.10"), Decimal("3.6375"))]
    held = rows(home, "SELECT run_id, scope, reason, detail::json->>'line', detail::json->>'file' FROM raw.quarantine "
                      "ORDER BY (detail::json->>'line')::int")
    assert [(scope, line, file) for _, scope, _, line, file in held] == [
        ("row", "3", "gcp_history.csv"), ("row", "4", "gcp_history.csv"), ("row", "6", "gcp_history.csv"),
        ("row", "7", "gcp_history.csv")]
    assert {run_id for run_id, *_ in held} == {result.file_run_id} and held[0][2] == "price_out_of_band"
    # `gpuprices status`: the count per import and its first reasons
    report = status()
    assert [(r["source"], r["file"], r["rows"], r["first_reasons"]) for r in report["imported_rows_held_back"]] == [
        ("gcp-history", "gcp_history.csv", 4, result.first_reasons[:3])]
    assert "gcp_history.csv: 4 rows" in render(report) and "line 3: price_out_of_band (0.12 USD)" in render(report)
    # the same bytes again: nothing more, not even a second copy of the held-back rows
    again = import_prices(history, "gcp-history", bad_rows="quarantine")
    assert again.already_loaded and (again.offers_loaded, again.rows_quarantined) == (0, 0)
    assert rows(home, "SELECT count(*) FROM raw.quarantine")[0][0] == 4
    assert rows(home, "SELECT count(*) FROM raw.offers")[0][0] == 2


def test_refuse_is_the_default_and_names_the_counts_and_the_lines(home, tmp_path):
    history = tmp_path / "ebay_history.csv"
    history.write_text("observed_at,gpu,market,price,currency,title\n"
                       + "2026-02-01,RTX 3090,retail_used,720,USD,RTX 3090 FE\n\n"  # a blank line still counts
                       + "2026-02-01,RTX 3090,retail_used,18.50,USD,RTX 3090 box only (auction)\n"
                       + "2026-02-02,RTX 3090,retail_used,705,USD,RTX 3090 FE\n")
    with pytest.raises(ImportFileError) as raised:
        import_prices(history, "ebay-history")
    message = str(raised.value)
    assert "3 rows read, 1 bad" in message and "--bad-rows quarantine" in message
    assert "line 4: card_price_out_of_band (18.5 USD)" in message and "line 2" not in message
    assert not (home / "gpuprices.duckdb").exists() and not (home / "landing").exists()
    loaded = import_prices(history, "ebay-history", bad_rows="quarantine")
    assert (loaded.offers_loaded, loaded.rows_quarantined) == (2, 1)


def test_a_gpu_value_longer_than_a_listing_title_is_a_bad_row_not_read_for_a_model(home, tmp_path):
    """A long title names its card; a longer value is not a name, though it holds one (reading a model out of
    megabytes took the catalogue match half a minute), and its reason does not copy it whole."""
    limit = warehouse.ingest.imports.MAX_GPU_NAME_CHARACTERS
    title = "MSI GeForce RTX 4090 Suprim X 24G"
    history = tmp_path / "titles.csv"
    history.write_text("observed_at,gpu,market,price,currency,title\n"
                       + f"2026-02-01,{(title + ' ').ljust(limit, 'x')},retail_new,1899,USD,t\n"
                       + f"2026-02-02,{(title + ' ').ljust(limit + 1, 'x')},retail_new,1879,USD,t\n")
    result = import_prices(history, "shop-history", bad_rows="quarantine")
    assert (result.offers_loaded, result.rows_quarantined) == (1, 1)
    assert rows(home, "SELECT gpu_id FROM raw.offers") == [("rtx-4090-24gb",)]
    [reason] = result.first_reasons
    assert reason.startswith(f"line 3: gpu '{title}") and "characters left out) is not a GPU name" in reason
    assert len(reason) < 200


def test_gpu_names_a_one_gpu_file_and_a_keepa_export_without_its_name(home, tmp_path):
    one_gpu = tmp_path / "t4_prices.csv"
    one_gpu.write_text("observed_at,market,price,currency\n2026-03-01,retail_new,1500,USD\n")
    with pytest.raises(ImportFileError, match=r"missing column\(s\) gpu;.*--gpu"):
        import_prices(one_gpu, "shop-history")
    assert import_prices(one_gpu, "shop-history", gpu="Tesla T4").offers_loaded == 1
    keepa = tmp_path / "keepa.json"
    keepa.write_text('{"prices": {"2026-03-02T10:00:00": 1480.0, "2026-03-03T10:00:00": 1470.5}}')
    with pytest.raises(ImportFileError, match="--gpu NAME stands in"):
        import_prices(keepa, "keepa-amazon", "keepa")
    result = import_prices(keepa, "keepa-amazon", "keepa", gpu="NVIDIA Tesla T4 16GB PCle")
    assert result.offers_loaded == 2
    assert rows(home, "SELECT DISTINCT source, provider, gpu_id FROM raw.offers ORDER BY 1") == [
        ("keepa-amazon", "amazon", "t4-16gb"), ("shop-history", "shop-history", "t4-16gb")]


IDEALO = ("date,idealo_id,listing_name,gpu_type,price_eur_lowest,url\n"
          + '2025-11-01,4711,"MSI GeForce RTX 4090 Suprim X 24G",RTX 4090,"1,899.00",'
          + "https://www.idealo.de/preisvergleich/4711\n"
          + '2025-11-02,4711,"MSI GeForce RTX 4090 Suprim X 24G",RTX 4090,1879.5,'
          + "https://www.idealo.de/preisvergleich/4711\n")
IDEALO_MAP = {"observed_at": "date", "price": "price_eur_lowest", "gpu": "gpu_type", "title": "listing_name"}


def test_a_column_map_imports_another_shape_with_whole_file_market_and_currency(home, tmp_path):
    idealo = tmp_path / "idealo.csv"
    idealo.write_text(IDEALO)
    with pytest.raises(ImportFileError, match=r"missing column\(s\) observed_at, gpu, market, price, currency"):
        import_prices(idealo, "idealo-history", market=None, currency=None)
    with pytest.raises(ImportFileError, match=r"missing column\(s\) market, currency"):
        import_prices(idealo, "idealo-history", market=None, currency=None, columns=IDEALO_MAP)
    result = import_prices(idealo, "idealo-history", market="retail_new", currency="EUR", columns=IDEALO_MAP)
    assert (result.prices, result.offers_loaded) == (2, 2)
    assert rows(home, "SELECT observed_at::date::varchar, gpu_id, price, currency, condition, title, url "
                      "FROM raw.offers ORDER BY 1") == [
        ("2025-11-01", "rtx-4090-24gb", Decimal("1899"), "EUR", "new", "MSI GeForce RTX 4090 Suprim X 24G",
         "https://www.idealo.de/preisvergleich/4711"),
        ("2025-11-02", "rtx-4090-24gb", Decimal("1879.5"), "EUR", "new", "MSI GeForce RTX 4090 Suprim X 24G",
         "https://www.idealo.de/preisvergleich/4711")]
    # a column of the file wins over the whole-file value (a market column of a CSV says it row by row)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("observed_at,gpu,market,price\n2026-01-01,Tesla T4,retail_used,800\n")
    import_prices(mixed, "mixed-history", market="retail_new", currency="GBP")
    assert rows(home, "SELECT condition, currency FROM raw.offers WHERE source = 'mixed-history'") == [("used", "GBP")]


def test_a_bad_column_map_is_a_clear_error(home, tmp_path):
    idealo = tmp_path / "idealo.csv"
    idealo.write_text(IDEALO)
    with pytest.raises(ImportFileError, match=r"--columns price=price_eur_lowst: no such column in the file"):
        import_prices(idealo, "idealo-history", columns={**IDEALO_MAP, "price": "price_eur_lowst"})
    with pytest.raises(ImportFileError, match=r"'prize' is not an import column"):
        parse_columns("observed_at=date,prize=price_eur_lowest")
    for malformed in ("observed_at:date", "observed_at=date,", "=date", ""):
        with pytest.raises(ImportFileError, match="write IMPORT_COLUMN=FILE_COLUMN pairs"):
            parse_columns(malformed)
    assert parse_columns(" observed_at = date , price=price_eur_lowest") == {"observed_at": "date",
                                                                             "price": "price_eur_lowest"}
    # the command: one line on stderr, exit 2, no traceback
    result = gpuprices(home, "import", "prices", str(idealo), "--source", "idealo-history", "--market", "retail_new",
                       "--currency", "EUR", "--columns", "observed_at=date,price=price_eur_lowst,gpu=gpu_type",
                       "--no-build", check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "price=price_eur_lowst: no such column" in result.stderr


def test_the_command_prints_the_counts_and_first_reasons(home, tmp_path, capsys):
    idealo = tmp_path / "idealo.csv"
    idealo.write_text(IDEALO + '2025-11-03,4712,"RTX 4090 box",RTX 4090,12.00,https://www.idealo.de/x\n')
    arguments = ["import", "prices", str(idealo), "--source", "idealo-history", "--columns",
                 "observed_at=date,price=price_eur_lowest,gpu=gpu_type,title=listing_name", "--market", "retail_new",
                 "--currency", "EUR", "--no-build"]
    assert cli(arguments) == 2
    refused = capsys.readouterr()
    assert "3 rows read, 1 bad" in refused.err and "line 4: card_price_out_of_band (12 EUR)" in refused.err
    assert cli([*arguments, "--bad-rows", "quarantine"]) == 0
    printed = capsys.readouterr().out
    assert "3 rows read, 1 quarantined, 2 loaded as idealo-history" in printed
    assert "line 4: card_price_out_of_band (12 EUR)" in printed


def test_a_gzip_file_is_read_through_and_landed_as_its_content(home, tmp_path):
    plain = (HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD,shopx,,,\n"
             + "2026-01-02,Tesla T4,retail_new,1450,USD,shopx,,,\n")
    packed = tmp_path / "history.csv.gz"
    packed.write_bytes(gzip.compress(plain.encode()))
    result = import_prices(packed, "shop-history")
    assert (result.prices, result.offers_loaded) == (2, 2)
    landed = list((home / "landing" / "shop-history").rglob("*.csv.gz"))
    assert len(landed) == 1 and gzip.decompress(landed[0].read_bytes()) == plain.encode()
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(gzip.compress(plain.encode())[:40])
    with pytest.raises(ImportFileError, match="gzip file that does not decompress"):
        import_prices(broken, "shop-history")


def test_prices_stay_exact_and_a_price_per_gpu_is_rounded_half_even_once(home, tmp_path):
    history = tmp_path / "exact.csv"
    history.write_text(HEADER
                       + "2026-01-01,H100 SXM5 80GB,on_demand,\"100.0000000005\",USD,acme,a,instance_hour,8\n"
                       + "2026-01-01,H100 SXM5 80GB,spot,0.0000025E6,USD,acme,a,instance_hour,1/3\n"
                       + "2026-01-01,H100 SXM5 80GB,reserved_1y,2.0000005,USD,acme,a,gpu_hour,\n")
    import_prices(history, "exact-history")
    assert rows(home, "SELECT pricing_type, price, gpu_count, price_per_unit FROM raw.offers ORDER BY 1") == [
        ("on_demand", Decimal("100.0000000005"), Decimal("8"), Decimal("12.500000")),  # 12.5000000000625
        ("reserved_1y", Decimal("2.0000005"), Decimal("1"), Decimal("2.000000")),  # half-even: ...0005 -> ...000
        ("spot", Decimal("2.5"), Decimal("0.333333"), Decimal("7.500000"))]


# -- edges that must not get in (issue 28) ---------------------------------------------------------------------------
def test_a_time_outside_the_observation_window_is_a_bad_row_with_its_reason(home, tmp_path):
    """Not before 2006 (the first CUDA GPU), not after a day from now: a 9999-12-31 line made every later build fail
    (a day after it overflows), a 2099 one made the overview read "GPU prices on 2099-01-01", 1900 loaded."""
    ahead = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    history = tmp_path / "dates.csv"
    history.write_text(
        HEADER
        + "2026-01-01,Tesla T4,retail_new,1500,USD,,,,\n"
        + "9999-12-31,Tesla T4,retail_new,1500,USD,,,,\n"
        + "2099-01-01,Tesla T4,retail_new,1500,USD,,,,\n"
        + "1900-01-01,Tesla T4,retail_new,1500,USD,,,,\n"
        + "2005-12-31T23:59:59Z,Tesla T4,retail_new,1500,USD,,,,\n"
        + "9999-12-31T23:00:00-05:00,Tesla T4,retail_new,1500,USD,,,,\n"  # year 10000 in UTC
        + "0001-01-01T00:00:00+01:00,Tesla T4,retail_new,1500,USD,,,,\n"  # year 0 in UTC
        + f"{ahead},Tesla T4,retail_new,1500,USD,,,,\n"
        + "2006-01-01T00:00:00Z,Tesla T4,retail_new,1480,USD,,,,\n"  # the window's first moment
    )
    with pytest.raises(ImportFileError) as raised:
        import_prices(history, "shop-history")
    message = str(raised.value)
    for line in range(3, 10):
        assert f"line {line}: observed_at" in message and "outside the observation window (2006-01-01" in message
    assert "line 2" not in message and "line 10" not in message
    result = import_prices(history, "shop-history", bad_rows="quarantine")
    assert (result.rows_quarantined, result.offers_loaded) == (7, 2)
    assert rows(home, "SELECT min(observed_at)::date::varchar, max(observed_at)::date::varchar FROM raw.offers") == [
        ("2006-01-01", "2026-01-01")]
    held = rows(home, "SELECT detail::json->>'line', reason FROM raw.quarantine ORDER BY 1")
    assert [line for line, _ in held] == ["3", "4", "5", "6", "7", "8", "9"]
    assert all("outside the observation window" in reason for _, reason in held)
    # a Keepa history the same
    keepa = tmp_path / "keepa.json"
    keepa.write_text('{"gpu_name": "Tesla T4", "prices": {"2026-03-02T10:00:00": 1480.0, "2099-01-01T00:00:00": 1}}')
    with pytest.raises(ImportFileError, match=r"entry 2099-01-01T00:00:00: observed_at .* outside the observation"):
        import_prices(keepa, "keepa-amazon", "keepa")


def test_strict_values_underscores_other_digits_fractions_of_gpus_and_prices_that_round_to_zero(home, tmp_path):
    history = tmp_path / "strict.csv"
    history.write_text(
        HEADER
        + "2026-01-01,Tesla T4,retail_new,1_699,USD,,,,\n"  # Python's Decimal and int read 1699
        + "2026-01-01,Tesla T4,retail_new,١٦٩٩,USD,,,,\n"  # Arabic-Indic digits: Decimal reads 1699 too
        + "2026-01-01,H100 SXM5 80GB,on_demand,24,USD,acme,a,instance_hour,2.5\n"  # two and a half GPUs
        + "2026-01-01,H100 SXM5 80GB,on_demand,24,USD,acme,b,instance_hour,1_0\n"
        + "2026-01-01,H100 SXM5 80GB,on_demand,24,USD,acme,c,instance_hour,10000000\n"  # DECIMAL(12, 6) holds less
        + "2026-01-01,H100 SXM5 80GB,on_demand,0.0000001,EUR,acme,d,gpu_hour,\n"  # 0.000000 per GPU-hour
        + "2026-01-01,H100 SXM5 80GB,on_demand,0.000004,EUR,acme,e,instance_hour,8\n"  # 0.0000005: half-even to 0
        + "2026-01-01,H100 SXM5 80GB,on_demand,0.00000000001,EUR,acme,f,gpu_hour,\n"  # 0 at 10 decimals
        + "2026-01-01,H100 SXM5 80GB,on_demand,24,USD,acme,g,instance_hour,8\n"  # fine
        + "2026-01-01,A10 PCIe,on_demand,0.5,USD,azure,h,instance_hour,1/6\n"  # a sixth of an A10: a real offer
        + "2026-01-01,A10 PCIe,on_demand,0.9,USD,azure,i,instance_hour,0.5\n"  # half of one, as a decimal
    )
    result = import_prices(history, "strict-history", bad_rows="quarantine")
    assert result.first_reasons == [
        "line 2: price '1_699' is not a number (digits, '.', ',' between thousands, 1e3)",
        "line 3: price '١٦٩٩' is not a number (digits, '.', ',' between thousands, 1e3)",
        "line 4: gpu_count '2.5' is a fraction of GPUs: a whole number, or 1/N for a share of one GPU",
        "line 5: gpu_count '1_0' is not a number (8, or 1/2 for half a GPU)",
        "line 6: gpu_count '10000000' is out of range (1/1000000 to 999999)"]
    held = dict(rows(home, "SELECT detail::json->>'line', reason FROM raw.quarantine"))
    assert held["7"] == "price '0.0000001' per GPU or card rounds to 0 at 6 decimals"
    assert held["8"] == "price '0.000004' per GPU or card rounds to 0 at 6 decimals"
    assert held["9"] == "price '0.00000000001' rounds to 0 at 10 decimals" and len(held) == 8
    assert rows(home, "SELECT region, gpu_count, price_per_unit FROM raw.offers ORDER BY region") == [
        ("g", Decimal("8"), Decimal("3")), ("h", Decimal("0.166667"), Decimal("3")),
        ("i", Decimal("0.5"), Decimal("1.8"))]


def test_a_column_named_twice_refuses_the_file_whatever_bad_rows_says(home, tmp_path):
    twice = tmp_path / "twice.csv"
    twice.write_text("observed_at,gpu,market,price,currency, price\n2026-01-01,Tesla T4,retail_new,1500,USD,15\n")
    for bad_rows in ("refuse", "quarantine"):
        with pytest.raises(ImportFileError, match=r"the header names column 'price' twice \(columns 4 and 6\)"):
            import_prices(twice, "shop-history", bad_rows=bad_rows)
    result = gpuprices(home, "import", "prices", str(twice), "--source", "shop-history", "--no-build", check=False)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not (home / "gpuprices.duckdb").exists()


def test_the_field_rules_give_the_same_result_chunk_by_chunk(home, tmp_path, monkeypatch):
    """A long file is checked in chunks (bounded memory): a bad row in any chunk is named by its own line, and the
    day's last price of an offer is taken across chunks."""
    history = tmp_path / "chunked.csv"
    lines = [f"2026-01-0{1 + n // 4}T0{n % 4}:00:00Z,Tesla T4,retail_new,{1500 - n},USD,,,,\n" for n in range(12)]
    lines[2] = "2026-01-01T02:00:00Z,Tesla T4,retail_new,abc,USD,,,,\n"  # line 4: a bad price in the first chunk
    lines[9] = "2026-01-03T01:00:00Z,Tesla T9,retail_new,1400,USD,,,,\n"  # line 11: an unknown GPU in the last one
    history.write_text(HEADER + "".join(lines))
    monkeypatch.setattr("warehouse.ingest.imports.VALIDATION_CHUNK_ROWS", 5)
    monkeypatch.setattr("warehouse.ingest.imports.COMPACT_EVERY_ROWS", 3)  # the good rows boiled down between chunks too
    result = import_prices(history, "shop-history", bad_rows="quarantine")
    assert (result.prices, result.rows_quarantined, result.days) == (12, 2, 3)
    assert [reason.split(":")[0] for reason in result.first_reasons] == ["line 4", "line 11"]
    # each day's last price: 1497 (line 5, 03:00) on the 1st, 1493 on the 2nd, 1489 on the 3rd (line 13)
    assert rows(home, "SELECT observed_at::date::varchar, price::double FROM raw.offers ORDER BY 1") == [
        ("2026-01-01", 1497.0), ("2026-01-02", 1493.0), ("2026-01-03", 1489.0)]


def test_an_import_writes_under_a_memory_bound_and_gives_the_limit_back(home, tmp_path, monkeypatch):
    history = tmp_path / "bound.csv"
    history.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD,,,,\n")
    seen, checked = [], []
    original = warehouse.ingest.imports.write_runs

    def write_runs(connection, *arguments):
        seen.append(connection.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        return original(connection, *arguments)

    monkeypatch.setattr(warehouse.ingest.imports, "write_runs", write_runs)
    import_prices(history, "shop-history", on_checked=lambda: checked.append(
        sorted(path.name for path in home.rglob("*") if path.is_file())))
    assert seen == ["183.1 MiB"]  # the floor (192 MB) for a small warehouse, in DuckDB's words
    assert checked == [[]]  # called once, after the checks and before anything lands or loads
    with duckdb.connect(str(home / "gpuprices.duckdb")) as connection:
        assert connection.execute("SELECT current_setting('memory_limit')").fetchone()[0] != "183.1 MiB"
    refused = tmp_path / "refused.csv"
    refused.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,abc,USD,,,,\n")
    with pytest.raises(ImportFileError):
        import_prices(refused, "other-history", on_checked=lambda: checked.append("refused file"))
    assert checked == [[]]  # a file that cannot load starts nothing


def test_the_command_loads_dbt_once_the_file_is_checked_and_waits_for_it_on_every_path(home, tmp_path, monkeypatch):
    def slow_load():  # dbt may be loaded already in this process: a thread that takes its time instead
        thread = threading.Thread(target=time.sleep, args=(0.5,), name="load-dbt")
        thread.start()
        return thread

    monkeypatch.setattr(flows.cli.imports, "load_dbt_in_background", slow_load)
    builds = []
    monkeypatch.setattr(flows.cli.imports, "dbt_build", lambda: builds.append(
        [thread.name for thread in threading.enumerate() if thread.name == "load-dbt"]))
    history = tmp_path / "dbt.csv"
    history.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD,,,,\n")
    arguments = ["import", "prices", str(history), "--source", "shop-history"]
    assert cli(arguments) == 0 and builds == [["load-dbt"]]  # built while dbt was still loading
    assert cli(arguments) == 0 and len(builds) == 1  # already imported: no build, and the loading thread joined
    assert not [thread for thread in threading.enumerate() if thread.name == "load-dbt"]
    assert cli(["import", "prices", str(tmp_path / "missing.csv"), "--source", "shop-history"]) == 2
    assert len(builds) == 1 and not [thread for thread in threading.enumerate() if thread.name == "load-dbt"]


def test_an_insert_that_fails_raises_its_own_error_and_loads_nothing(home, tmp_path, monkeypatch):
    """The import runs on one DuckDB thread, the setting put back after its transaction (db.one_thread): put back
    inside it, after a failed insert, DuckDB refused that SET and its error replaced the insert's own."""
    history = tmp_path / "shop.csv"
    history.write_text("observed_at,gpu,market,price,currency\n2026-04-03T10:00:00Z,RTX 4090,retail_new,1999,USD\n")
    checked_file = warehouse.ingest.imports._check_file

    def without_offer_ids(*args, **kwargs):
        checked = checked_file(*args, **kwargs)
        checked.checked.accepted = checked.checked.accepted.with_columns(pl.lit(None, pl.String).alias("offer_id"))
        return checked

    monkeypatch.setattr(warehouse.ingest.imports, "_check_file", without_offer_ids)
    with pytest.raises(duckdb.ConstraintException, match="offer_id"):
        import_prices(history, "shop-a")
    assert rows(home, "SELECT count(*) FROM raw.offers")[0][0] == 0
    assert rows(home, "SELECT count(*) FROM raw.ingest_runs")[0][0] == 0
