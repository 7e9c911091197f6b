"""The pipeline stages, each runnable alone: fetch (+land), ingest (parse, normalize, check, load), build,
export, report. The Prefect flow and the CLI call these same functions; no logic lives only in one of them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from scrapers.base import Source
from scrapers.errors import BlockedError, ParseError, SourceError
from scrapers.http import HttpClient
from warehouse import db
from warehouse.integrity import check
from warehouse.landing import LandedRun, iter_landed_runs, land, read_landed
from warehouse.load import IngestRecord, already_ingested, load_run, record_without_landing
from warehouse.normalize import normalize
from warehouse.paths import PROJECT_ROOT, data_home, database_target, export_root

MODELS_DIR = PROJECT_ROOT / "models"
EXPORTED_MARTS = (
    "gpu_prices_daily", "gpu_prices_by_source_daily", "price_performance_daily", "training_cost_daily",
    "inference_cost_daily", "rent_vs_buy", "buy_signals",
)


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def progress(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


# -- fetch ---------------------------------------------------------------------------------------------------------
async def fetch_and_land(
    source: Source, client: HttpClient, observed_at: datetime, data_origin: str = "captured"
) -> LandedRun:
    """Fetch every raw document of a source and land them on disk. Raises a SourceError on failure."""
    source.require_key()
    source.require_watch_list()
    documents = await source.fetch(client)
    return land(source.id, observed_at, documents, data_origin)


# -- ingest --------------------------------------------------------------------------------------------------------
def ingest(source: Source, run: LandedRun, trigger: str, started_at: datetime | None = None) -> IngestRecord:
    """Parse a landed run with the source's current parser, check it, load it (one transaction)."""
    started_at = started_at or utc_now()
    clock = time.monotonic()
    record = IngestRecord(
        run_id=run.run_id,
        parser_version=source.parser_version,
        source=source.id,
        status="loaded",
        observed_at=run.observed_at,
        started_at=started_at,
        finished_at=started_at,
        documents_fetched=len(run.documents),
        bytes_fetched=run.bytes_fetched,
        landing_path=run.relative_path,
        is_synthetic=run.is_synthetic,
        trigger=trigger,
    )
    with db.connect() as connection:
        previous = already_ingested(connection, run.run_id, source.parser_version)
    if previous is not None:  # the same observation, same parser: nothing to parse or load
        record.status, record.finished_at = f"already_{previous}", utc_now()
        return record
    integrity = None
    if source.kind == "fx_rates":
        return _ingest_rates(source, run, record, clock)
    try:
        offers = source.parse(run.documents)
        frame, _duplicates = normalize(offers, run, source.parser_version)
        record.offers_parsed = frame.height
        integrity = check(frame, source.expectations)
        record.offers_rejected = integrity.rejected.height
        if integrity.passed:
            record.offers_loaded = integrity.accepted.height
        else:
            record.status = "quarantined"
            record.error = "; ".join(integrity.result_reasons)
    except (ParseError, BlockedError) as error:  # a changed layout, a truncated body, a captcha page: kept, not loaded
        record.status, record.error = error.status, str(error)
    except Exception as error:  # noqa: BLE001 - a parser tripping on a shape it never saw is a parse error too
        record.status, record.error = "parse_error", f"{type(error).__name__}: {error}"
    record.finished_at = started_at + timedelta(seconds=time.monotonic() - clock)
    with db.connect() as connection:
        return load_run(connection, run, record, integrity)


def _ingest_rates(source: Source, run: LandedRun, record: IngestRecord, clock: float) -> IngestRecord:
    """A rates source: parse, check the whole result (a misread file is held back whole), load into raw.fx_rates.
    The ingest_runs counters count rates instead of offers."""
    from scrapers.ecb import check_rates

    rates = []
    try:
        rates = source.parse(run.documents)
        record.offers_parsed = len(rates)
        reasons = check_rates(rates, source.expectations.min_offers)
        if reasons:
            record.status, record.error = "quarantined", "; ".join(reasons)
        else:
            record.offers_loaded = len(rates)
    except ParseError as error:
        record.status, record.error = error.status, str(error)
    record.finished_at = record.started_at + timedelta(seconds=time.monotonic() - clock)
    with db.connect() as connection:
        return load_run(connection, run, record, None, fx_rates=rates)


def record_failure(
    source_id: str, parser_version: int, observed_at: datetime, error: BaseException, started_at: datetime, trigger: str
) -> IngestRecord:
    """A source that produced no documents: recorded in raw.ingest_runs with its reason; nothing else changes."""
    status = error.status if isinstance(error, SourceError) else "failed"
    record = IngestRecord(
        run_id=f"{source_id}-{observed_at:%Y%m%dT%H%M%SZ}-{status}",
        parser_version=parser_version,
        source=source_id,
        status=status,
        observed_at=observed_at,
        started_at=started_at,
        finished_at=max(utc_now(), started_at),
        error=f"{type(error).__name__}: {error}",
        trigger=trigger,
    )
    with db.connect() as connection:
        return record_without_landing(connection, record)


def records_observed_at(observed_at: datetime) -> list[IngestRecord]:
    """The ingest records of one observation time (what shards of a distributed run wrote)."""
    fields = list(IngestRecord.__dataclass_fields__)
    with db.connect() as connection:
        rows = db.fetch_dicts(
            connection, f"SELECT {', '.join(fields)} FROM raw.ingest_runs WHERE observed_at = ? ORDER BY source",
            [observed_at])
    return [IngestRecord(**row) for row in rows]


def ingest_landed_runs(
    sources: dict[str, Source], source_id: str | None = None, since: date | None = None, trigger: str = "reparse"
) -> list[IngestRecord]:
    """(Re)parse landed runs that the current parser version has not ingested yet. This is both `load` (after
    `fetch`) and `reparse` (after a parser fix bumps its parser_version): old rows stay, new rows are added."""
    records = []
    run_dirs = list(iter_landed_runs(source_id, since))
    with db.connect() as connection:
        pending = []
        for run_dir in run_dirs:
            source = sources.get(run_dir.parent.parent.name)
            if source and already_ingested(connection, run_dir.name, source.parser_version) is None:
                pending.append((source, run_dir))
    for number, (source, run_dir) in enumerate(pending, start=1):
        progress(f"ingest {number}/{len(pending)}: {source.id} {run_dir.name}")
        records.append(ingest(source, read_landed(run_dir), trigger))
    return records


# -- build (dbt) ---------------------------------------------------------------------------------------------------
# Past this many changed days an incremental build is no cheaper than a full one (an ECB history backfill, a
# re-parse of everything): build it all.
MAX_INCREMENTAL_DAYS = 120


def models_fingerprint(dbt_vars: dict | None = None) -> str:
    """A hash of every model, macro, seed and test and of the `--vars` overrides: when it changes (an upgrade, a new
    alias, other estimate assumptions) the next build is a full rebuild, so no table keeps days computed otherwise."""
    digest = hashlib.sha256(json.dumps(dbt_vars or {}, sort_keys=True, default=str).encode())
    for path in sorted(MODELS_DIR.rglob("*")):
        if path.is_file() and path.suffix in {".sql", ".yml", ".csv"}:
            digest.update(str(path.relative_to(MODELS_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass
class BuildPlan:
    full_refresh: bool
    reason: str
    rebuild_dates: list[date]
    ingested_through: datetime | None  # the newest raw.ingest_runs.finished_at this build covers


def plan_build(connection, full_refresh: bool = False, dbt_vars: dict | None = None) -> BuildPlan:
    """Which days the build must (re)write: those of every source-run finished since the last complete build
    (new runs, re-parses, a failed run changes nothing but costs little), plus the week after each exchange-rate
    date such a run brought (prices convert at the last rate of the previous 7 days)."""
    ingested_through = connection.execute("SELECT max(finished_at) FROM raw.ingest_runs").fetchone()[0]
    last = connection.execute(
        "SELECT ingested_through, models_fingerprint FROM meta.builds ORDER BY finished_at DESC LIMIT 1"
    ).fetchone()
    if full_refresh:
        return BuildPlan(True, "full rebuild asked for", [], ingested_through)
    if last is None:
        return BuildPlan(True, "first build of this warehouse", [], ingested_through)
    if last[1] != models_fingerprint(dbt_vars):
        return BuildPlan(True, "models, seeds, tests or --vars changed since the last build", [], ingested_through)
    since = last[0] or datetime(1970, 1, 1, tzinfo=UTC)
    dates = [row[0] for row in connection.execute(
        """
        SELECT DISTINCT cast(timezone('UTC', observed_at) AS date) FROM raw.ingest_runs WHERE finished_at > $since
        UNION
        SELECT DISTINCT rates.rate_date + cast(offset_days AS INTEGER)
        FROM raw.fx_rates AS rates
        JOIN raw.ingest_runs AS runs USING (run_id, parser_version)
        CROSS JOIN range(8) AS offsets(offset_days)
        WHERE runs.finished_at > $since
        ORDER BY 1
        """, {"since": since}).fetchall()]
    if len(dates) > MAX_INCREMENTAL_DAYS:
        return BuildPlan(True, f"{len(dates)} days changed since the last build", [], ingested_through)
    return BuildPlan(False, f"{len(dates)} day(s) changed since the last build", dates, ingested_through)


def build(select: str | None = None, dbt_vars: str | None = None, full_refresh: bool = False) -> BuildPlan:
    """dbt build: seeds, staging, intermediate, marts, and every data test. Incremental: the day-by-day tables
    rewrite only the days that changed since the last build (plan_build); a full rebuild when asked, on the first
    build, or when the models changed. dbt_vars (YAML, e.g. '{mfu: 0.35}') overrides estimate assumptions for this
    build. A build limited by `select` is not recorded, so the next build still covers its days."""
    import yaml
    from dbt.cli.main import dbtRunner

    os.environ["GPUPRICES_DB"] = database_target()  # the file, or md:<name> (MotherDuck)
    variables = yaml.safe_load(dbt_vars) if dbt_vars else {}
    if not isinstance(variables, dict):
        raise ValueError(f"--vars must be a YAML mapping, got {dbt_vars!r}")
    overrides = dict(variables)
    with db.connect() as connection:  # creates the raw tables, or adds columns an older warehouse lacks
        plan = plan_build(connection, full_refresh, overrides)
    started_at = utc_now()
    work = data_home() / "dbt"
    args = [
        "build", "--project-dir", str(MODELS_DIR), "--profiles-dir", str(MODELS_DIR),
        "--target-path", str(work / "target"), "--log-path", str(work / "logs"), "--quiet",
    ]
    if plan.full_refresh:
        args.append("--full-refresh")
    else:
        variables["rebuild_dates"] = [day.isoformat() for day in plan.rebuild_dates]
        # the same days for the data tests' `where` configs (models/macros/rebuilt_days.sql)
        variables["rebuild_dates_sql"] = ", ".join(f"date '{day}'" for day in plan.rebuild_dates) or "NULL"
        variables["rebuild_window_sql"] = (
            f"observed_at >= timestamptz '{min(plan.rebuild_dates)} 00:00:00+00' and observed_at < "
            f"timestamptz '{max(plan.rebuild_dates) + timedelta(days=1)} 00:00:00+00'" if plan.rebuild_dates else "false")
    if select:
        args += ["--select", select]
    if variables:
        args += ["--vars", json.dumps(variables)]
    progress(f"dbt build ({'full' if plan.full_refresh else 'incremental'}: {plan.reason})...")
    result = dbtRunner().invoke(args)
    if not result.success:
        raise RuntimeError(f"dbt build failed: {result.exception or 'see ' + str(work / 'logs' / 'dbt.log')}")
    if not select:
        with db.connect() as connection:
            connection.execute(
                "INSERT INTO meta.builds VALUES (?, ?, ?, ?, ?, ?)",
                [started_at, utc_now(), plan.ingested_through, plan.full_refresh, len(plan.rebuild_dates),
                 models_fingerprint(overrides)],
            )
    return plan


# -- export --------------------------------------------------------------------------------------------------------
def export_marts() -> list[Path]:
    """Each mart to Parquet partitioned by date (hive style: price_date=YYYY-MM-DD/), as a new version directory
    (export/.versions/<mart>-<time>/) that the link export/<mart> is then switched to in one rename: a reader
    resolves the link once and reads one complete version. The previous version is kept (a reader that opened it
    before the switch can finish); older ones are deleted."""
    written = []
    root = export_root()
    versions = root / ".versions"
    versions.mkdir(parents=True, exist_ok=True)
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}-{os.getpid()}"
    # Same (read-write) configuration as the dbt-duckdb connection that may still be open in this process.
    with db.connect() as connection:
        for mart in EXPORTED_MARTS:
            version = versions / f"{mart}-{stamp}"
            connection.execute(
                f"COPY (SELECT * FROM marts.{mart}) TO '{version}' (FORMAT PARQUET, PARTITION_BY (price_date))"
            )
            link = root / mart
            if link.is_dir() and not link.is_symlink():  # an export made before versions: replaced once
                shutil.rmtree(link)
            new_link = root / f".{mart}.link-{os.getpid()}"
            new_link.unlink(missing_ok=True)
            new_link.symlink_to(version.relative_to(root))  # relative: the export folder can be moved or synced
            os.replace(new_link, link)
            for old in sorted(versions.glob(f"{mart}-*"))[:-2]:
                shutil.rmtree(old, ignore_errors=True)
            written.append(link)
    return written


# -- report --------------------------------------------------------------------------------------------------------
@dataclass
class RunReport:
    observed_at: datetime
    records: list[IngestRecord] = field(default_factory=list)
    built: bool = False
    exported: list[str] = field(default_factory=list)
    dashboard: str | None = None        # the site directory, when it was built
    dashboard_error: str | None = None  # why it was not
    alerts: list[dict] = field(default_factory=list)            # alert events fired by this run
    alert_deliveries: list[dict] = field(default_factory=list)  # each (event, channel): delivered or failed
    alerts_error: str | None = None
    snapshot: str | None = None  # the copy readers use while the next run writes

    def as_dict(self) -> dict:
        return {
            "observed_at": self.observed_at.isoformat(),
            "snapshot": self.snapshot,
            "built": self.built,
            "exported": self.exported,
            "dashboard": self.dashboard,
            "dashboard_error": self.dashboard_error,
            "alerts": [{key: (value if isinstance(value, (str, int, float, bool, type(None))) else str(value))
                        for key, value in event.items()} for event in self.alerts],
            "alert_deliveries": self.alert_deliveries,
            "alerts_error": self.alerts_error,
            "sources": [
                {
                    "source": r.source, "status": r.status, "run_id": r.run_id, "offers_loaded": r.offers_loaded,
                    "offers_rejected": r.offers_rejected, "duration_s": round(r.row()["duration_s"], 3),
                    "is_synthetic": r.is_synthetic, "error": r.error,
                }
                for r in self.records
            ],
        }

    def write(self) -> Path:
        reports = data_home() / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        path = reports / f"run-{self.observed_at:%Y%m%dT%H%M%SZ}.json"
        path.write_text(json.dumps(self.as_dict(), indent=2))
        return path

    def summary(self) -> str:
        """One line per source: its runs by status, offers loaded and rows held back, the last error."""
        by_source: dict[str, list[IngestRecord]] = {}
        for record in self.records:
            by_source.setdefault(record.source, []).append(record)
        lines = [f"run up to {self.observed_at:%Y-%m-%d %H:%M} UTC"]
        for source, records in sorted(by_source.items()):
            statuses = Counter(r.status for r in records)
            status_text = ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
            flag = " [synthetic]" if any(r.is_synthetic for r in records) else ""
            loaded = sum(r.offers_loaded for r in records)
            rejected = sum(r.offers_rejected for r in records)
            lines.append(f"  {source:18} {status_text:36} loaded={loaded:<7} rejected={rejected:<5}{flag}")
            errors = [r.error for r in records if r.error]
            if errors:
                lines.append(f"      last error: {errors[-1][:200]}")
        return "\n".join(lines)
