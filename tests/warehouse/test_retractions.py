"""`gpuprices import undo IMPORT_ID --reason TEXT` and `gpuprices import list`: a whole import taken back. The raw
rows stay (append-only), raw.retractions says when and why, and every model leaves them out from the next build.

The CSVs are written here (the format is ours, the amounts examples); the quotes are the made-up example file."""

from __future__ import annotations

import json

import duckdb
import pytest
from conftest import FIXTURES, gpuprices

from flows.cli.main import main as cli
from warehouse.ingest.imports import ImportFileError, import_prices
from warehouse.ingest.quotes import QuoteFileError, load_quotes
from warehouse.ingest.retractions import RetractionError, list_imports, undo_import

HEADER = "observed_at,gpu,market,price,currency\n"
QUOTES = FIXTURES / "quotes" / "example_quotes.csv"


def rows(home, sql, parameters=None):
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        return connection.execute(sql, parameters).fetchall()


def two_imports(tmp_path):
    kept, wrong = tmp_path / "kept.csv", tmp_path / "wrong.csv"
    kept.write_text(HEADER + "2026-01-01,Tesla T4,retail_new,1500,USD\n2026-01-02,Tesla T4,retail_new,1450,USD\n")
    # a file of the wrong shop: its RTX 4090 is on 01-02 (a day the other import holds too) and 01-03 (its alone)
    wrong.write_text(HEADER + "2026-01-02,RTX 4090,retail_new,1999,USD\n2026-01-03,RTX 4090,retail_new,1899,USD\n")
    return import_prices(kept, "shop-a").file_run_id, import_prices(wrong, "shop-b").file_run_id


@pytest.mark.slow  # two dbt builds
def test_undo_takes_a_whole_import_out_of_every_mart_at_the_next_build_and_keeps_its_raw_rows(home, tmp_path):
    kept_id, wrong_id = two_imports(tmp_path)
    load_id, _, _ = load_quotes(QUOTES)
    gpuprices(home, "build")
    cards = "SELECT price_date::varchar, gpu_id FROM marts.gpu_prices_daily ORDER BY ALL"
    assert rows(home, cards) == [("2026-01-01", "t4-16gb"), ("2026-01-02", "rtx-4090-24gb"),
                                 ("2026-01-02", "t4-16gb"), ("2026-01-03", "rtx-4090-24gb")]
    assert rows(home, "SELECT count(*) FROM marts.gpu_quotes")[0][0] == 3
    offers = rows(home, "SELECT count(*) FROM raw.offers")[0][0]

    undone = gpuprices(home, "import", "undo", wrong_id, "--reason", "wrong shop's file", "--no-build")
    assert f"{wrong_id}: retracted (2 offers on 2 day(s) of shop-b)" in undone.stdout
    gpuprices(home, "import", "undo", load_id, "--reason", "made-up quotes", "--no-build")
    built = gpuprices(home, "build")  # a full rebuild: a retracted day may be left with no rows at all
    assert "1 price import(s) retracted since the last build" in built.stdout + built.stderr
    # every mart leaves the import out: 01-03 (its own day) is gone, 01-02 keeps the other import's T4
    assert rows(home, cards) == [("2026-01-01", "t4-16gb"), ("2026-01-02", "t4-16gb")]
    assert rows(home, "SELECT count(*) FROM marts.gpu_prices_by_source_daily WHERE source = 'shop-b'")[0][0] == 0
    assert rows(home, "SELECT count(*) FROM marts.gpu_quotes")[0][0] == 0
    # the raw rows stay, marked retracted with when and why
    assert rows(home, "SELECT count(*) FROM raw.offers")[0][0] == offers
    assert rows(home, "SELECT import_id, kind, count(*), any_value(reason) FROM raw.retractions GROUP BY ALL "
                      "ORDER BY kind") == [(wrong_id, "prices", 2, "wrong shop's file"),
                                           (load_id, "quotes", 1, "made-up quotes")]
    listed = {entry["import_id"]: entry for entry in map(json.loads, gpuprices(home, "import", "list", "--json")
                                                         .stdout.splitlines())}
    assert listed[kept_id]["retracted_at"] is None and listed[wrong_id]["reason"] == "wrong shop's file"
    assert listed[load_id]["kind"] == "quotes" and listed[load_id]["retracted_at"]
    # a build with nothing new since is incremental again
    again = gpuprices(home, "build")
    assert "incremental" in again.stdout + again.stderr


def test_import_list_names_each_import_and_undo_marks_it_retracted_with_when_and_why(home, tmp_path, capsys):
    kept_id, wrong_id = two_imports(tmp_path)
    load_id, _, _ = load_quotes(QUOTES)
    listed = list_imports()
    assert [(e["import_id"], e["kind"], e["source"], e["file"], e["first_day"], e["last_day"], e["days"], e["rows"],
             e["retracted_at"]) for e in listed] == [
        (kept_id, "prices", "shop-a", "kept.csv", "2026-01-01", "2026-01-02", 2, 2, None),
        (wrong_id, "prices", "shop-b", "wrong.csv", "2026-01-02", "2026-01-03", 2, 2, None),
        (load_id, "quotes", None, "example_quotes.csv", "2026-04-03", "2026-04-06", 2, 3, None)]
    assert cli(["import", "list"]) == 0
    table = capsys.readouterr().out
    assert wrong_id in table and "2026-01-02 to 2026-01-03 (2)" in table and "(3 rows)" in table

    assert cli(["import", "undo", wrong_id, "--reason", "wrong shop", "--no-build"]) == 0
    assert "retracted (2 offers on 2 day(s) of shop-b)" in capsys.readouterr().out
    retracted = {e["import_id"]: e for e in list_imports()}[wrong_id]
    assert retracted["reason"] == "wrong shop" and retracted["retracted_at"] is not None
    assert cli(["import", "list"]) == 0
    assert "UTC: wrong shop" in capsys.readouterr().out
    # the staging layer, the one place that filters, leaves out its runs and offers (the models build on it)
    assert rows(home, "SELECT count(*) FROM raw.ingest_runs WHERE starts_with(run_id, ?)", [wrong_id])[0][0] == 2
    # again: nothing changes, the first retraction stands
    again = undo_import(wrong_id, "another reason")
    assert again.already and again.reason == "wrong shop"
    assert rows(home, "SELECT count(*) FROM raw.retractions")[0][0] == 2

    # what cannot be retracted is one line, exit 2, nothing written
    for arguments, reason in (([wrong_id[:-3], "--reason", "x"], "no import"), (["quotes-0", "--reason", "x"],
                              "no import"), ([kept_id, "--reason", "  "], "say why"),
                              ([kept_id, "--reason", "bad\x1b[2J"], "control characters")):
        assert cli(["import", "undo", *arguments, "--no-build"]) == 2
        error = capsys.readouterr().err
        assert reason in error and error.count("\n") == 1, error
    assert rows(home, "SELECT count(*) FROM raw.retractions")[0][0] == 2
    result = gpuprices(home, "import", "undo", kept_id, "--no-build", check=False)  # --reason is required
    assert result.returncode == 2 and "--reason" in result.stderr and "Traceback" not in result.stderr


def test_a_retracted_file_does_not_import_again_and_frees_its_days_for_a_corrected_file(home, tmp_path):
    _, wrong_id = two_imports(tmp_path)
    undo_import(wrong_id, "wrong prices")
    with pytest.raises(ImportFileError, match=r"retracted on .* \(wrong prices\); the same file does not import"):
        import_prices(tmp_path / "wrong.csv", "shop-b")
    corrected = tmp_path / "corrected.csv"
    corrected.write_text(HEADER + "2026-01-02,RTX 4090,retail_new,1799,USD\n2026-01-03,RTX 4090,retail_new,1749,USD\n")
    result = import_prices(corrected, "shop-b")
    assert (result.days, result.offers_loaded) == (2, 2)  # the retracted file holds no day any more
    load_id, _, _ = load_quotes(QUOTES)
    undo_import(load_id, "made up")
    with pytest.raises(QuoteFileError, match="retracted on .* the same file does not load again"):
        load_quotes(QUOTES)


def test_a_point_in_time_query_sees_a_retraction_from_the_moment_it_was_made(home, tmp_path):
    _, wrong_id = two_imports(tmp_path)
    before = rows(home, "SELECT now()")[0][0]
    undo_import(wrong_id, "wrong shop")
    as_of = "SELECT DISTINCT source FROM raw.offers_as_of(TIMESTAMPTZ '2026-01-03 23:00:00+00'{}) ORDER BY 1"
    assert rows(home, as_of.format("")) == [("shop-a",)]
    assert rows(home, as_of.format(", known_at := ?"), [before]) == [("shop-a",), ("shop-b",)]


def test_undo_without_a_warehouse_is_one_line(home):
    with pytest.raises(RetractionError, match="no warehouse at"):
        undo_import("shop-x-1", "typo")
    assert not (home / "gpuprices.duckdb").exists()
