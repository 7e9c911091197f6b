"""Broker and reseller quotes (`gpuprices quotes load FILE.csv`): many datacenter GPUs are bought by quote, not
from a web page. A quote is a dated low-high range for one GPU in one currency with a note on where it came from,
e.g. an A100 quoted at ¥100k-200k. The file loads whole or not at all: a bad line is reported with its number.
A line is bad when its date is outside the observation window (warehouse/ingest/imports.py: 2006 to a day from now), its GPU
name matches nothing the alias table or the catalogue knows, an amount is not a plain number or rounds to 0 at 4
decimals, or low is above high. `gpuprices import undo LOAD_ID` retracts a loaded file (warehouse/ingest/retractions.py)."""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from scrapers.gpu_names import resolve_gpu_id
from warehouse.store import db
from warehouse.ingest.imports import observation_window, outside_window
from warehouse.ingest.load import transaction
from warehouse.ingest.retractions import retraction_of

COLUMNS = ("date", "gpu", "low", "high", "currency", "source_note")
_AMOUNT = re.compile(r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(k|m|万)?\s*$", re.I)
_MULTIPLIERS = {None: 1, "k": 1_000, "m": 1_000_000, "万": 10_000}
AMOUNT_QUANTUM = Decimal("0.0001")  # raw.quotes.low_price / high_price are DECIMAL(24, 4)


class QuoteFileError(ValueError):
    """The file cannot load; the message lists every bad line."""


@dataclass(frozen=True)
class Quote:
    line: int
    quote_date: date
    raw_gpu_name: str
    gpu_id: str | None
    low: Decimal
    high: Decimal
    currency: str
    source_note: str


def _amount(text: str) -> Decimal:
    match = _AMOUNT.match(text or "")
    if not match:
        raise ValueError(f"amount {text!r} is not a number (100000, 100k, 10万)")
    try:
        value = Decimal(match.group(1).replace(",", "")) * _MULTIPLIERS[match.group(2) and match.group(2).lower()]
    except InvalidOperation as error:
        raise ValueError(f"amount {text!r} is not a number") from error
    if value <= 0:
        raise ValueError(f"amount {text!r} is not positive")
    if value.quantize(AMOUNT_QUANTUM) == 0:
        raise ValueError(f"amount {text!r} rounds to 0 at 4 decimals")
    return value


def read_quotes(path: Path) -> list[Quote]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        names = [name.strip() for name in reader.fieldnames or []]
        twice = sorted({name for name in names if name and names.count(name) > 1})
        if twice:  # csv.DictReader keeps the last of two same-named columns: which one was meant is a guess
            raise QuoteFileError(f"{path}: the header names column(s) {', '.join(twice)} twice: name each column once")
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise QuoteFileError(f"{path}: missing column(s) {', '.join(missing)}; expected {', '.join(COLUMNS)}")
        quotes, problems = [], []
        earliest, latest = observation_window()
        for line, row in enumerate(reader, start=2):
            try:
                low, high = _amount(row["low"]), _amount(row["high"] or row["low"])
                if low > high:
                    raise ValueError(f"low {low} is above high {high}")
                currency = (row["currency"] or "").strip().upper()
                if not re.fullmatch(r"[A-Z]{3}", currency):
                    raise ValueError(f"currency {row['currency']!r} is not an ISO 4217 code (USD, CNY, EUR)")
                gpu = (row["gpu"] or "").strip()
                if not gpu:
                    raise ValueError("no GPU named")
                gpu_id = resolve_gpu_id(gpu, "quotes")  # as the build resolves it (meta.gpu_name_matches)
                if gpu_id is None:
                    raise ValueError(f"gpu {gpu!r} is not a GPU the alias table or the GPU catalogue knows")
                quote_date = date.fromisoformat(row["date"].strip())
                if not earliest.date() <= quote_date <= latest.date():
                    raise ValueError(outside_window(f"date {row['date'].strip()!r}", earliest, latest))
                quotes.append(Quote(line, quote_date, gpu, gpu_id, low, high, currency,
                                    (row["source_note"] or "").strip()))
            except (ValueError, TypeError, AttributeError) as error:
                problems.append(f"line {line}: {error}")
    if problems:
        raise QuoteFileError(f"{path}: nothing loaded; fix these lines:\n  " + "\n  ".join(problems))
    if not quotes:
        raise QuoteFileError(f"{path}: no quotes in the file")
    return quotes


def load_quotes(path: Path) -> tuple[str, int, bool]:
    """(load id, quotes loaded, already loaded): the same file twice loads once."""
    quotes = read_quotes(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    load_id = f"quotes-{digest[:16]}"
    with db.connect() as connection, transaction(connection):
        if connection.execute("SELECT count(*) FROM raw.quotes WHERE load_id = ?", [load_id]).fetchone()[0]:
            retracted = retraction_of(connection, load_id)
            if retracted:  # raw rows are never deleted: the same bytes would load under the retracted load id
                raise QuoteFileError(f"{path}: loaded as {load_id} and retracted {retracted}; the same file does "
                                     "not load again (change it, e.g. correct the line that was wrong)")
            return load_id, 0, True
        loaded_at = datetime.now(UTC)
        connection.executemany(
            "INSERT INTO raw.quotes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [[load_id, q.line, q.quote_date, q.raw_gpu_name, q.gpu_id, q.low, q.high, q.currency, q.source_note,
              str(path.name), loaded_at] for q in quotes],
        )
    return load_id, len(quotes), False
