"""The bundled real price histories (warehouse/ingest/histories.py) and the GCP converter that writes one of them
(dev/recordings/build_histories.py).

The GCP and idealo rows are real excerpts (tests/fixtures/history/, provenance in tests/fixtures/PROVENANCE.md);
the converter is run on them here, never on the sample it was built from (a user's clone has none)."""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import json
import zipfile
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from config.settings import PROJECT_ROOT
from dev.recordings.build_histories import (
    GCP_OUT,
    GCP_OUTPUT_COLUMNS,
    HistoryFileError,
    build_ecb,
    check_month_is_730_hours,
    gcp_machine,
    gcp_rows,
    write_csv_gz,
)
from scrapers.gpu_names import resolve_gpu_id
from warehouse.ingest.histories import (
    BUNDLED_HISTORIES,
    ECB_HISTORY,
    ECB_HISTORY_OBSERVED_AT,
    import_history,
    load_bundled_histories,
    load_ecb_history,
)

FIXTURES = PROJECT_ROOT / "tests" / "fixtures"
GCP_EXCERPT = FIXTURES / "history" / "gcp_gpu_instance_prices_excerpt.csv"
IDEALO_EXCERPT = FIXTURES / "history" / "idealo_daily_excerpt.csv"
HISTORIES = {history.source: history for history in BUNDLED_HISTORIES}


def excerpt_rows() -> list[dict]:
    with GCP_EXCERPT.open(newline="") as handle:
        return list(csv.DictReader(handle))


def converted(skipped: Counter | None = None) -> list[dict]:
    return gcp_rows(excerpt_rows(), Counter() if skipped is None else skipped)


def one(rows: list[dict], **where) -> dict:
    (found,) = [row for row in rows if all(row[key] == value for key, value in where.items())]
    return found


def rows(home: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        return connection.execute(sql).fetchall()


# -- the converter -----------------------------------------------------------------------------------------------------
def test_the_converter_writes_each_market_per_instance_hour_with_the_gpu_of_the_machine_family():
    out = converted()
    a100 = [row for row in out if row["title"] == "a2-highgpu-1g" and row["region"] == "us-central1"]
    assert {row["market"]: row["price"] for row in a100} == {
        "on_demand": "3.673385", "spot": "1.469355",  # the hourly figures as the file writes them
        "reserved_1y": "2.3142070400", "reserved_3y": "1.2857083260",  # month / 730
    }
    assert {(row["gpu"], row["per"], row["gpu_count"], row["currency"], row["provider"], row["observed_at"])
            for row in a100} == {("A100 40GB SXM4", "instance_hour", "1", "USD", "gcp", "2024-07-11T03:54:44Z")}
    h100 = one(out, title="a3-highgpu-8g", market="on_demand")
    assert (h100["gpu"], h100["gpu_count"], h100["price"]) == ("H100 80GB SXM", "8", "87.832465656")
    assert Decimal(h100["price"]) / 8 == pytest.approx(Decimal("10.979"), abs=Decimal("0.001"))  # per GPU-hour
    l4 = one(out, title="g2-standard-24", market="reserved_3y")
    assert (l4["gpu"], l4["gpu_count"]) == ("L4", "2")
    assert Decimal(l4["price"]) == (Decimal("657.2734507") / 730).quantize(Decimal("1e-10"))
    # every GPU name resolves to the catalogue's part (scrapers/gpu_names.py, as the importer resolves it)
    assert {row["gpu"]: resolve_gpu_id(row["gpu"], "gcp") for row in out} == {
        "A100 40GB SXM4": "a100-sxm4-40gb", "A100 80GB SXM4": "a100-sxm4-80gb", "H100 80GB SXM": "h100-sxm5-80gb",
        "L4": "l4-24gb"}


def test_the_month_is_730_hours_in_the_file_and_the_converter_refuses_a_row_where_it_is_not():
    for row in excerpt_rows():  # GCP's billing catalog: month = hour x 730 (to the 14th place of the hourly figure)
        assert abs(Decimal(row["month"]) - Decimal(row["hour"]) * 730) < Decimal("1e-6")
        check_month_is_730_hours(row)
    broken = {**excerpt_rows()[0], "month": "2500"}  # a 683.7-hour month
    with pytest.raises(HistoryFileError, match="730"):
        check_month_is_730_hours(broken)


def test_an_unknown_machine_type_or_gpu_count_fails_loudly():
    assert gcp_machine("a2-megagpu-16g", "16") == ("A100 40GB SXM4", 16)
    assert gcp_machine("g2-standard-48", "4") == ("L4", 4)
    with pytest.raises(HistoryFileError, match="unknown GCP machine type 'n1-standard-8'"):
        gcp_machine("n1-standard-8", "1")
    with pytest.raises(HistoryFileError, match="unknown GCP machine type 'g2-standard-6'"):
        gcp_machine("g2-standard-6", "1")
    with pytest.raises(HistoryFileError, match="documents 8"):
        gcp_machine("a3-highgpu-8g", "4")
    with pytest.raises(HistoryFileError, match="unknown gpu_model"):
        gcp_rows([{**excerpt_rows()[0], "gpu_model": "tpu-v5"}], Counter())


def test_implausible_prices_reach_the_importer_and_only_non_prices_of_the_gpu_are_left_out():
    skipped = Counter()
    out = converted(skipped)
    # a region listing the machine without its GPU part, and a 3-year price of 0: written, for the importer to hold
    # back with a reason
    assert {row["market"] for row in out if row["region"] == "northamerica-northeast2"} == {
        "on_demand", "spot", "reserved_1y", "reserved_3y"}
    assert one(out, region="europe-west8", market="reserved_3y")["price"] == "0.0000000000"
    # not prices of the machine's GPU: the 2022-09 ultragpu priced with the 40GB GPU; commitments equal to on-demand
    # (2022-10-18); commitments at 14% / 8% of on-demand (2022-10-06); and blanks
    assert not [row for row in out if row["observed_at"].startswith(("2022-09-29", "2022-10-18"))
                and row["market"] != "on_demand"]
    assert not [row for row in out if row["title"] == "a2-ultragpu-1g" and row["observed_at"].startswith("2022-09")]
    assert {row["market"] for row in out if row["observed_at"].startswith("2022-10-06")} == {"on_demand"}
    assert skipped == Counter({
        "priced with another GPU (gpu_model contradicts the machine type)": 1,
        "reserved_1y: equal to the on-demand (or 1-year) price: the file's fill-in where there was no commitment "
        "price": 1,
        "reserved_3y: equal to the on-demand (or 1-year) price: the file's fill-in where there was no commitment "
        "price": 1,
        "reserved_1y: under 25% of the same machine's on-demand price: the machine part without its GPU (GCP's "
        "deepest commitment, 3 years, is 55-66% off)": 1,
        "reserved_3y: under 25% of the same machine's on-demand price: the machine part without its GPU (GCP's "
        "deepest commitment, 3 years, is 55-66% off)": 1,
        "reserved_1y: blank": 1, "reserved_3y: blank": 1,
        "spot: blank": 3,  # before 2023-05: europe-west8 (2022-04) and the two ultragpu rows of 2022-10 written
    })


def test_the_bundled_gcp_file_is_the_converters_output():
    header, *lines = gzip.decompress(GCP_OUT.read_bytes()).decode().splitlines()
    assert tuple(header.split(",")) == GCP_OUTPUT_COLUMNS
    assert Counter(line.split(",")[2] for line in lines) == Counter(  # no field of it holds a comma
        on_demand=124360, spot=102178, reserved_1y=96485, reserved_3y=95825)
    # the excerpt's rows, converted here, are in the bundled file as they are
    text = io.StringIO()
    csv.DictWriter(text, GCP_OUTPUT_COLUMNS, lineterminator="\n").writerows(converted())
    assert set(text.getvalue().splitlines()) <= set(lines)


# -- the bundled histories and how they load ---------------------------------------------------------------------------
def test_every_bundled_history_is_there_with_its_provenance_and_the_ecb_history_ends_before_the_replay():
    assert set(HISTORIES) == {"keepa-amazon", "gcp-list-history", "idealo-de"}
    for history in BUNDLED_HISTORIES:
        assert history.paths(), history.source
        notes = [history.folder / name for name in ("PROVENANCE.md", "README.md")]
        assert any(note.exists() for note in notes), history.source
    assert len(HISTORIES["keepa-amazon"].paths()) == 8
    assert "Apache" in (HISTORIES["gcp-list-history"].folder / "PROVENANCE.md").read_text()
    assert "MIT" in (HISTORIES["idealo-de"].folder / "PROVENANCE.md").read_text()
    # the ECB history stops the day before the replay's first daily ECB file: no rate date is in both
    with zipfile.ZipFile(ECB_HISTORY) as archive:
        lines = archive.read("eurofxref-hist.csv").decode().splitlines()
    replayed = [entry["recorded_at"] for entry in json.loads((PROJECT_ROOT / "recordings/index.json").read_text())[
        "recordings"] if entry["source"] == "ecb-fx"]
    assert lines[1][:10] == ECB_HISTORY_OBSERVED_AT.date().isoformat() < min(replayed)[:10]
    assert (lines[0].split(",")[:2], lines[-1][:10]) == (["Date", "USD"], "1999-01-04")


def test_the_bundled_ecb_history_is_the_real_file_cut_line_for_line(tmp_path):
    rebuilt = tmp_path / "ecb.zip"
    build_ecb(out=rebuilt)
    assert rebuilt.read_bytes() == ECB_HISTORY.read_bytes()  # reproducible, so it imports once
    with zipfile.ZipFile(FIXTURES / "ecb" / "eurofxref-hist.zip") as archive:
        real = archive.read("eurofxref-hist.csv").decode().splitlines(keepends=True)
    with zipfile.ZipFile(ECB_HISTORY) as archive:
        cut = archive.read("eurofxref-hist.csv").decode().splitlines(keepends=True)
    assert cut[0] == real[0] and set(cut) <= set(real) and len(cut) == 6978


def gcp_excerpt_file(tmp_path) -> Path:
    path = tmp_path / "gcp_gpu_prices.csv.gz"
    write_csv_gz(path, GCP_OUTPUT_COLUMNS, converted())
    return path


def test_each_history_imports_with_its_counts_and_a_gpu_less_region_is_quarantined_with_its_reason(home, tmp_path):
    gcp = dataclasses.replace(HISTORIES["gcp-list-history"], folder=tmp_path, pattern="gcp_*.csv.gz")
    gcp_excerpt_file(tmp_path)
    idealo = dataclasses.replace(HISTORIES["idealo-de"], folder=IDEALO_EXCERPT.parent, pattern=IDEALO_EXCERPT.name)
    keepa = dataclasses.replace(HISTORIES["keepa-amazon"], pattern="NVIDIA_RTX_2000_Ada_Generation.json")
    entries = load_bundled_histories((keepa, gcp, idealo), ecb_history=None)
    by_source = {entry["source"]: entry for entry in entries}
    assert [entry["error"] for entry in entries] == [None, None, None]
    assert (by_source["keepa-amazon"]["prices"], by_source["keepa-amazon"]["quarantined"]) == (104, 0)
    # GCP: the excerpt's 39 prices on 6 days; the 4 of northamerica-northeast2 (the A100 machine without its A100)
    # and the 3-year price of 0 are held back, each with its line and reason; the rest loads
    gcp_entry = by_source["gcp-list-history"]
    assert (gcp_entry["prices"], gcp_entry["loaded"], gcp_entry["quarantined"], gcp_entry["days"]) == (39, 34, 5, 6)
    assert any("relative_outlier (0.814064 USD)" in reason for reason in gcp_entry["first_reasons"])
    assert any("not a positive amount" in reason for reason in gcp_entry["first_reasons"])
    held = rows(home, "SELECT reason, json_extract_string(detail, '$.region'), json_extract_string(detail, "
                      "'$.pricing_type') FROM raw.quarantine WHERE source = 'gcp-list-history' ORDER BY ALL")
    assert held == [("price '0.0000000000' is not a positive amount", "europe-west8", None)] + [
        ("relative_outlier", "northamerica-northeast2", market)
        for market in ("on_demand", "reserved_1y", "reserved_3y", "spot")]
    loaded = dict(rows(home, "SELECT region, count(*) FROM raw.offers WHERE source = 'gcp-list-history' "
                             "AND gpu_id = 'a100-sxm4-40gb' GROUP BY 1"))
    assert "northamerica-northeast2" not in loaded and loaded["us-central1"] == 4
    per_gpu_hour = dict(rows(home, "SELECT title, price_per_unit FROM raw.offers WHERE source = 'gcp-list-history' "
                                   "AND pricing_type = 'on_demand' AND region = 'us-central1'"))
    assert per_gpu_hour["a3-highgpu-8g"] == Decimal("10.979058")  # 87.832465656 / 8
    assert per_gpu_hour["g2-standard-24"] == Decimal("1.000416")  # 2.000832574 / 2
    # idealo: 9 rows, the GTX 1080 Ti listing twice a day under two gpu_types is one offer a day
    assert (by_source["idealo-de"]["prices"], by_source["idealo-de"]["loaded"]) == (9, 6)
    cards = rows(home, "SELECT gpu_id, currency, count(*), min(price) FROM raw.offers WHERE source = 'idealo-de' "
                       "GROUP BY ALL ORDER BY 1")
    assert cards == [("gtx-1080-8gb", "EUR", 3, Decimal("578")), ("gtx-1080-ti-11gb", "EUR", 3, Decimal("725.95"))]
    # the same files again: nothing changes
    assert all(entry["already_loaded"] for entry in load_bundled_histories((keepa, gcp, idealo), ecb_history=None))


def test_reading_idealo_s_gpu_type_would_price_a_gtx_1080_at_a_1080_ti_s_price(home):
    by_type = dataclasses.replace(HISTORIES["idealo-de"], folder=IDEALO_EXCERPT.parent, pattern=IDEALO_EXCERPT.name,
                                  columns={**HISTORIES["idealo-de"].columns, "gpu": "gpu_type"})
    entry = import_history(by_type, IDEALO_EXCERPT)
    assert entry["loaded"] == 9  # the trap the bundled column map avoids
    assert rows(home, "SELECT max(price) FROM raw.offers WHERE gpu_id = 'gtx-1080-8gb'") == [(Decimal("725.95"),)]


def test_the_ecb_history_loads_once_through_the_backfill_path(home, tmp_path):
    short = tmp_path / "eurofxref-hist.zip"
    build_ecb(out=short, last_day=datetime(1999, 1, 8).date())  # the real file's first 5 days
    observed = datetime(1999, 1, 8, 16, tzinfo=UTC)
    entry = load_ecb_history(short, observed)
    assert (entry["source"], entry["kind"], entry["error"], entry["already_loaded"]) == (
        "ecb-fx", "fx_rates", None, False)
    assert entry["loaded"] == entry["prices"] == 27 + 27 + 27 + 27 + 27
    assert rows(home, "SELECT DISTINCT trigger, observed_at FROM raw.ingest_runs") == [("backfill", observed)]
    assert load_ecb_history(short, observed)["already_loaded"]


def test_a_history_that_cannot_load_is_reported_not_raised(home, tmp_path):
    broken = tmp_path / "gcp_broken.csv.gz"
    broken.write_bytes(gzip.compress(b"observed_at,gpu\n2024-01-01,L4\n"))
    history = dataclasses.replace(HISTORIES["gcp-list-history"], folder=tmp_path, pattern="gcp_broken.csv.gz")
    (entry,) = load_bundled_histories((history,), ecb_history=None)
    assert entry["loaded"] == 0 and "missing column" in entry["error"]
    assert io.StringIO(entry["error"]).read().count("\n") == 0  # one line, for the console summary
