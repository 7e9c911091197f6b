"""Price history someone else observed (`gpuprices import prices FILE --source NAME`): a CSV of dated prices, or a
Keepa export (`--format keepa`: {"gpu_name": ..., "prices": {"<timestamp>": price}}).

Imported prices are real observations (not synthetic) and land like scraped ones:
- the file is landed as it is (landing/<NAME>/<day of its last observation>/<run id>/, data_origin `imported`);
- each day of the file becomes one source-run of NAME (trigger `import`), holding the day's last price of each offer,
  as a daily scrape would have seen it; the models treat those runs like any other;
- all or nothing: every line is checked (the GPU name, the market, the price and the integrity rules a scraped row
  meets) before anything is written; a bad line is named with its number and nothing loads;
- idempotent by content: the run ids derive from the file's bytes, so the same file loads once.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

import polars as pl

from config.settings import PROJECT_ROOT
from scrapers.base import Expectations, Offer
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.registry import SOURCE_IDS
from warehouse import db
from warehouse.integrity import IntegrityResult, check
from warehouse.landing import LandedRun, land
from warehouse.load import IngestRecord, transaction, write_runs
from warehouse.markets import IMPORT_MARKETS, MARKETS
from warehouse.normalize import normalize
from warehouse.report import utc_now

FORMATS = ("csv", "keepa")
CSV_COLUMNS = ("observed_at", "gpu", "market", "price", "currency")
CSV_OPTIONAL_COLUMNS = ("provider", "region", "url", "title", "condition", "per", "gpu_count")
PER_UNITS = {"card": "card", "gpu_hour": "gpu_hour", "instance_hour": "instance_hour"}
USED_CONDITIONS = ("used", "refurbished", "open_box")
IMPORT_PARSER_VERSION = 1
BUNDLED_HISTORIES = PROJECT_ROOT / "recordings" / "retail_history"  # real Keepa exports (provenance: README.md)
BUNDLED_HISTORY_SOURCE = "keepa-amazon"
KEEPA_PROVIDER = "amazon"  # Keepa tracks Amazon listings; its price history is Amazon's
_SOURCE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# An import has no expected GPUs or offer count; the row rules (price > 0, price bands) still apply.
IMPORT_EXPECTATIONS = Expectations(expected_gpu_ids=frozenset(), min_offers=1, max_rejected_share=1.0)


class ImportFileError(ValueError):
    """The file cannot load; the message names every bad line. Nothing was written."""


@dataclass(frozen=True)
class ImportedPrice:
    line: str  # "line 12" (CSV) or "entry 2020-06-18T20:22:00" (Keepa): how an error names it
    observed_at: datetime
    offer: Offer


@dataclass(frozen=True)
class ImportResult:
    source: str
    file_run_id: str
    prices: int  # observations read from the file
    days: int  # source-runs written (one per day)
    offers_loaded: int  # the days' last prices per offer
    already_loaded: bool
    first_day: date
    last_day: date


def check_source_name(name: str) -> str:
    if not _SOURCE_NAME.match(name or ""):
        raise ImportFileError(f"--source {name!r}: use lower-case letters, digits, '.', '_' or '-' (e.g. keepa-amazon)")
    if name in SOURCE_IDS:
        raise ImportFileError(f"--source {name!r} is a scraper's source id; name the import apart "
                              f"(e.g. {name}-history) so the two never replace each other's days")
    return name


def _timestamp(text: str) -> datetime:
    text = (text or "").strip()
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueError(f"observed_at {text!r} is not an ISO date or time (2025-03-01 or 2025-03-01T14:00:00Z)") \
            from error
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _price(text) -> Decimal:
    try:
        value = Decimal(str(text).strip().replace(",", ""))
    except InvalidOperation as error:
        raise ValueError(f"price {text!r} is not a number") from error
    if not value.is_finite() or value <= 0:
        raise ValueError(f"price {text!r} is not a positive amount")
    return value


@functools.cache  # a history repeats one name thousands of times
def _gpu(name: str, provider: str) -> tuple[str, str]:
    name = (name or "").strip()
    if not name:
        raise ValueError("no GPU named")
    gpu_id = resolve_gpu_id(name, provider) or resolve_gpu_id(name)
    if gpu_id is None:
        raise ValueError(f"gpu {name!r} is not a GPU the alias table or the GPU catalogue knows "
                         "(a datacenter part must say SXM or PCIe)")
    return name, gpu_id


def _offer(source: str, *, gpu: str, market: str, price: Decimal, currency: str, provider: str,
           region: str | None = None, url: str | None = None, title: str | None = None,
           condition: str | None = None, per: str | None = None, gpu_count: str | None = None) -> Offer:
    if market not in IMPORT_MARKETS:
        raise ValueError(f"market {market!r} is not one of {', '.join(IMPORT_MARKETS)}")
    channel, pricing_type, term_months = (MARKETS[market].raw_channel, MARKETS[market].pricing_type,
                                          MARKETS[market].term_months)
    currency = (currency or "").strip().upper()
    if not _CURRENCY.match(currency):
        raise ValueError(f"currency {currency!r} is not an ISO 4217 code (USD, EUR, CNY)")
    per = (per or ("card" if channel == "retail" else "gpu_hour")).strip().lower()
    if per not in PER_UNITS:
        raise ValueError(f"per {per!r} is not one of {', '.join(PER_UNITS)}")
    if (per == "card") != (channel == "retail"):
        raise ValueError(f"market {market} is priced per {'card' if channel == 'retail' else 'GPU-hour or instance-hour'}"
                         f", not per {per}")
    count = Fraction(1)
    if gpu_count not in (None, ""):
        try:
            count = Fraction(str(gpu_count).strip())
        except (ValueError, ZeroDivisionError) as error:
            raise ValueError(f"gpu_count {gpu_count!r} is not a number") from error
        if count <= 0:
            raise ValueError(f"gpu_count {gpu_count!r} is not positive")
    condition = (condition or "").strip().lower() or None
    if market == "retail_new" and condition not in (None, "new"):
        raise ValueError(f"condition {condition!r} does not fit market retail_new")
    if market == "retail_used" and condition not in (None, *USED_CONDITIONS):
        raise ValueError(f"condition {condition!r} is not one of {', '.join(USED_CONDITIONS)}")
    if channel == "retail":
        condition = condition or ("new" if market == "retail_new" else "used")
    raw_gpu_name, gpu_id = _gpu(gpu, provider)
    region = (region or "").strip() or None
    url, title = (url or "").strip() or None, (title or "").strip() or None
    # the same offer on every day it was seen: what the price index matches day to day
    offer_id = "|".join([provider, raw_gpu_name, market, region or "", url or title or "", str(count)])
    return Offer(
        source=source, channel=channel, provider=provider, offer_id=offer_id, raw_gpu_name=raw_gpu_name,
        gpu_id=gpu_id, gpu_count=count, pricing_type=pricing_type, price=price, currency=currency,
        price_unit=PER_UNITS[per], region=region, title=title or raw_gpu_name, term_months=term_months,
        includes_host_vm=True, condition=condition, in_stock=True if channel == "retail" else None, url=url,
    )


def read_csv_prices(body: bytes, source: str) -> tuple[list[ImportedPrice], list[str]]:
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportFileError(f"not UTF-8 text ({error.reason} at byte {error.start})") from error
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = [c.strip() for c in reader.fieldnames or []]
    missing = [c for c in CSV_COLUMNS if c not in columns]
    if missing:
        raise ImportFileError(f"missing column(s) {', '.join(missing)}; expected {', '.join(CSV_COLUMNS)} "
                              f"and optionally {', '.join(CSV_OPTIONAL_COLUMNS)}")
    reader.fieldnames = columns
    prices, problems = [], []
    for line, row in enumerate(reader, start=2):
        try:
            if None in row:
                raise ValueError(f"{len(columns) + len(row[None])} fields, the header has {len(columns)}")
            optional = {c: row.get(c) for c in CSV_OPTIONAL_COLUMNS}
            provider = (optional.pop("provider") or "").strip().lower() or source
            offer = _offer(source, gpu=row["gpu"], market=(row["market"] or "").strip().lower(),
                           price=_price(row["price"]), currency=row["currency"], provider=provider, **optional)
            prices.append(ImportedPrice(f"line {line}", _timestamp(row["observed_at"]), offer))
        except ValueError as error:
            problems.append(f"line {line}: {error}")
    return prices, problems


def read_keepa_prices(body: bytes, source: str, market: str, currency: str) -> tuple[list[ImportedPrice], list[str]]:
    try:
        document = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ImportFileError(f"not a Keepa history (JSON): {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("prices"), dict) \
            or not isinstance(document.get("gpu_name"), str):
        raise ImportFileError('not a Keepa history: expected {"gpu_name": "...", "prices": {"<timestamp>": price}}')
    prices, problems = [], []
    for stamp, amount in document["prices"].items():
        try:
            offer = _offer(source, gpu=document["gpu_name"], market=market, price=_price(amount), currency=currency,
                           provider=KEEPA_PROVIDER)
            prices.append(ImportedPrice(f"entry {stamp}", _timestamp(stamp), offer))
        except ValueError as error:
            problems.append(f"entry {stamp}: {error}")
            if len(problems) == 1 and "gpu" in str(error):  # the one name is wrong: every entry would say so
                break
    return prices, problems


def _bad_lines(heading: str, problems: list[str], shown: int = 50) -> str:
    """The error of a file that cannot load: every bad line, one per line (the first `shown` of them)."""
    lines = problems[:shown] + ([f"... and {len(problems) - shown} more"] if len(problems) > shown else [])
    return heading + "\n  " + "\n  ".join(lines)


def read_prices(body: bytes, file_format: str, source: str, market: str = "retail_new",
                currency: str = "USD") -> list[ImportedPrice]:
    if file_format == "keepa":
        prices, problems = read_keepa_prices(body, source, market, currency)
    else:
        prices, problems = read_csv_prices(body, source)
    if problems:
        raise ImportFileError(_bad_lines("nothing loaded; fix these lines:", problems))
    if not prices:
        raise ImportFileError("no prices in the file")
    return prices


def _day_runs(landed: LandedRun, prices: list[ImportedPrice]) -> list[tuple[LandedRun, list[ImportedPrice]]]:
    """One run per UTC day: the day's last price of each offer, observed at the day's last observation."""
    by_day: dict[date, dict[str, ImportedPrice]] = defaultdict(dict)
    for price in sorted(prices, key=lambda p: p.observed_at):
        by_day[price.observed_at.date()][f"{price.offer.offer_id}|{price.offer.pricing_type}"] = price
    runs = []
    for day, latest in sorted(by_day.items()):
        observed_at = max(price.observed_at for price in latest.values())
        run = LandedRun(source=landed.source, run_id=f"{landed.run_id}-d{day:%Y%m%d}", observed_at=observed_at,
                        data_origin=landed.data_origin, directory=landed.directory, documents=landed.documents,
                        document_files=landed.document_files)
        runs.append((run, list(latest.values())))
    return runs


def _checked_days(landed: LandedRun, prices: list[ImportedPrice], body_size: int
                  ) -> tuple[list[IngestRecord], IntegrityResult, list[str]]:
    """Every day-run of the file normalized and checked in one frame (the row rules are per row, the relative
    outlier rule per run), its ingest record, and the bad lines."""
    runs = _day_runs(landed, prices)
    frames = [normalize([price.offer for price in day_prices], run, IMPORT_PARSER_VERSION) for run, day_prices in runs]
    frame = pl.concat(frames)
    checked = check(frame, IMPORT_EXPECTATIONS)
    lines = {(run.run_id, price.offer.offer_id): price.line for run, day_prices in runs for price in day_prices}
    problems = [f"{lines[row['run_id'], row['offer_id']]}: {row['reason']} ({row['price']:f} {row['currency']})"
                for row in checked.rejected.select("run_id", "offer_id", "reason", "price", "currency")
                .iter_rows(named=True)]
    loaded = dict(checked.accepted.group_by("run_id").len().iter_rows())
    started = utc_now()
    records = [
        IngestRecord(
            run_id=run.run_id, parser_version=IMPORT_PARSER_VERSION, source=landed.source, status="loaded",
            observed_at=run.observed_at, started_at=started, finished_at=started, documents_fetched=1,
            bytes_fetched=body_size, rows_parsed=day_frame.height, rows_loaded=loaded.get(run.run_id, 0),
            landing_path=run.relative_path, is_synthetic=False, trigger="import",
        )
        for (run, _), day_frame in zip(runs, frames, strict=True)
    ]
    return records, checked, problems


def import_prices(path: Path, source: str, file_format: str = "csv", market: str = "retail_new",
                  currency: str = "USD") -> ImportResult:
    """Check the whole file, land it, and write one loaded source-run per day in one transaction."""
    source = check_source_name(source)
    if file_format not in FORMATS:
        raise ImportFileError(f"--format {file_format!r} is not one of {', '.join(FORMATS)}")
    if market not in IMPORT_MARKETS:
        raise ImportFileError(f"--market {market!r} is not one of {', '.join(IMPORT_MARKETS)}")
    body = path.read_bytes()
    prices = read_prices(body, file_format, source, market, currency)
    document = RawDocument(url=f"import:{path.name}", status=200, body=body, fetched_at=utc_now(),
                           content_type="application/json" if file_format == "keepa" else "text/csv")
    # Every row rule first, on the runs the file would make (nothing is landed for a file that cannot load).
    would_be = LandedRun(source=source, run_id="check", observed_at=utc_now(), data_origin="imported",
                         directory=path.parent, documents=[document], document_files=[path.name])
    _, _, problems = _checked_days(would_be, prices, len(body))
    if problems:
        raise ImportFileError(_bad_lines("nothing loaded; these lines fail the price rules a scraped row meets:",
                                         problems))
    # the file's own last observation (not the clock) dates the landing, so the same bytes land as the same run
    landed = land(source, max(price.observed_at for price in prices), [document], "imported")
    records, checked, _ = _checked_days(landed, prices, len(body))
    result = ImportResult(source=source, file_run_id=landed.run_id, prices=len(prices), days=len(records),
                          offers_loaded=checked.accepted.height, already_loaded=False,
                          first_day=records[0].observed_at.date(), last_day=records[-1].observed_at.date())
    with db.connect() as connection, transaction(connection):
        # any day-run of these bytes in the warehouse: the file was imported (days an earlier file held are skipped)
        if connection.execute("SELECT count(*) FROM raw.ingest_runs WHERE starts_with(run_id, ?)",
                              [f"{landed.run_id}-d"]).fetchone()[0]:
            return ImportResult(**{**result.__dict__, "already_loaded": True, "offers_loaded": 0})
        records, checked = _without_days_already_imported(connection, records, checked)
        if records:
            write_runs(connection, landed, records, checked)
    return ImportResult(**{**result.__dict__, "days": len(records), "offers_loaded": checked.accepted.height})


def _without_days_already_imported(connection, records: list[IngestRecord], checked: IntegrityResult
                                   ) -> tuple[list[IngestRecord], IntegrityResult]:
    """An offer's day that an earlier file of the same source holds stays as it was (the first import of a day
    stands; each offer is in the daily tables once a day). Day-runs left empty are not written."""
    source = records[0].source
    held = connection.execute("""
        SELECT DISTINCT cast(timezone('UTC', offers.observed_at) AS date) AS day, offers.offer_id, offers.pricing_type
        FROM raw.offers AS offers JOIN raw.ingest_runs AS runs USING (run_id, parser_version)
        WHERE runs.trigger = 'import' AND runs.status = 'loaded' AND offers.source = ?""", [source]).pl()
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


def import_bundled_histories() -> list[dict]:
    """The offline run's imported history: the real Amazon (Keepa) price histories bundled in
    recordings/retail_history/, as source `keepa-amazon`. A file that cannot load is reported, never raised."""
    results = []
    for path in sorted(BUNDLED_HISTORIES.glob("*.json")):
        try:
            result = import_prices(path, BUNDLED_HISTORY_SOURCE, "keepa")
            results.append({"file": path.name, "source": result.source, "prices": result.prices, "days": result.days,
                            "already_loaded": result.already_loaded, "error": None})
        except ImportFileError as error:
            results.append({"file": path.name, "source": BUNDLED_HISTORY_SOURCE, "prices": 0, "days": 0,
                            "already_loaded": False, "error": " ".join(str(error).split())[:300]})
    return results


def imported_sources(connection) -> list[str]:
    """Sources whose runs came from `gpuprices import prices` (the dashboards mark their series as imported)."""
    return [row[0] for row in connection.execute(
        "SELECT DISTINCT source FROM raw.ingest_runs WHERE trigger = 'import' ORDER BY source").fetchall()]
