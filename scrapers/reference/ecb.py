"""The ECB euro foreign exchange reference rates (about 30 currencies, published once per TARGET business day
around 16:00 CET). The warehouse converts every non-USD price with the rate of its observation date.

fetch: the daily file `eurofxref.zip` (one CSV: a header of currency codes, one row of rates). The history file
`eurofxref-hist.zip` has the same CSV shape with one row per day since 1999 (`gpuprices backfill ecb` loads it).
Formats, both real: the daily CSV writes dates as "30 October 2026" and pads every field with a space; the
history CSV writes "2026-10-30", "N/A" for currencies not quoted that day, and ends each line with a comma."""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from scrapers.base import Expectations, FxRate, Source
from scrapers.errors import ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated

DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref.zip"
HISTORY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"

def _csv_rows(document: RawDocument) -> list[list[str]]:
    body = document.body
    if body[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                names = [n for n in archive.namelist() if n.lower().endswith(".csv")]
                if len(names) != 1:
                    raise ParseError(f"ECB archive holds {len(names)} CSV files, expected one: {archive.namelist()}")
                body = archive.read(names[0])
        except zipfile.BadZipFile as error:
            raise ParseError(f"ECB archive is not a readable zip ({error}): truncated download?") from error
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ParseError(f"ECB file is not UTF-8 text: {error}") from error
    if text.lstrip().startswith("<"):
        raise ParseError("ECB answered with an HTML/XML page, not the CSV rates file")
    return [[field.strip() for field in row] for row in csv.reader(io.StringIO(text)) if row]


def _rate_date(text: str) -> date:
    for pattern in ("%Y-%m-%d", "%d %B %Y"):
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise ParseError(f"ECB rate date {text!r} is neither YYYY-MM-DD nor '30 October 2026'")


def parse_rates(documents: list[RawDocument], source_id: str) -> list[FxRate]:
    rates = []
    for index, document in enumerate(documents):
        rows = _csv_rows(document)
        if len(rows) < 2 or rows[0][0] != "Date":
            raise ParseError("ECB CSV without its 'Date, USD, JPY, ...' header and a row of rates")
        currencies = rows[0][1:]
        for row in rows[1:]:
            rate_date = _rate_date(row[0])
            for currency, text in zip(currencies, row[1:], strict=False):
                if not currency or not text or text == "N/A":
                    continue
                try:
                    rate = Decimal(text)
                except InvalidOperation as error:
                    raise ParseError(f"ECB rate {currency} on {rate_date}: {text!r} is not a number") from error
                if rate <= 0:
                    raise ParseError(f"ECB rate {currency} on {rate_date} is {rate}")
                rates.append(FxRate(source_id, rate_date, "EUR", currency, rate, index))
    return rates


class EcbReferenceRates(Source):
    id = "ecb-fx"
    kind = "fx"
    provider = "ecb"
    records = "fx_rates"
    description = "ECB euro reference exchange rates (daily file; `backfill ecb` for history)"
    pricing_types = ()
    hosts = ("www.ecb.europa.eu",)
    status = "real ECB files (daily and history, from a registry package's bundled copy) parsed in tests"
    expectations = Expectations(frozenset(), min_offers=20)
    offline = Generated("dev.recordings.rebuilt:ecb_daily_files",
                        "each replay day's daily file, rebuilt from the real history file (tests/fixtures/ecb)")

    def __init__(self, url: str = DAILY_URL):
        self.url = url

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(self.url, allowed_hosts=self.hosts)]

    def parse(self, documents: list[RawDocument]) -> list[FxRate]:
        return parse_rates(documents, self.id)
