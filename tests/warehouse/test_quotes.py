"""`gpuprices quotes load`: broker quotes from a CSV (tests/fixtures/quotes/example_quotes.csv is made up: the
format is ours, the amounts are examples)."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest
from conftest import FIXTURES

from warehouse.quotes import QuoteFileError, load_quotes, read_quotes

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
