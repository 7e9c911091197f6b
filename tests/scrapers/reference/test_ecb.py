"""ECB reference rates: the real daily and history files, their failure shapes, and the integrity check."""

from __future__ import annotations

import io
import zipfile
from datetime import date
from decimal import Decimal

import polars as pl
import pytest
from conftest import FIXTURES, raw_document

from scrapers.base import Expectations
from scrapers.reference.ecb import EcbReferenceRates
from warehouse.ingest.integrity import check_rates as check_rate_frame


def check_rates(rates, minimum: int) -> list[str]:
    """The pipeline's whole-result check of a rates source, on parsed rates."""
    frame = pl.DataFrame([{"rate_date": r.rate_date, "quote_currency": r.quote_currency, "rate": r.rate} for r in rates])
    return check_rate_frame(frame, Expectations(frozenset(), min_offers=minimum)).result_reasons
from scrapers.errors import ParseError

SOURCE = EcbReferenceRates()


def zipped(name: str, text: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        # a fixed member time: the bytes (and the test ids built from them) are the same in every xdist worker
        archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), text)
    return buffer.getvalue()


def test_daily_csv_with_spelled_out_date_and_padded_fields():
    rates = SOURCE.parse([raw_document((FIXTURES / "ecb" / "eurofxref.csv").read_bytes())])
    by_currency = {r.quote_currency: r for r in rates}
    assert {r.rate_date for r in rates} == {date(2026, 10, 30)}
    assert by_currency["USD"].rate == Decimal("1.1172") and by_currency["CNY"].rate == Decimal("7.4326")
    assert by_currency["GBP"].rate == Decimal("0.83380")  # exact as published, trailing zero kept
    assert all(r.base_currency == "EUR" for r in rates) and len(rates) >= 29
    assert check_rates(rates, SOURCE.expectations.min_offers) == []


def test_history_zip_skips_currencies_not_quoted_that_day():
    rates = SOURCE.parse([raw_document((FIXTURES / "ecb" / "eurofxref-hist.zip").read_bytes())])
    days = {r.rate_date for r in rates}
    assert min(days) == date(1999, 1, 4) and max(days) == date(2026, 10, 30)
    usd = {r.rate_date: r.rate for r in rates if r.quote_currency == "USD"}
    assert usd[date(2026, 10, 30)] == Decimal("1.1172")
    # Cyprus pound stopped in 2008: "N/A" afterwards, never a zero rate
    assert not any(r.quote_currency == "CYP" and r.rate_date.year > 2008 for r in rates)
    assert not any(r.quote_currency == "" for r in rates)  # the trailing comma of every line
    assert check_rates(rates, SOURCE.expectations.min_offers) == []


@pytest.mark.parametrize(("body", "message"), [
    (b"<html><title>Service Unavailable</title></html>", "HTML"),
    (zipped("eurofxref.csv", b"Date, USD, JPY\n")[:40], "truncated"),
    (b"Datum, USD\n30 October 2026, 1.1\n", "header"),
    (b"Date, USD\n31/10/2026, 1.1\n", "neither"),
    (b"Date, USD, JPY\n30 October 2026, 1.1O72, 170\n", "not a number"),
])
def test_a_changed_or_broken_file_is_a_parse_error(body, message):
    with pytest.raises(ParseError, match=message):
        SOURCE.parse([raw_document(body)])


def test_a_shifted_column_or_a_missing_dollar_holds_the_result_back():
    text = (FIXTURES / "ecb" / "eurofxref.csv").read_text()
    header, row = text.splitlines()[:2]
    shifted = header.replace("Date, USD, JPY", "Date, JPY, USD")  # USD now reads 175.68
    rates = SOURCE.parse([raw_document(f"{shifted}\n{row}\n".encode())])
    reasons = check_rates(rates, SOURCE.expectations.min_offers)
    assert any("USD 175.68 per EUR is outside" in reason for reason in reasons)
    no_usd = SOURCE.parse([raw_document(b"Date, JPY, CNY\n30 October 2026, 175.68, 7.43\n")])
    assert any("no USD rate" in reason for reason in check_rates(no_usd, 1))
    assert any("only 2 rates" in reason for reason in check_rates(no_usd, 20))
