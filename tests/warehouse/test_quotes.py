"""`gpuprices quotes load`: broker quotes from a CSV (tests/fixtures/quotes/example_quotes.csv is made up: the
format is ours, the amounts are examples)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import duckdb
import pytest
from conftest import FIXTURES

from warehouse.ingest.quotes import QuoteFileError, load_quotes, read_quotes

EXAMPLE = FIXTURES / "quotes" / "example_quotes.csv"


def test_amounts_with_k_wan_and_thousands_separators():
    quotes = read_quotes(EXAMPLE)
    assert [(q.low, q.high, q.currency) for q in quotes] == [
        (Decimal("100000"), Decimal("200000"), "CNY"),
        (Decimal("235000.0"), Decimal("250000"), "CNY"),
        (Decimal("25000"), Decimal("30000"), "USD"),
    ]
    assert [q.gpu_id for q in quotes] == ["a100-sxm4-80gb", "h800-sxm5-80gb", "h100-sxm5-80gb"]


def test_the_same_file_loads_once(home):
    load_id, count, already = load_quotes(EXAMPLE)
    assert count == 3 and not already
    assert load_quotes(EXAMPLE) == (load_id, 0, True)
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM raw.quotes").fetchone()[0] == 3


def test_a_bad_file_loads_nothing_and_names_every_bad_line(home, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "date,gpu,low,high,currency,source_note\n"
        "2026-04-03,H800,200k,100k,CNY,low above high\n"
        "2026-13-01,H800,1,2,CNY,bad date\n"
        "2026-04-03,H800,0,0,CNY,zero\n"
        "2026-04-03,H800,1,2,yuan,not ISO\n"
        "2026-04-03,H800,1,2,CNY,fine\n"
    )
    with pytest.raises(QuoteFileError) as raised:
        load_quotes(bad)
    message = str(raised.value)
    for line in ("line 2", "line 3", "line 4", "line 5"):
        assert line in message
    assert "line 6" not in message
    assert not (home / "gpuprices.duckdb").exists()  # refused before the warehouse was even opened
    missing = tmp_path / "missing.csv"
    missing.write_text("date,gpu,price\n2026-04-03,H800,1\n")
    with pytest.raises(QuoteFileError, match="missing column"):
        read_quotes(missing)


def test_a_quote_must_name_a_known_gpu_a_date_in_the_window_and_an_amount_that_holds(home, tmp_path):
    """As price imports: a GPU name that matches nothing, a date before 2006 or after a day from now, an amount that
    rounds to 0 at raw.quotes' 4 decimals are bad lines; a column named twice refuses the file."""
    ahead = (date.today() + timedelta(days=3)).isoformat()
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "date,gpu,low,high,currency,source_note\n"
        "2026-04-03,Tesla T9,1,2,USD,no such GPU\n"
        "9999-12-31,H800,1,2,CNY,placeholder date\n"
        "2099-01-01,H800,1,2,CNY,a typo\n"
        "1900-01-01,H800,1,2,CNY,a typo\n"
        f"{ahead},H800,1,2,CNY,not yet\n"
        "2026-04-03,H800,0.00001,2,CNY,rounds to 0\n"
        "2026-04-03,H800,1_000,2_000,CNY,underscores\n"
        "2026-04-03,H800,1,2,CNY,fine\n"
    )
    with pytest.raises(QuoteFileError) as raised:
        load_quotes(bad)
    message = str(raised.value)
    assert "line 2: gpu 'Tesla T9' is not a GPU the alias table or the GPU catalogue knows" in message
    for line, value in ((3, "9999-12-31"), (4, "2099-01-01"), (5, "1900-01-01"), (6, ahead)):
        assert f"line {line}: date '{value}' is outside the observation window (2006-01-01" in message
    assert "line 7: amount '0.00001' rounds to 0 at 4 decimals" in message
    assert "line 8: amount '1_000' is not a number" in message and "line 9" not in message
    assert not (home / "gpuprices.duckdb").exists()
    twice = tmp_path / "twice.csv"
    twice.write_text("date,gpu,low,high,currency,source_note,low\n2026-04-03,H800,1,2,CNY,x,3\n")
    with pytest.raises(QuoteFileError, match=r"the header names column\(s\) low twice"):
        read_quotes(twice)
