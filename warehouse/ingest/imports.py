"""Price history someone else observed (`gpuprices import prices FILE --source NAME`): a CSV of dated prices (in the
import's columns, or another shape through a column map; gzip read through), or a Keepa export (`--format keepa`:
{"gpu_name": ..., "prices": {"<timestamp>": price}}).

Imported prices are real observations (not synthetic) and land like scraped ones:
- the file is landed as it is (decompressed; landing/<NAME>/<day of its last good observation>/<run id>/,
  data_origin `imported`);
- each day of the file becomes one source-run of NAME (trigger `import`), holding the day's last price of each offer,
  as a daily scrape would have seen it; the models treat those runs like any other;
- every line is checked (the GPU name, the market, the price, its time inside the observation window, and the
  integrity rules a scraped row meets) before anything is written; values are strict (ASCII digits, a whole GPU
  count or a share 1/N of one GPU, no positive price that rounds to 0, no column named twice).
  `bad_rows="refuse"` (the default): a bad line is named with its number and nothing loads; `"quarantine"`: the
  good rows load and each bad one goes to raw.quarantine with its line and reason;
- fast on long histories: the rows are checked column-wise (polars), each distinct name, market and date (and any
  price that is not a plain decimal) once in Python, not one Offer per row; money stays exact (DECIMAL, and the
  price per GPU-hour or card in 128-bit integers, rounded half-even once as warehouse/ingest/normalize.py rounds it);
- idempotent by content: the run ids derive from the file's bytes, so the same file loads once;
- taken back whole with `gpuprices import undo` (warehouse/ingest/retractions.py): the rows stay, the models leave them out.
"""

from __future__ import annotations

import codecs
import csv
import functools
import gzip
import hashlib
import io
import itertools
import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext
from fractions import Fraction
from pathlib import Path
from typing import BinaryIO

import polars as pl

from config import settings
from scrapers.base import CHANNELS, Expectations, Offer, rental_channel
from scrapers.gpu_names import SEEDS, form_factor_unstated, name_key, resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.registry import SOURCE_IDS
from warehouse.store import db
from warehouse.ingest.integrity import IntegrityResult, check
from warehouse.store.landing import compute_run_id, land
from warehouse.ingest.load import IngestRecord, transaction, write_runs
from warehouse.store.markets import IMPORT_MARKETS, MARKETS
from warehouse.ingest.normalize import OFFER_SCHEMA
from warehouse.store.progress import utc_now
from warehouse.ingest.retractions import retraction_of

FORMATS = ("csv", "keepa")
BAD_ROWS = ("refuse", "quarantine")  # a bad row fails the file | the good rows load, the bad ones are held back
CSV_COLUMNS = ("observed_at", "gpu", "market", "price", "currency")
CSV_OPTIONAL_COLUMNS = ("provider", "region", "url", "title", "condition", "per", "gpu_count", "channel")
IMPORT_COLUMNS = CSV_COLUMNS + CSV_OPTIONAL_COLUMNS  # the targets of a column map (--columns)
FIRST_REASONS = 5  # bad rows named in an import's result and summary
VALIDATION_CHUNK_ROWS = 50_000  # rows checked at once by the field rules (_check_file): bounds the working memory
MAX_PRICE = Decimal(10) ** 14  # raw.offers.price is DECIMAL(24, 10)
PRICE_QUANTUM = Decimal("1e-10")
# the working columns of a file's rows (apart from any column a file may have)
LINE, AT, ERROR, FIELDS_ERROR, ROW_OBSERVED = "__line", "__at", "__error", "__fields_error", "__row_observed_at"
PER_UNITS = {"card": "card", "gpu_hour": "gpu_hour", "instance_hour": "instance_hour"}
USED_CONDITIONS = MARKETS["retail_used"].condition
IMPORT_PARSER_VERSION = 1
KEEPA_PROVIDER = "amazon"  # Keepa tracks Amazon listings; its price history is Amazon's
# The window an observation's time must fall in. Not before 2006, the year the first CUDA GPU (the GeForce 8800
# GTX, November 2006) came out: no market of GPUs for compute is older, and the oldest GPU of the specs table is from
# 2014. Not after a day from now (a clock ahead of UTC, never more). A time outside it is a typo (1900, 2099) or a
# placeholder (9999-12-31): a bad row, never a day in the marts.
EARLIEST_OBSERVATION = datetime(2006, 1, 1, tzinfo=UTC)
LATEST_AHEAD = timedelta(days=1)
# Numbers as people write them: ASCII digits, an optional sign, point and exponent. Python's Decimal, int and
# Fraction also take "1_699" and other scripts' digits ("١٦٩٩"): never what a price file means.
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_COUNT = re.compile(r"^(?:[0-9]+(?:\.[0-9]+)?|[0-9]+/[0-9]+)$")
MAX_GPU_COUNT = 10**6  # raw.offers.gpu_count is DECIMAL(12, 6)
_SOURCE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# An import has no expected GPUs or offer count; the row rules (price > 0, price bands) still apply.
IMPORT_EXPECTATIONS = Expectations(expected_gpu_ids=frozenset(), min_offers=1, max_rejected_share=1.0)


class ImportFileError(ValueError):
    """The file cannot load; the message names the bad lines. Nothing was written."""


@dataclass(frozen=True)
class ImportedPrice:
    line: str  # "line 12" (CSV) or "entry 2020-06-18T20:22:00" (Keepa): how an error names it
    observed_at: datetime
    offer: Offer


@dataclass(frozen=True)
class ImportResult:
    source: str
    file_run_id: str
    prices: int  # observations read from the file (rows; a blank line is none)
    days: int  # source-runs written (one per day)
    offers_loaded: int  # the days' last prices per offer
    already_loaded: bool
    first_day: date
    last_day: date
    rows_quarantined: int = 0  # bad rows held back (--bad-rows quarantine), each in raw.quarantine with its line
    first_reasons: list[str] = field(default_factory=list)  # the first FIRST_REASONS bad rows: "line 12: reason"
    rows_form_factor_unstated: int = 0  # of the bad rows: a datacenter GPU whose name does not say SXM/PCIe/NVL


def check_source_name(name: str) -> str:
    if not _SOURCE_NAME.match(name or ""):
        raise ImportFileError(f"--source {name!r}: use lower-case letters, digits, '.', '_' or '-' (e.g. keepa-amazon)")
    if name in SOURCE_IDS:
        raise ImportFileError(f"--source {name!r} is a scraper's source id; name the import apart "
                              f"(e.g. {name}-history) so the two never replace each other's days")
    return name


def parse_columns(text: str | None) -> dict[str, str]:
    """`--columns observed_at=date,price=price_eur_lowest,gpu=gpu_type`: import column -> the file's own column."""
    mapping: dict[str, str] = {}
    for part in (text or "").split(","):
        target, equals, column = (piece.strip() for piece in part.partition("="))
        if not equals or not target or not column:
            raise ImportFileError(f"--columns {text!r}: write IMPORT_COLUMN=FILE_COLUMN pairs separated by commas "
                                  "(observed_at=date,price=price_eur_lowest)")
        if target not in IMPORT_COLUMNS:
            raise ImportFileError(f"--columns: {target!r} is not an import column (one of {', '.join(IMPORT_COLUMNS)})")
        if target in mapping:
            raise ImportFileError(f"--columns: {target!r} is mapped twice")
        mapping[target] = column
    return mapping


# -- reading the file: one pass, streamed, bounded -------------------------------------------------------------------
READ_CHUNK_BYTES = 8 * 1024**2  # read (and decompressed) at a time
KEEPA_MAX_BYTES = 64 * 1024**2  # a Keepa history is one JSON document, read whole: years of prices are ~100 KB
# Good rows that may come before those held are boiled down to each offer's last of a day: at every batch the boiling
# cost the 300 MB history (2.9M rows, 387,000 kept) ~10 s of CPU, at 250,000 rows ~2 s and ~150 MB more at its peak
COMPACT_EVERY_ROWS = 250_000
SHOWN_BAD_LINES = 50  # bad lines a refusal lists (and keeps: a file refused whole holds no more of them)
DETAIL_CHARACTERS = 500  # of each field, in a bad row's detail (raw.quarantine): the start names it
_NON_BLANK = re.compile(rb"[^ \t\r\n]")


def _open_decompressed(path: Path) -> BinaryIO:
    """The file's bytes as a stream; a gzip file (FILE.csv.gz) decompressed as it is read, whatever its name. Only a
    regular file: it is read twice (checked, then landed), and a device or a pipe (/dev/zero) would never end."""
    try:
        if not path.is_file():
            raise ImportFileError(f"not a regular file ({'a directory' if path.is_dir() else 'a device or a pipe'}"
                                  "): save the history to a file first")
    except OSError as error:
        raise ImportFileError(f"cannot be read ({error.strerror or error})") from None
    with path.open("rb") as probe:
        compressed = probe.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if compressed else path.open("rb")  # each closes its file


def _read(stream: BinaryIO, size: int) -> bytes:
    try:
        return stream.read(size)
    except (OSError, EOFError, zlib.error) as error:
        raise ImportFileError(f"a gzip file that does not decompress ({error})") from error


class _FileBytes:
    """The file's bytes, decompressed, chunk by chunk, once: their size (refused past the limit), their sha256 (the
    run id) and UTF-8 (an error names the byte) are taken on the way; nothing is held but the chunk."""

    def __init__(self, stream: BinaryIO, limits: settings.ImportLimits):
        self.stream, self.limits = stream, limits
        self.size, self.digest = 0, hashlib.sha256()
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def chunks(self) -> Iterator[bytes]:
        first = True
        while chunk := _read(self.stream, READ_CHUNK_BYTES):
            self.size += len(chunk)
            if self.size > self.limits.max_bytes:
                raise ImportFileError(f"larger than {self.limits.max_bytes:,} bytes (decompressed; "
                                      "GPUPRICES_IMPORT_MAX_BYTES): split the history into files under it")
            self.digest.update(chunk)
            self._check_utf8(chunk)
            if first and chunk.startswith(codecs.BOM_UTF8):  # hashed and landed with it, read without it
                chunk = chunk[len(codecs.BOM_UTF8):]
            first = False
            yield chunk
        self._check_utf8(b"", final=True)

    def _check_utf8(self, chunk: bytes, final: bool = False) -> None:
        held = self.decoder.getstate()[0]
        if chunk.isascii() and not held and not final:  # the common case, at memory speed
            return
        try:
            self.decoder.decode(chunk, final)
        except UnicodeDecodeError as error:
            at = self.size - len(chunk) - len(held) + error.start
            raise ImportFileError(f"not UTF-8 text ({error.reason} at byte {at})") from error

    def sha256(self) -> str:
        return self.digest.hexdigest()


@dataclass(frozen=True)
class _FileDocument(RawDocument):
    """The imported file as the landing reads it: from the file again, decompressed as it streams, never held whole;
    with the size and sha256 the checks took, which the bytes landed must have (a file changed meanwhile fails)."""

    path: Path | None = None
    known_sha256: str = ""
    known_size: int = 0

    @property
    def size(self) -> int:
        return self.known_size

    def sha256(self) -> str:
        return self.known_sha256

    def open(self) -> BinaryIO:
        return _SameBytes(_open_decompressed(self.path), self.known_sha256, self.known_size)


class _SameBytes(io.RawIOBase):
    """A stream that, at its end, checks it gave the bytes it should have (their sha256 and size)."""

    def __init__(self, stream: BinaryIO, sha256: str, size: int):
        self.stream, self.expected, self.digest, self.seen = stream, (sha256, size), hashlib.sha256(), 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = _read(self.stream, size)
        self.digest.update(chunk)
        self.seen += len(chunk)
        if not chunk or size < 0:
            if (self.digest.hexdigest(), self.seen) != self.expected:
                raise ImportFileError("the file changed while it was imported: import it again")
        return chunk

    def close(self) -> None:
        self.stream.close()
        super().close()


def _csv_records(chunks: Iterator[bytes], limits: settings.ImportLimits,
                 long_lines: list[tuple[int, str]]) -> Iterator[tuple[list[int], list[bytes]]]:
    """(line numbers, records) of a CSV stream, a chunk's worth at a time, blank lines skipped as they stream (a chunk
    of them at memory speed). A record is a line, or several where a quoted field holds a line break. A line longer
    than the limit is never held: it goes to `long_lines` with its reason, and the reading goes on at the next line.
    A chunk of whole lines without a quote is split at once (the common case); the rest line by line."""
    pending = bytearray()  # the record read so far
    record_line, line = 0, 1  # the line the record started on; the line being read
    in_quotes, skipping = False, False
    for chunk in chunks:
        numbers: list[int] = []
        records: list[bytes] = []
        position, end = 0, len(chunk)
        last_newline = chunk.rfind(b"\n")
        # whole lines of some length (not a run of blank ones: those the search below skips at memory speed)
        if not pending and not in_quotes and not skipping and last_newline > 0 and b'"' not in chunk \
                and chunk.count(b"\n") * 16 <= len(chunk):
            lines = chunk[:last_newline].split(b"\n")
            if max(map(len, lines)) <= limits.max_line_bytes:
                kept = [index for index, text in enumerate(lines) if text and not text.isspace()]
                numbers += [line + index for index in kept]
                records += [lines[index] for index in kept]
                line += len(lines)
                position = last_newline + 1
        while position < end:
            if not pending and not in_quotes and not skipping:
                found = _NON_BLANK.search(chunk, position)  # the next line with something on it
                if found is None:
                    line += chunk.count(b"\n", position)
                    break
                start = chunk.rfind(b"\n", position, found.start()) + 1 or position
                line += chunk.count(b"\n", position, start)
                position, record_line = start, line
            newline = chunk.find(b"\n", position)
            stop = end if newline < 0 else newline
            if skipping:
                if newline < 0:
                    break
                skipping, line, position = False, line + 1, newline + 1
                continue
            if len(pending) + stop - position > limits.max_line_bytes:
                long_lines.append((record_line, f"longer than {limits.max_line_bytes:,} bytes "
                                                "(GPUPRICES_IMPORT_MAX_LINE_BYTES; a quote never closed?)"))
                pending.clear()
                in_quotes, skipping = False, newline < 0
                if newline >= 0:
                    line, position = line + 1, newline + 1
                continue
            piece = chunk[position:stop]
            pending += piece
            if piece.count(b'"') % 2:
                in_quotes = not in_quotes
            if newline < 0:
                break
            line, position = line + 1, newline + 1
            if in_quotes:  # a quoted field goes on on the next line
                pending += b"\n"
                continue
            numbers.append(record_line)
            records.append(bytes(pending))
            pending.clear()
        if records:
            yield numbers, records
    if pending:
        yield [record_line], [bytes(pending)]


def observation_window() -> tuple[datetime, datetime]:
    """(earliest, latest): the times an observation may carry (EARLIEST_OBSERVATION to now + LATEST_AHEAD)."""
    return EARLIEST_OBSERVATION, datetime.now(UTC) + LATEST_AHEAD


def outside_window(what: str, earliest: datetime, latest: datetime) -> str:
    return (f"{what} is outside the observation window ({earliest:%Y-%m-%d} to a day from now, "
            f"{latest:%Y-%m-%d %H:%M} UTC)")


def _timestamp(text: str) -> datetime:
    text = (text or "").strip()
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueError(f"observed_at {text!r} is not an ISO date or time (2025-03-01 or 2025-03-01T14:00:00Z)") \
            from error
    earliest, latest = observation_window()
    try:
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:00-05:00 is in year 10000 in UTC, 0001-01-01T00:00+01:00 in year 0
        value = None
    if value is None or not earliest <= value <= latest:
        raise ValueError(outside_window(f"observed_at {text!r}", earliest, latest))
    return value


def _price(text) -> Decimal:
    """A price as given, exact (DECIMAL(24, 10): a finer fraction is rounded half-even). Most prices are plain
    decimals and parsed column-wise (_prices); this is the rest (1e3, 0.123456789012)."""
    number = str(text).strip().replace(",", "")
    if not _NUMBER.match(number):  # Decimal reads "1_699", "١٦٩٩" and "NaN": no price file means them
        raise ValueError(f"price {text!r} is not a number (digits, '.', ',' between thousands, 1e3)")
    try:
        value = Decimal(number)
    except InvalidOperation as error:
        raise ValueError(f"price {text!r} is not a number") from error
    if value >= MAX_PRICE:
        raise ValueError(f"price {text!r} is too large")
    if value > 0 and value.as_tuple().exponent < -10:
        value = value.quantize(PRICE_QUANTUM, ROUND_HALF_EVEN)
        if value == 0:
            raise ValueError(f"price {text!r} rounds to 0 at 10 decimals")
    if value <= 0:
        raise ValueError(f"price {text!r} is not a positive amount")
    return value


# A listing's whole title fits (Amazon's run to ~250 characters); past it a value is not a name, and reading a model
# out of it would take the catalogue match seconds per megabyte.
MAX_GPU_NAME_CHARACTERS = 500


@functools.cache  # a history repeats one name thousands of times
def _gpu(name: str, provider: str) -> tuple[str, str]:
    name = " ".join((name or "").split())  # "RTX  4090" is the offer "RTX 4090"
    if not name:
        raise ValueError("no GPU named")
    if len(name) > MAX_GPU_NAME_CHARACTERS:
        shown = 60  # the message is copied into the problem's row and detail: not the whole value
        raise ValueError(f"gpu {name[:shown]!r}... ({len(name) - shown} characters left out) is not a GPU name (at "
                         f"most {MAX_GPU_NAME_CHARACTERS} characters)")
    gpu_id = resolve_gpu_id(name, provider) or resolve_gpu_id(name)
    if gpu_id is None and form_factor_unstated(name):
        raise ValueError(f"gpu {name!r} {FORM_FACTOR_UNSTATED} (SXM, PCIe or NVL; never guessed)")
    if gpu_id is None:
        raise ValueError(f"gpu {name!r} is not a GPU the alias table or the GPU catalogue knows "
                         "(a datacenter part must say SXM or PCIe)")
    return name, gpu_id


# The reason a datacenter GPU name that does not say SXM, PCIe or NVL is refused: the import summary counts these
# rows apart (the GPU exists; the file does not say which part it is)
FORM_FACTOR_UNSTATED = "does not say its form factor"
PROVIDER_ALIASES_CSV = SEEDS / "provider_aliases.csv"

CHANNEL_GIVEN = "__channel_given"


@functools.cache
def _provider_aliases() -> dict[str, str]:
    """The name key of a provider as files spell it -> the project's provider (models/seeds/provider_aliases.csv)."""
    with open(PROVIDER_ALIASES_CSV, newline="") as handle:
        return {name_key(row["raw_name"]): row["provider"] for row in csv.DictReader(handle)}


def provider_id(name: str) -> str:
    """A file's provider name as the project's provider: "vast.ai" / "vastai" -> vast, "lambdalabs" -> lambda,
    "datacrunch" -> verda; a name no alias knows stays as written, lower-cased (a shop, a provider we do not scrape)."""
    name = " ".join(name.split()).lower()
    return _provider_aliases().get(name_key(name), name)


def _provider_column(source: str) -> pl.Expr:
    """The provider column through the provider aliases (once per distinct name); the import's source name where a
    row names none."""
    return _blank("provider").map_elements(provider_id, return_dtype=pl.String, skip_nulls=True).fill_null(source)


def _channel_checked(channel: str | None, provider: str, market_channel: str) -> None:
    """An optional `channel` column (cloud | marketplace | retail) must agree with what the row is: its market's
    channel and its provider's (a marketplace is a provider of models/seeds/marketplace_providers.csv, whose rentals
    the models file under the marketplace's markets); a disagreement is a bad row, never a silent re-label."""
    channel = (channel or "").strip().lower()
    if not channel:
        return
    if channel not in CHANNELS:
        raise ValueError(f"channel {channel!r} is not one of {', '.join(CHANNELS)}")
    actual = rental_channel(provider) if market_channel == "cloud" else market_channel
    if channel != actual:
        if channel == "marketplace" and market_channel == "cloud":
            raise ValueError(f"channel 'marketplace': provider {provider!r} is not a marketplace the project knows "
                             "(models/seeds/marketplace_providers.csv)")
        raise ValueError(f"channel {channel!r} does not fit provider {provider!r} in this market ({actual})")


@functools.cache
def _gpu_count(text: str | None) -> tuple[Decimal, str]:
    """(the count as stored, DECIMAL(12, 6); the count as the offer id writes it: "8", "1/2"). A whole number of
    GPUs, or a share of one GPU (1/N: a cloud's slice of a card, as Azure sells 1/6 of an A10); never 2.5 GPUs."""
    count = Fraction(1)
    if text not in (None, ""):
        written = str(text).strip()
        if not _COUNT.match(written):  # Fraction reads "1_0", " ８" and "1e3": no GPU count is written so
            raise ValueError(f"gpu_count {text!r} is not a number (8, or 1/2 for half a GPU)")
        try:
            count = Fraction(written)
        except ZeroDivisionError as error:
            raise ValueError(f"gpu_count {text!r} is not a number") from error
        if count <= 0:
            raise ValueError(f"gpu_count {text!r} is not positive")
        if count.denominator != 1 and count.numerator != 1:
            raise ValueError(f"gpu_count {text!r} is a fraction of GPUs: a whole number, or 1/N for a share of one "
                             "GPU")
        if count >= MAX_GPU_COUNT or count < Fraction(1, MAX_GPU_COUNT):
            raise ValueError(f"gpu_count {text!r} is out of range (1/{MAX_GPU_COUNT} to {MAX_GPU_COUNT - 1})")
    with localcontext() as context:  # DECIMAL(12, 6), rounded once, half-even (as warehouse/ingest/normalize.py does)
        context.prec = 50
        stored = (Decimal(count.numerator) / Decimal(count.denominator)).quantize(Decimal("0.000001"), ROUND_HALF_EVEN)
    return stored, str(count)


def _attributes(gpu: str | None, provider: str, market: str | None, currency: str | None, per: str | None,
                condition: str | None, gpu_count: str | None, channel_given: str | None = None) -> dict:
    """Everything about an offer but its price, time and place, from one distinct combination of its fields (a
    history repeats a few hundred): the derived columns, or `error` (ValueError's message)."""
    market = (market or "").strip().lower()
    if market not in IMPORT_MARKETS:
        raise ValueError(f"market {market!r} is not one of {', '.join(IMPORT_MARKETS)}")
    channel = MARKETS[market].channel
    _channel_checked(channel_given, provider, channel)
    if channel == "cloud":
        channel = rental_channel(provider)  # a marketplace's rentals are its hosts' asks, as its scraper says too
    currency = (currency or "").strip().upper()
    if not _CURRENCY.match(currency):
        raise ValueError(f"currency {currency!r} is not an ISO 4217 code (USD, EUR, CNY)")
    per = (per or "").strip().lower() or ("card" if channel == "retail" else "gpu_hour")
    if per not in PER_UNITS:
        raise ValueError(f"per {per!r} is not one of {', '.join(PER_UNITS)}")
    if (per == "card") != (channel == "retail"):
        raise ValueError(f"market {market} is priced per {'card' if channel == 'retail' else 'GPU-hour or instance-hour'}"
                         f", not per {per}")
    count, count_key = _gpu_count(gpu_count)
    condition = (condition or "").strip().lower() or None
    if market == "retail_new" and condition not in (None, "new"):
        raise ValueError(f"condition {condition!r} does not fit market retail_new")
    if market == "retail_used" and condition not in (None, *USED_CONDITIONS):
        raise ValueError(f"condition {condition!r} is not one of {', '.join(USED_CONDITIONS)}")
    if channel == "retail":
        condition = condition or ("new" if market == "retail_new" else "used")
    raw_gpu_name, gpu_id = _gpu(gpu or "", provider)
    # the price per GPU-hour or per card is price * per_numerator / per_denominator (warehouse/ingest/normalize.py)
    per_gpu = Fraction(1, 1) / Fraction(count_key) if PER_UNITS[per] in ("card", "instance_hour") else Fraction(1)
    return {"market_name": market, "channel": channel, "pricing_type": MARKETS[market].pricing_type,
            "term_months": MARKETS[market].term_months, "currency_code": currency, "price_unit": PER_UNITS[per],
            "count_value": count, "count_key": count_key, "condition_name": condition,
            "in_stock": True if channel == "retail" else None, "raw_gpu_name": raw_gpu_name, "gpu_id": gpu_id,
            "per_numerator": per_gpu.numerator, "per_denominator": per_gpu.denominator}


_ATTRIBUTE_SCHEMA = {"market_name": pl.String, "channel": pl.String, "pricing_type": pl.String,
                     "term_months": pl.Int16, "currency_code": pl.String, "price_unit": pl.String,
                     "count_value": pl.Decimal(12, 6), "count_key": pl.String, "condition_name": pl.String,
                     "in_stock": pl.Boolean, "raw_gpu_name": pl.String, "gpu_id": pl.String,
                     "per_numerator": pl.Int128, "per_denominator": pl.Int128, "attribute_error": pl.String}


def _per_distinct(table: pl.DataFrame, keys: list[str], compute, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """`compute(*key values) -> dict` once per distinct combination of `keys` (a history repeats its names, markets
    and dates thousands of times), joined back onto every row; a ValueError becomes the last column of `schema`."""
    error_column = list(schema)[-1]
    distinct = table.select(keys).unique()
    results = []
    for values in distinct.iter_rows():
        try:
            results.append(compute(*values))
        except ValueError as error:
            results.append({error_column: str(error)})
    found = pl.DataFrame([{name: result.get(name) for name in schema} for result in results], schema=schema,
                         orient="row") if results else pl.DataFrame(schema=schema)
    # joined on the key columns alone, then set beside the rest (a join copies every column it carries)
    return table.hstack(table.select(keys).join(pl.concat([distinct, found], how="horizontal"), on=keys, how="left",
                                                nulls_equal=True, maintain_order="left").drop(keys).get_columns())


def _price_row(text) -> dict:
    return {"slow_price": _price(text)}


def _prices(rows: pl.DataFrame) -> pl.DataFrame:
    """`price_value` (DECIMAL(24, 10), exact) and `price_error`: a plain decimal ("1,234.50") column-wise, any other
    text through _price once per distinct value."""
    text = pl.col("price").fill_null("").str.strip_chars().str.replace_all(",", "", literal=True)
    rows = rows.with_columns(text.alias("__price_text"))
    plain = pl.col("__price_text").str.contains(r"^[0-9]{1,14}(\.[0-9]{1,10})?$")  # ASCII: \d is any script's
    other = rows.filter(~plain).select("__price_text", pl.col("price").fill_null("").alias("__price_given")).unique(
        "__price_text")
    other = _per_distinct(other, ["__price_given"], _price_row,
                          {"slow_price": pl.Decimal(24, 10), "slow_error": pl.String}).drop("__price_given")
    rows = rows.hstack(rows.select("__price_text").join(other, on="__price_text", how="left", maintain_order="left")
                       .drop("__price_text").get_columns())
    value = pl.when(plain).then(pl.col("__price_text").cast(pl.Decimal(24, 10), strict=False))
    return rows.with_columns(pl.coalesce(value, "slow_price").alias("price_value")).with_columns(
        pl.when(plain & (pl.col("price_value") == 0))
        .then(pl.format("price '{}' is not a positive amount", pl.col("price")))
        .when(plain & (pl.col("price_value") >= MAX_PRICE))
        .then(pl.format("price '{}' is too large", pl.col("price")))
        .otherwise(pl.col("slow_error")).alias("price_error")
    ).drop("__price_text", "slow_price", "slow_error")


def _per_unit(rows: pl.DataFrame) -> pl.DataFrame:
    """`per_unit`: price * per_numerator / per_denominator rounded half-even to 6 decimals, as normalize.py's
    Fractions give it, in 128-bit integers (price_value's physical value is the price in units of 10^-10); and
    `per_unit_error` when it does not fit DECIMAL(18, 6) or a positive price rounds to 0 there."""
    numerator = pl.col("price_value").to_physical() * pl.col("per_numerator")
    denominator = pl.col("per_denominator") * pl.lit(10**4, pl.Int128)  # 10^-10 units -> 10^-6 units
    quotient, remainder = numerator // denominator, numerator % denominator
    half_even = (2 * remainder > denominator) | ((2 * remainder == denominator) & (quotient % 2 == 1))
    micros = quotient + half_even.cast(pl.Int128)
    million = pl.lit(10**6, pl.Int128)
    fits = micros < pl.lit(10**18, pl.Int128)
    return rows.with_columns(
        pl.when(fits).then(pl.format("{}.{}", micros // million, (micros % million).cast(pl.String).str.zfill(6)))
        .cast(pl.Decimal(18, 6)).alias("per_unit"),
        pl.when(pl.col("price_value").is_not_null() & pl.col("per_numerator").is_not_null() & ~fits)
        .then(pl.format("price '{}' per GPU or card is too large", pl.col("price")))
        .when(pl.col("price_value").is_not_null() & pl.col("per_numerator").is_not_null() & (micros == 0))
        .then(pl.format("price '{}' per GPU or card rounds to 0 at 6 decimals", pl.col("price")))
        .alias("per_unit_error"))


def _time_row(text) -> dict:
    return {"observed": _timestamp(text)}


def _plain(decimal: pl.Expr) -> pl.Expr:
    """A DECIMAL as its digits without trailing zeros (15.0000000000 -> 15)."""
    return decimal.cast(pl.String).str.replace(r"(\.\d*?)0+$", "${1}").str.replace(r"\.$", "")


def _blank(column: str) -> pl.Expr:
    text = pl.col(column).str.strip_chars()
    return pl.when(text == "").then(None).otherwise(text)


def _header(record: bytes) -> list[str]:
    """The header's column names; a column named twice refuses the file: which of the two holds the values would
    be a guess (a CSV reader keeps the first, a dict the last), so the file does not load."""
    header = next(csv.reader([record.decode("utf-8")]), [])
    first: dict[str, int] = {}
    for number, name in enumerate((name.strip() for name in header), start=1):
        if name and name in first:
            raise ImportFileError(f"the header names column {name!r} twice (columns {first[name]} and {number}): "
                                  "name each column once")
        first.setdefault(name, number)
    return header


def _csv_tables(chunks: Iterator[bytes], limits: settings.ImportLimits,
                long_lines: list[tuple[int, str]]) -> Iterator[pl.DataFrame]:
    """The CSV as text columns, VALIDATION_CHUNK_ROWS records at a time, each with `line` (its line in the file)
    and `fields_error` (a line with more fields than the header). The first frame comes even when empty (it names
    the columns); past GPUPRICES_IMPORT_MAX_ROWS rows the file is refused."""
    chunks_of_records = _csv_records(chunks, limits, long_lines)
    first = next(chunks_of_records, None)
    if first is None:
        raise ImportFileError("no prices in the file")
    header_line, header = first[0][0], first[1][0]
    if long_lines and long_lines[0][0] <= header_line:  # the header itself was too long
        raise ImportFileError(f"the header (line {long_lines[0][0]}) is {long_lines[0][1]}")
    names = _header(header)
    lines, batch = first[0][1:], first[1][1:]
    rows, sent = len(batch), False
    for more_lines, more_records in itertools.chain([([], [])], chunks_of_records):
        lines += more_lines
        batch += more_records
        rows += len(more_records)
        if rows > limits.max_rows:
            raise ImportFileError(f"more than {limits.max_rows:,} rows (GPUPRICES_IMPORT_MAX_ROWS): split the "
                                  "history into files under it")
        while len(batch) >= VALIDATION_CHUNK_ROWS:
            yield _csv_table(header, names, batch[:VALIDATION_CHUNK_ROWS], lines[:VALIDATION_CHUNK_ROWS])
            del batch[:VALIDATION_CHUNK_ROWS], lines[:VALIDATION_CHUNK_ROWS]
            sent = True
    if batch or not sent:
        yield _csv_table(header, names, batch, lines)


def _csv_table(header: bytes, names: list[str], records: list[bytes], lines: list[int]) -> pl.DataFrame:
    """One batch of records as text columns (polars reads them; a record with more fields than the header, read
    one by one to name it). A record whose every field is empty (",,,") is a blank line too."""
    try:
        table = pl.read_csv(io.BytesIO(header + b"\n" + b"\n".join(records) + b"\n"), infer_schema=False,
                            raise_if_empty=False)
        if table.height != len(records):  # a quote polars read otherwise than the records were split
            raise pl.exceptions.ComputeError("records and rows differ")
        table = table.with_columns(pl.Series(LINE, lines, pl.Int64), pl.lit(None, pl.String).alias(FIELDS_ERROR))
    except pl.exceptions.ComputeError:
        table = _csv_table_by_record(names, records, lines)
    table = table.rename({name: name.strip() for name in table.columns if name not in (LINE, FIELDS_ERROR)})
    data = [name for name in table.columns if name not in (LINE, FIELDS_ERROR)]
    if not data or not table.get_column(data[0]).has_nulls():  # no blank record (a filter copies every column)
        return table
    blank = pl.all_horizontal([pl.col(name).is_null() for name in data]) & pl.col(FIELDS_ERROR).is_null()
    return table.filter(~blank)


def _csv_table_by_record(header: list[str], records: list[bytes], lines: list[int]) -> pl.DataFrame:
    rows, errors = [], []
    for record in records:
        fields = [field for row in csv.reader(io.StringIO(record.decode("utf-8"), newline="")) for field in row]
        errors.append(f"{len(fields)} fields, the header has {len(header)}" if len(fields) > len(header) else None)
        rows.append([field or None for field in (fields + [None] * len(header))[:len(header)]])
    table = pl.DataFrame(rows, schema={f"column_{index}": pl.String for index in range(len(header))}, orient="row")
    table.columns = header
    return table.with_columns(pl.Series(LINE, lines, pl.Int64), pl.Series(FIELDS_ERROR, errors, pl.String))


def _csv_rows(tables: Iterator[pl.DataFrame], source: str, market: str | None, currency: str | None,
              columns: dict[str, str] | None, gpu: str | None) -> Iterator[pl.DataFrame]:
    """Each batch in the import's own columns (IMPORT_COLUMNS, text), the file's columns renamed by `columns`, the
    whole-file values filled in; `at` names each row ("line 12"). The header is checked on the first batch."""
    selected = None
    for table in tables:
        if selected is None:
            selected = _csv_columns(table, source, market, currency, columns, gpu)
        yield table.select(LINE, FIELDS_ERROR, *selected).with_columns(
            _provider_column(source).alias("provider"), pl.format("line {}", pl.col(LINE)).alias(AT))


def _csv_columns(table: pl.DataFrame, source: str, market: str | None, currency: str | None,
                 columns: dict[str, str] | None, gpu: str | None) -> list[pl.Expr]:
    present = [name for name in table.columns if name not in (LINE, FIELDS_ERROR)]
    unknown = [f"{target}={column}" for target, column in (columns or {}).items() if column not in present]
    if unknown:
        raise ImportFileError(f"--columns {', '.join(unknown)}: no such column in the file (its columns: "
                              f"{', '.join(present) or 'none'})")
    source_of = {name: name for name in IMPORT_COLUMNS if name in present} | dict(columns or {})
    whole_file = {"gpu": gpu, "market": market, "currency": currency}
    missing = [name for name in CSV_COLUMNS if name not in source_of and whole_file.get(name) is None]
    if missing:
        raise ImportFileError(
            f"missing column(s) {', '.join(missing)}; expected {', '.join(CSV_COLUMNS)} and optionally "
            f"{', '.join(CSV_OPTIONAL_COLUMNS)} (--columns maps the file's own names, e.g. observed_at=date; "
            "--gpu, --market and --currency give a whole file's value)")
    selected = []
    for name in IMPORT_COLUMNS:
        if name == "gpu" and gpu is not None:  # --gpu names the whole file's GPU, whatever a column says
            selected.append(pl.lit(gpu, pl.String).alias(name))
        elif name in source_of:
            selected.append(pl.col(source_of[name]).alias(name))
        else:
            selected.append(pl.lit(whole_file.get(name), pl.String).alias(name))
    return selected


def _keepa_rows(body: bytes, market: str | None, currency: str | None, gpu: str | None) -> pl.DataFrame:
    try:
        document = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ImportFileError(f"not a Keepa history (JSON): {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("prices"), dict) \
            or not isinstance(gpu if gpu is not None else document.get("gpu_name"), str):
        raise ImportFileError('not a Keepa history: expected {"gpu_name": "...", "prices": {"<timestamp>": price}} '
                              "(--gpu NAME stands in for a missing gpu_name)")
    stamps = list(document["prices"])
    rows = {name: pl.lit(None, pl.String) for name in IMPORT_COLUMNS}
    rows |= {"gpu": pl.lit(gpu if gpu is not None else document["gpu_name"]), "market": pl.lit(market or "retail_new"),
             "currency": pl.lit(currency or "USD"), "provider": pl.lit(KEEPA_PROVIDER)}
    table = pl.DataFrame({"observed_at": stamps, "price": [str(amount) for amount in document["prices"].values()]},
                         schema={"observed_at": pl.String, "price": pl.String})
    return table.select(
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(LINE), pl.lit(None, pl.String).alias(FIELDS_ERROR),
        *[(pl.col(name) if name in table.columns else expression).alias(name) for name, expression in rows.items()],
        pl.format("entry {}", pl.col("observed_at")).alias(AT))


def _field_lengths(rows: pl.DataFrame, max_characters: int) -> pl.DataFrame:
    """`length_error`: the first field longer than GPUPRICES_IMPORT_MAX_FIELD_CHARS (a 50 MB title is no title)."""
    too_long = [pl.when(pl.col(name).str.len_chars() > max_characters)
                .then(pl.format(f"{name} is {{}} characters long (at most {max_characters:,}: "
                                "GPUPRICES_IMPORT_MAX_FIELD_CHARS)", pl.col(name).str.len_chars()))
                for name in IMPORT_COLUMNS if rows.schema.get(name) == pl.String]
    return rows.with_columns(pl.coalesce(too_long).alias("length_error") if too_long
                             else pl.lit(None, pl.String).alias("length_error"))


def _validated(rows: pl.DataFrame) -> pl.DataFrame:
    """Every row with its offer's columns and `error` (null for a good row): the price, the time and each distinct
    combination of the other fields checked once, in Python, and joined back."""
    rows = _field_lengths(rows, settings.import_limits().max_field_chars)
    rows = _prices(rows)
    rows = _per_distinct(rows, ["observed_at"], _time_row,
                         {"observed": pl.Datetime("us", "UTC"), "time_error": pl.String})
    rows = rows.rename({"channel": CHANNEL_GIVEN})  # the file's optional channel; `channel` is the derived one
    rows = _per_distinct(rows, ["gpu", "provider", "market", "currency", "per", "condition", "gpu_count",
                                CHANNEL_GIVEN], _attributes, _ATTRIBUTE_SCHEMA)
    rows = _per_unit(rows)
    region, url, title = _blank("region"), _blank("url"), _blank("title")
    return rows.with_columns(
        pl.coalesce(FIELDS_ERROR, "length_error", "price_error", "attribute_error", "per_unit_error", "time_error"
                    ).alias(ERROR),
        region.alias("region"), url.alias("url"), pl.coalesce(title, "raw_gpu_name").alias("title"),
        # the same offer on every day it was seen: what the price index matches day to day
        pl.concat_str(["provider", "raw_gpu_name", "market_name", region.fill_null(""),
                       pl.coalesce(url, title).fill_null(""), "count_key"], separator="|").alias("offer_id"),
    )


def _day_frame(good: pl.DataFrame, source: str, file_run_id: str) -> pl.DataFrame:
    """One run per UTC day, `<file run id>-dYYYYMMDD`: the day's last price of each offer (the file's order breaks a
    tie), observed at the day's last observation; in the canonical offer columns (warehouse/ingest/normalize.py), plus the
    row's own `observed` time and `at`."""
    day = pl.col("observed").dt.date()
    kept = _last_of_each_day(good)  # in time order
    columns = {
        "run_id": pl.concat_str([pl.lit(f"{file_run_id}-d"), day.dt.strftime("%Y%m%d")]),
        "parser_version": pl.lit(IMPORT_PARSER_VERSION), "observed_at": pl.col("observed").max().over(day),
        "source": pl.lit(source),
        "channel": pl.col("channel"), "provider": pl.col("provider"), "offer_id": pl.col("offer_id"),
        "title": pl.col("title"), "raw_gpu_name": pl.col("raw_gpu_name"), "gpu_id": pl.col("gpu_id"),
        "gpu_count": pl.col("count_value"), "pricing_type": pl.col("pricing_type"),
        "term_months": pl.col("term_months"),
        "price": pl.col("price_value"), "currency": pl.col("currency_code"), "price_unit": pl.col("price_unit"),
        "price_role": pl.lit("selling"), "price_per_unit": pl.col("per_unit"), "includes_host_vm": pl.lit(True),
        "region": pl.col("region"), "condition": pl.col("condition_name"), "in_stock": pl.col("in_stock"),
        "url": pl.col("url"), "landing_ref": pl.lit(""), "is_synthetic": pl.lit(False),
    }
    return kept.select(
        *[(columns[name] if name in columns else pl.lit(None)).cast(dtype).alias(name)
          for name, dtype in OFFER_SCHEMA.items()],
        pl.col("observed").alias(ROW_OBSERVED), pl.col(AT), pl.col(LINE))


@dataclass(frozen=True)
class _CheckedFile:
    rows: int                   # rows read
    problems: pl.DataFrame      # the bad rows in file order: LINE, AT, ERROR, reason, observed (or null), detail
    problem_count: int          # how many (a refusal keeps only the first SHOWN_BAD_LINES of them)
    runs: pl.DataFrame          # the day-runs: run_id, observed_at, parsed (offers, the day's last prices)
    checked: IntegrityResult    # the day-runs' offers through the integrity rules (accepted in raw.offers' columns)
    run_id: str                 # the landing's run id (warehouse/store/landing.py): the last good observation, the bytes
    last_observed: datetime | None

    def messages(self) -> list[str]:
        return [f"{at}: {error}" for at, error in self.problems.select(AT, ERROR).iter_rows()]


_GOOD_COLUMNS = (LINE, AT, "observed", "channel", "provider", "offer_id", "title", "raw_gpu_name", "gpu_id",
                 "count_value", "pricing_type", "term_months", "price_value", "currency_code", "price_unit", "per_unit",
                 "region", "condition_name", "in_stock", "url")
_PROBLEM_SCHEMA = {LINE: pl.Int64, AT: pl.String, ERROR: pl.String, "reason": pl.String,
                   "observed": pl.Datetime("us", "UTC"), "detail": pl.String}


def _check_file(batches: Iterable[pl.DataFrame], source: str, file_name: str, document: Callable[[], RawDocument],
                long_lines: list[tuple[int, str]] | None = None, keep_every_problem: bool = True) -> _CheckedFile:
    """Every rule a row meets, batch by batch as the file streams: the fields (_validated), then the integrity rules
    a scraped row meets (warehouse/ingest/integrity.py) on the day-runs the good rows make, named as the landing will name
    them. Of each batch only the bad rows' problems (or, without `keep_every_problem`, the first SHOWN_BAD_LINES of
    them: a file refused whole) and the good rows that are still their offer's last of a day are kept: what is held
    grows with the offers and days of the history, not with its rows. `document()`: the file as landed, called once
    the stream has ended (its sha256 names the runs). `long_lines`: lines the reading left out, with their reason."""
    where = {"line": pl.col(LINE), "at": pl.col(AT), "file": pl.lit(file_name)}
    read, problem_count, field_problems, good, held, compacted = 0, 0, [], [], 0, 0
    shown = None if keep_every_problem else SHOWN_BAD_LINES
    for batch in batches:
        read += batch.height
        # the field rules on this batch only: its ~40 working columns are let go before the next batch; lazily, so
        # the filters copy only what is kept
        checked = _validated(batch).lazy()
        bad, fine = pl.collect_all([
            checked.filter(pl.col(ERROR).is_not_null()).select(
                LINE, AT, ERROR, pl.col(ERROR).alias("reason"), "observed",
                pl.struct(**where, problem=pl.format("{}: {}", AT, ERROR),
                          **{name: pl.col(CHANNEL_GIVEN if name == "channel" else name).str.slice(
                              0, DETAIL_CHARACTERS) for name in IMPORT_COLUMNS}).struct.json_encode().alias("detail")),
            checked.filter(pl.col(ERROR).is_null()).select(*_GOOD_COLUMNS)])
        problem_count += bad.height
        kept_so_far = sum(frame.height for frame in field_problems)
        if shown is None or kept_so_far < shown:
            field_problems.append(bad if shown is None else bad.head(shown - kept_so_far))
        # each offer's last price of a day so far: the good rows are boiled down to those whenever COMPACT_EVERY_ROWS
        # more have come (the rows kept before come first in the file: a tie goes to the later row)
        good.append(fine)
        held += fine.height
        if held > compacted + COMPACT_EVERY_ROWS:
            good = [_last_of_each_day(pl.concat(good))]
            held = compacted = good[0].height
        del batch, checked, bad, fine
    for line, message in long_lines or []:  # rows too long to read: bad rows too
        read += 1
        problem_count += 1
        field_problems.append(pl.DataFrame([{
            LINE: line, AT: f"line {line}", ERROR: message, "reason": message, "observed": None,
            "detail": json.dumps({"line": line, "at": f"line {line}", "file": file_name,
                                  "problem": f"line {line}: {message}"})}], schema=_PROBLEM_SCHEMA))
    if not read:
        raise ImportFileError("no prices in the file")
    field_problems = pl.concat([frame.cast(_PROBLEM_SCHEMA) for frame in field_problems]) if field_problems \
        else pl.DataFrame(schema=_PROBLEM_SCHEMA)
    good = _last_of_each_day(pl.concat(good))
    last_observed = good.get_column("observed").max()
    run_id = compute_run_id(source, last_observed, [document()]) if last_observed else f"{source}-nothing"
    days = _day_frame(good, source, run_id)
    del good
    checked = check(days.drop(ROW_OBSERVED, AT, LINE), IMPORT_EXPECTATIONS)
    rejected = days.join(checked.rejected.select("run_id", "offer_id", "pricing_type", "reason"),
                         on=["run_id", "offer_id", "pricing_type"], how="inner", maintain_order="left")
    message = pl.format("{} ({} {})", "reason", _plain(pl.col("price")), "currency")
    rule_problems = rejected.select(
        LINE, AT, message.alias(ERROR), "reason", pl.col(ROW_OBSERVED).alias("observed"),
        pl.struct(**where, problem=pl.format("{}: {}", AT, message),
                  **{name: pl.col(name).cast(pl.String) for name in (
                      "offer_id", "raw_gpu_name", "gpu_id", "pricing_type", "price", "currency", "price_per_unit",
                      "region")}).struct.json_encode().alias("detail"))
    problem_count += rule_problems.height
    problems = pl.concat([field_problems, rule_problems.cast(_PROBLEM_SCHEMA)]).sort(LINE, maintain_order=True)
    if shown is not None:
        problems = problems.head(shown)
    runs = days.group_by("run_id").agg(pl.col("observed_at").first(), pl.len().alias("parsed")).sort("observed_at")
    return _CheckedFile(read, problems, problem_count, runs, checked, run_id, last_observed)


def _last_of_each_day(good: pl.DataFrame) -> pl.DataFrame:
    """The good rows that are their offer's last of a UTC day (the file's order breaks a tie: the later), in time
    order."""
    day = pl.col("observed").dt.date()
    last = (good.select(pl.int_range(pl.len(), dtype=pl.UInt32).alias("row"), day.alias("day"), "offer_id",
                        "pricing_type", "observed")
            .sort("observed", maintain_order=True)
            .unique(subset=["day", "offer_id", "pricing_type"], keep="last", maintain_order=True))
    return good[last.get_column("row")]


def _bad_lines(heading: str, problems: list[str], total: int | None = None, shown: int = SHOWN_BAD_LINES) -> str:
    """The error of a file that cannot load: every bad line, one per line (the first `shown` of them; `total`: how
    many there are, when `problems` holds only the first)."""
    total = len(problems) if total is None else total
    lines = problems[:shown] + ([f"... and {total - min(shown, len(problems))} more"] if total > shown else [])
    return heading + "\n  " + "\n  ".join(lines)


def _row_batches(chunks: Iterator[bytes], file_format: str, source: str, market: str | None, currency: str | None,
                 columns: dict[str, str] | None, gpu: str | None,
                 long_lines: list[tuple[int, str]]) -> Iterator[pl.DataFrame]:
    """The file's rows in the import's columns, batch by batch as its bytes stream (a Keepa history: one batch)."""
    limits = settings.import_limits()
    if file_format == "keepa":
        if columns:
            raise ImportFileError("--columns maps a CSV's columns; a Keepa history has none")
        body = bytearray()
        for chunk in chunks:
            body += chunk
            if len(body) > KEEPA_MAX_BYTES:
                raise ImportFileError(f"a Keepa history larger than {KEEPA_MAX_BYTES:,} bytes: not one GPU's prices")
        return iter([_keepa_rows(bytes(body), market, currency, gpu)])
    return _csv_rows(_csv_tables(chunks, limits, long_lines), source, market, currency, columns, gpu)


def read_prices(body: bytes, file_format: str, source: str, market: str | None = "retail_new",
                currency: str | None = "USD", *, columns: dict[str, str] | None = None,
                gpu: str | None = None) -> list[ImportedPrice]:
    """Every row of a file as the offer it is, checked by the field rules (the integrity rules need the day-runs:
    import_prices); a bad row fails the whole file. For tools that read a history without loading it."""
    long_lines: list[tuple[int, str]] = []
    chunks = _FileBytes(io.BytesIO(body), settings.import_limits()).chunks()
    rows = pl.concat([_validated(batch) for batch in _row_batches(chunks, file_format, source, market, currency,
                                                                  columns, gpu, long_lines)], how="diagonal_relaxed")
    if long_lines:
        raise ImportFileError(_bad_lines("nothing read; fix these lines:",
                                         [f"line {line}: {message}" for line, message in long_lines]))
    bad = rows.filter(pl.col(ERROR).is_not_null())
    if bad.height:
        raise ImportFileError(_bad_lines("nothing read; fix these lines:",
                                         [f"{at}: {error}" for at, error in bad.select(AT, ERROR).iter_rows()]))
    if not rows.height:
        raise ImportFileError("no prices in the file")
    return [ImportedPrice(row[AT], row["observed"], Offer(
        source=source, channel=row["channel"], provider=row["provider"], offer_id=row["offer_id"],
        raw_gpu_name=row["raw_gpu_name"], gpu_id=row["gpu_id"], gpu_count=Fraction(row["count_value"]),
        pricing_type=row["pricing_type"], price=row["price_value"], currency=row["currency_code"],
        price_unit=row["price_unit"], region=row["region"], title=row["title"], term_months=row["term_months"],
        includes_host_vm=True, condition=row["condition_name"], in_stock=row["in_stock"], url=row["url"]))
        for row in rows.iter_rows(named=True)]


def import_prices(path: Path, source: str, file_format: str = "csv", market: str | None = "retail_new",
                  currency: str | None = "USD", *, bad_rows: str = "refuse", columns: dict[str, str] | None = None,
                  gpu: str | None = None, on_checked: Callable[[], object] | None = None) -> ImportResult:
    """Check the whole file, land it, and write one loaded source-run per day in one transaction.

    `market` / `currency`: the whole file's value where no column gives one (a Keepa history has none). `columns`:
    import column -> the CSV's own column. `gpu`: the whole file's GPU (over any column). `bad_rows`: `refuse` (a bad
    row fails the file; nothing is written) or `quarantine` (the good rows load; each bad one goes to raw.quarantine
    with its line and reason). `on_checked`: called once the file has passed its checks, before it lands and loads
    (the CLI starts loading dbt then, for the build that follows: past the checks' peak memory)."""
    source = check_source_name(source)
    if file_format not in FORMATS:
        raise ImportFileError(f"--format {file_format!r} is not one of {', '.join(FORMATS)}")
    if bad_rows not in BAD_ROWS:
        raise ImportFileError(f"--bad-rows {bad_rows!r} is not one of {', '.join(BAD_ROWS)}")
    if market is not None and market not in IMPORT_MARKETS:
        raise ImportFileError(f"--market {market!r} is not one of {', '.join(IMPORT_MARKETS)}")
    if gpu is not None and not gpu.strip():
        raise ImportFileError("--gpu: name a GPU")
    # Every rule first, as the file streams (nothing is landed for a file that cannot load); then the landing reads
    # the file again, and must find the same bytes
    fetched_at = utc_now()
    content_type = "application/json" if file_format == "keepa" else "text/csv"
    long_lines: list[tuple[int, str]] = []
    with _open_decompressed(path) as stream:
        read = _FileBytes(stream, settings.import_limits())

        def document() -> _FileDocument:  # once the stream has ended: its size and sha256 are known
            return _FileDocument(url=f"import:{path.name}", status=200, body=b"", fetched_at=fetched_at,
                                 content_type=content_type, path=path, known_sha256=read.sha256(),
                                 known_size=read.size)

        batches = _row_batches(read.chunks(), file_format, source, market, currency, columns, gpu, long_lines)
        checked = _check_file(batches, source, path.name, document, long_lines,
                              keep_every_problem=bad_rows == "quarantine")
    document = document()
    messages = checked.messages()
    counts = f"{checked.rows} rows read, {checked.problem_count} bad"
    if messages and bad_rows == "refuse":
        raise ImportFileError(_bad_lines(f"nothing loaded ({counts}; --bad-rows quarantine loads the good rows and "
                                         "holds the bad ones back); fix these lines:", messages,
                                         checked.problem_count))
    if not checked.checked.accepted.height:
        raise ImportFileError(_bad_lines(f"nothing loaded ({counts}): no row passes", messages,
                                         checked.problem_count))
    if on_checked is not None:
        on_checked()
    # the file's own last good observation (not the clock) dates the landing, so the same bytes land as the same run
    landed = land(source, checked.last_observed, [document], "imported")
    assert landed.run_id == checked.run_id, (landed.run_id, checked.run_id)
    accepted = checked.checked.accepted  # write_runs gives every row the file's landing_ref
    loaded = dict(accepted.group_by("run_id").len().iter_rows())
    rejected = dict(checked.checked.rejected.group_by("run_id").len().iter_rows())
    started = utc_now()
    records = [
        IngestRecord(
            run_id=run_id, parser_version=IMPORT_PARSER_VERSION, source=source, status="loaded",
            observed_at=observed_at, started_at=started, finished_at=started, documents_fetched=1,
            bytes_fetched=document.size, rows_parsed=parsed, rows_loaded=loaded[run_id],
            rows_rejected=rejected.get(run_id, 0), landing_path=landed.relative_path, is_synthetic=False,
            trigger="import", data_origin=landed.data_origin)
        for run_id, observed_at, parsed in checked.runs.iter_rows() if run_id in loaded
    ]
    quarantine = checked.problems.select(  # noqa: F841 (read by DuckDB by name)
        pl.lit(landed.run_id).alias("run_id"), pl.lit(IMPORT_PARSER_VERSION).alias("parser_version"),
        pl.lit(source).alias("source"), pl.col("observed").fill_null(checked.last_observed).alias("observed_at"),
        pl.lit("row").alias("scope"), "reason", "detail", pl.lit(started).alias("quarantined_at"))
    result = ImportResult(source=source, file_run_id=landed.run_id, prices=checked.rows, days=len(records),
                          offers_loaded=accepted.height, already_loaded=False,
                          first_day=records[0].observed_at.date(), last_day=records[-1].observed_at.date(),
                          rows_quarantined=quarantine.height, first_reasons=messages[:FIRST_REASONS],
                          rows_form_factor_unstated=_form_factor_unstated_rows(checked.problems))
    try:
        with db.connect() as connection:
            # the insert held its rows in memory to the commit (a long history: the import's peak) unless bounded, and
            # on one DuckDB thread (db.one_thread)
            with db.memory_bound(connection, accepted.height), db.one_thread(connection), transaction(connection):
                # any day-run or held-back row of these bytes in the warehouse: the file was imported
                if connection.execute(
                        "SELECT (SELECT count(*) FROM raw.ingest_runs WHERE starts_with(run_id, ?))"
                        " + (SELECT count(*) FROM raw.quarantine WHERE run_id = ?)",
                        [f"{landed.run_id}-d", landed.run_id]).fetchone()[0]:
                    retracted = retraction_of(connection, landed.run_id)
                    if retracted:  # raw rows are never deleted: these bytes' run ids are taken by the retracted rows
                        raise ImportFileError(f"imported as {source} ({landed.run_id}) and retracted {retracted}; the "
                                              "same file does not import again (a corrected file does)")
                    return replace(result, already_loaded=True, offers_loaded=0, rows_quarantined=0,
                                   rows_form_factor_unstated=0)
                integrity = IntegrityResult(accepted=accepted, rejected=checked.checked.rejected)
                records, integrity = _without_days_already_imported(connection, records, integrity)
                if records:
                    write_runs(connection, landed, records, integrity)
                if quarantine.height:
                    connection.execute("INSERT INTO raw.quarantine BY NAME SELECT * FROM quarantine")
    finally:
        landed.discard_spools()  # a file landed before is read back (a large one into a spool file): let it go
    return replace(result, days=len(records), offers_loaded=integrity.accepted.height)


def _form_factor_unstated_rows(problems: pl.DataFrame) -> int:
    """The bad rows refused because their datacenter GPU's name does not say its form factor (counted apart)."""
    return problems.filter(pl.col(ERROR).str.contains(FORM_FACTOR_UNSTATED, literal=True)).height


def _without_days_already_imported(connection, records: list[IngestRecord], checked: IntegrityResult
                                   ) -> tuple[list[IngestRecord], IntegrityResult]:
    """An offer's day that an earlier file of the same source holds stays as it was (the first import of a day
    stands; each offer is in the daily tables once a day); a retracted file holds no day. Day-runs left empty are
    not written."""
    source = records[0].source
    held = connection.execute("""
        SELECT DISTINCT cast(timezone('UTC', offers.observed_at) AS date) AS day, offers.offer_id, offers.pricing_type
        FROM raw.offers AS offers JOIN raw.ingest_runs AS runs USING (run_id, parser_version)
        WHERE runs.trigger = 'import' AND runs.status = 'loaded' AND offers.source = ?
          AND run_id NOT IN (SELECT run_id FROM raw.retractions)""", [source]).pl()
    if held.is_empty():
        return records, checked
    accepted = checked.accepted.with_columns(
        pl.col("observed_at").dt.convert_time_zone("UTC").dt.date().alias("day"))
    accepted = accepted.join(held, on=["day", "offer_id", "pricing_type"], how="anti").drop("day")
    loaded = dict(accepted.group_by("run_id").len().iter_rows())
    kept = []
    for record in records:
        if loaded.get(record.run_id):
            record.rows_loaded = loaded[record.run_id]
            kept.append(record)
    return kept, IntegrityResult(accepted=accepted, rejected=checked.rejected, result_reasons=checked.result_reasons)


def imported_sources(connection) -> list[str]:
    """Sources whose runs came from `gpuprices import prices` (the dashboards mark their series as imported)."""
    return [row[0] for row in connection.execute(
        "SELECT DISTINCT source FROM raw.ingest_runs WHERE trigger = 'import' ORDER BY source").fetchall()]
