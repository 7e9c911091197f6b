"""The dbt build (models/): seeds, staging, intermediate, marts and every data and unit test, incremental by day."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import shutil
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import yaml

from config import settings
from config.settings import PROJECT_ROOT, data_home
from scrapers.gpu_names import resolve_gpu_id
from warehouse.store import db
from warehouse.store.paths import database_target, is_hosted
from warehouse.store.progress import progress, utc_now

MODELS_DIR = PROJECT_ROOT / "models"
# dbt's saved parse of the models, kept per checkout so that a new data home's first build skips the full parse
# (dbt checks it against every model file, the vars and the connection settings, and parses again what changed)
PARSE_STATE = "partial_parse.msgpack"
PARSE_CACHE = PROJECT_ROOT / ".cache" / "dbt" / PARSE_STATE
# Models renamed or removed: an older warehouse would keep serving their last build, stale, to anyone who queries them.
RETIRED_MODELS = ("intermediate.int_gpu_purchase_prices_daily", "intermediate.int_gpu_price_links__daily",
                  # daily marts named so (issue 27)
                  "marts.buy_signals", "marts.rent_vs_buy",
                  # monitoring in a schema of its own (issue 27)
                  "marts.unmatched_gpu_names", "marts.estimate_assumptions", "marts.source_runs",
                  "marts.source_freshness", "marts.source_quarantine")


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


def _project_var(name: str, dbt_vars: dict | None = None) -> int:
    if dbt_vars and name in dbt_vars:
        return int(dbt_vars[name])
    project = yaml.safe_load((MODELS_DIR / "dbt_project.yml").read_text())
    return int(project["vars"][name])


def carry_forward_days(dbt_vars: dict | None = None) -> int:
    """The dbt var carry_forward_days (models/dbt_project.yml, or a --vars override)."""
    return _project_var("carry_forward_days", dbt_vars)


def days_after_a_change(dbt_vars: dict | None = None) -> int:
    """How many days after a changed day a build rewrites: a day's snapshot is carried carry_forward_days days, and
    a provider's price is judged against its own suspect_jump_window_days days before (int_provider_prices__daily),
    and a price relative links a day to one up to price_index_max_gap_days before (gpu_price_relatives_daily).
    Days after the newest observation do not exist, so a daily run still rewrites its own day only."""
    return max(carry_forward_days(dbt_vars), _project_var("suspect_jump_window_days", dbt_vars),
               _project_var("price_index_max_gap_days", dbt_vars))


@dataclass
class BuildPlan:
    full_refresh: bool
    reason: str
    rebuild_dates: list[date]
    ingested_through: datetime | None  # the newest raw.ingest_runs.finished_at this build covers
    commit_seq_through: int | None = None  # the newest raw.ingest_runs.commit_seq: the build's "what is new" mark


def plan_build(connection, full_refresh: bool = False, dbt_vars: dict | None = None) -> BuildPlan:
    """Which days the build must (re)write: those of every source-run finished since the last complete build
    (new runs, re-parses, a failed run changes nothing but costs little) and the days after each that read it
    (days_after_a_change: carried snapshots, the suspect-price window), plus the week after each exchange-rate date
    such a run brought (prices convert at the last rate of the previous 7 days). A price import retracted since the
    last build (`gpuprices import undo`) makes it a full rebuild: the days it leaves without rows hold rows an
    incremental build would not clear (delete+insert replaces only the days it writes).

    "Since the last build" is by commit order (raw.ingest_runs.commit_seq, taken when a load commits), not by time:
    a load that started first but committed after another (it waited for the writer behind a reader and a later
    load) is still new to the next build. Rows loaded before commit_seq was recorded are judged by finished_at, as
    before."""
    ingested_through, seq_through = connection.execute(
        "SELECT max(finished_at), max(commit_seq) FROM raw.ingest_runs").fetchone()

    def plan(full: bool, reason: str, dates: list[date]) -> BuildPlan:
        return BuildPlan(full, reason, dates, ingested_through, seq_through)

    last = connection.execute(
        "SELECT ingested_through, models_fingerprint, started_at, commit_seq_through FROM meta.builds "
        # two builds can finish in one second (times are to the second): the one with the newer mark is the later
        "ORDER BY finished_at DESC, commit_seq_through DESC NULLS LAST, started_at DESC LIMIT 1").fetchone()
    if full_refresh:
        return plan(True, "full rebuild asked for", [])
    if last is None:
        return plan(True, "first build of this warehouse", [])
    if last[1] != models_fingerprint(dbt_vars):
        return plan(True, "models, seeds, tests or --vars changed since the last build", [])
    retracted = connection.execute("SELECT count(DISTINCT import_id) FROM raw.retractions WHERE kind = 'prices' "
                                   "AND retracted_at >= ?", [last[2]]).fetchone()[0]
    if retracted:
        return plan(True, f"{retracted} price import(s) retracted since the last build", [])
    since = last[0] or datetime(1970, 1, 1, tzinfo=UTC)
    # a build before commit_seq was recorded covered none of the numbered runs
    since_seq = last[3] or 0
    dates = [row[0] for row in connection.execute(
        """
        SELECT DISTINCT cast(timezone('UTC', observed_at) AS date) + cast(offset_days AS INTEGER)
        FROM raw.ingest_runs CROSS JOIN range($carry + 1) AS offsets(offset_days)
        WHERE (commit_seq > $since_seq OR (commit_seq IS NULL AND finished_at > $since))
          AND cast(timezone('UTC', observed_at) AS date) + cast(offset_days AS INTEGER)
              <= (SELECT max(cast(timezone('UTC', observed_at) AS date)) FROM raw.ingest_runs
                  WHERE run_id NOT IN (SELECT run_id FROM raw.retractions))
        UNION
        SELECT DISTINCT rates.rate_date + cast(offset_days AS INTEGER)
        FROM raw.fx_rates AS rates
        JOIN raw.ingest_runs AS runs USING (run_id, parser_version)
        CROSS JOIN range(8) AS offsets(offset_days)
        WHERE (runs.commit_seq > $since_seq OR (runs.commit_seq IS NULL AND runs.finished_at > $since))
        ORDER BY 1
        """, {"since": since, "since_seq": since_seq, "carry": days_after_a_change(dbt_vars)}).fetchall()]
    if len(dates) > MAX_INCREMENTAL_DAYS:
        return plan(True, f"{len(dates)} days changed since the last build", [])
    return plan(False, f"{len(dates)} day(s) changed since the last build", dates)


def refresh_gpu_name_matches(connection, days: list[date] | None = None) -> int:
    """meta.gpu_name_matches: every raw GPU name (offers by provider, quotes) through scrapers/gpu_names.py, the
    one resolution the models join. All names on a full rebuild (an alias change forces one: the seed is in the
    models' fingerprint); on an incremental build only names first seen on the rebuilt days are added. Returns the
    number of names resolved."""
    connection.execute("""CREATE TABLE IF NOT EXISTS meta.gpu_name_matches (
        scope VARCHAR NOT NULL, raw_gpu_name VARCHAR NOT NULL, gpu_id VARCHAR, PRIMARY KEY (scope, raw_gpu_name))""")
    if days is None:
        connection.execute("DELETE FROM meta.gpu_name_matches")
        window = "true"
    elif not days:
        return 0
    else:
        window = (f"observed_at >= timestamptz '{min(days)} 00:00:00+00' "
                  f"and observed_at < timestamptz '{max(days) + timedelta(days=1)} 00:00:00+00'")
    names = connection.execute(f"""
        SELECT DISTINCT provider, raw_gpu_name FROM raw.offers WHERE {window}
        UNION SELECT DISTINCT 'quotes', raw_gpu_name FROM raw.quotes
        EXCEPT SELECT scope, raw_gpu_name FROM meta.gpu_name_matches""").fetchall()
    if names:
        connection.executemany("INSERT INTO meta.gpu_name_matches VALUES (?, ?, ?)",
                               [(scope, name, resolve_gpu_id(name, scope)) for scope, name in names])
    return len(names)


def _dbt_args(command: str) -> list[str]:
    work = data_home() / "dbt"
    # --no-write-json: nothing reads dbt's manifest.json and run_results.json (the log says what failed); writing
    # them cost every build about 2.5 s of CPU. The saved parse (partial_parse.msgpack) is written all the same.
    return [command, "--project-dir", str(MODELS_DIR), "--profiles-dir", str(MODELS_DIR),
            "--target-path", str(work / "target"), "--log-path", str(work / "logs"), "--quiet", "--no-write-json"]


def _invoke_dbt(runner_class, args: list[str]):
    """dbt, called while the caller holds a writer connection (db.connect). dbt-duckdb's own connect in this process
    then opens the same DuckDB instance, so the file stays this process's from the build's plan to dbt's last node:
    another process's build or load waits in db.connect (GPUPRICES_LOCK_WAIT_S) like any writer. Without the held
    connection, another writer could take the file between the plan and dbt's first connect, or between two nodes
    (dbt-duckdb closes its connection when no node holds it), and dbt would fail at once with DuckDB's lock error."""
    target = database_target()
    saved_parse = data_home() / "dbt" / "target" / PARSE_STATE
    _copy_quietly(PARSE_CACHE, saved_parse, only_if_missing=True)
    if is_hosted():
        with settings.exported_database(target):  # what models/profiles.yml opens
            result = runner_class().invoke(args)
    else:
        # The file by its name, from its folder: the path dbt sees is then the same in every data home, and dbt's
        # saved parse (which it throws away when the connection's settings change) serves a new home too.
        database = Path(target).resolve()
        try:
            with settings.exported_database(database.name), contextlib.chdir(database.parent):
                result = runner_class().invoke(args)
        finally:
            # dbt-duckdb keeps one database open per process and reuses it while the profile's settings are equal:
            # with the same path in every home, the next build of another home in this process would write here
            from dbt.adapters.duckdb.connections import DuckDBConnectionManager  # loaded by the runner above

            DuckDBConnectionManager.close_all_connections()
    if result.success:
        _copy_quietly(saved_parse, PARSE_CACHE)
    return result


def _copy_quietly(source: Path, target: Path, only_if_missing: bool = False) -> None:
    """Copy dbt's parse state between a data home and the checkout's cache (atomically: builds may run at once); a
    cache that cannot be read or written costs a full parse (a few seconds), never a build."""
    if not source.is_file() or (only_if_missing and target.exists()):
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}")
        shutil.copyfile(source, partial)
        os.replace(partial, target)
    except OSError:
        pass



def load_dbt_in_background() -> threading.Thread:
    """Import dbt (2-3 s of Python) on a thread while the caller does work that is mostly native (polars, DuckDB)
    before it builds: `gpuprices import prices` loads its file meanwhile. build() then finds it loaded (or waits on
    Python's import lock for the rest). The caller joins the thread before it exits."""
    thread = threading.Thread(target=importlib.import_module, args=("dbt.cli.main",), name="load-dbt", daemon=True)
    thread.start()
    return thread


def run_unit_tests() -> int:
    """The models' unit tests (given rows -> expected rows for every formula) against the built warehouse (dbt reads
    the columns of their inputs from it); the daily build leaves them out, they test the SQL, not the day's data.
    Returns how many passed; raises when one fails."""
    from dbt.cli.main import dbtRunner  # heavy: only when it runs

    with db.connect():  # held while dbt runs: _invoke_dbt
        result = _invoke_dbt(dbtRunner, [*_dbt_args("test"), "--select", "test_type:unit"])
    if not result.success:
        raise RuntimeError("dbt unit tests failed: see " + str(data_home() / "dbt" / "logs" / "dbt.log"))
    return len(result.result.results) if result.result is not None else 0


def _ran_out_of_memory(result) -> bool:
    return any("Out of Memory Error" in (node.message or "") for node in getattr(result.result, "results", None) or [])


def drop_retired_models(connection) -> None:
    """Drop what an older warehouse still holds of RETIRED_MODELS (a table or a view)."""
    for relation in RETIRED_MODELS:
        schema, name = relation.split(".")
        found = connection.execute("SELECT table_type FROM information_schema.tables WHERE table_schema = ? "
                                   "AND table_name = ?", [schema, name]).fetchone()
        if found:
            connection.execute(f"DROP {'VIEW' if found[0] == 'VIEW' else 'TABLE'} {relation}")


def build(select: str | None = None, dbt_vars: str | None = None, full_refresh: bool = False) -> BuildPlan:
    """dbt build: seeds, staging, intermediate, marts, and every data test. Incremental: the day-by-day tables
    rewrite only the days that changed since the last build (plan_build); a full rebuild when asked, on the first
    build, or when the models changed. dbt_vars (YAML, e.g. '{mfu: 0.35}') overrides estimate assumptions for this
    build. A build limited by `select` is not recorded, so the next build still covers its days."""
    from dbt.cli.main import (
        dbtRunner,  # heavy (seconds to import): only when a build runs
    )

    variables = yaml.safe_load(dbt_vars) if dbt_vars else {}
    if not isinstance(variables, dict):
        raise ValueError(f"--vars must be a YAML mapping, got {dbt_vars!r}")
    overrides = dict(variables)
    # One writer connection from the plan to the last dbt node: see _invoke_dbt.
    with db.connect() as connection:  # creates the raw tables, or adds columns an older warehouse lacks
        plan = plan_build(connection, full_refresh, overrides)
        refresh_gpu_name_matches(connection, None if plan.full_refresh else plan.rebuild_dates)
        drop_retired_models(connection)
        started_at = utc_now()
        work = data_home() / "dbt"
        # the formulas' unit tests check the models' SQL, not the day's data: the test suite runs them (run_unit_tests)
        args = [*_dbt_args("build"), "--exclude-resource-type", "unit_test"]
        if plan.full_refresh:
            args.append("--full-refresh")
        if select:
            args += ["--select", select]
        if variables:
            args += ["--vars", json.dumps(variables)]
        progress(f"dbt build ({'full' if plan.full_refresh else 'incremental'}: {plan.reason})...")
        # the days to rewrite, read by the models when they run (models/macros/rebuilt_days.sql)
        connection.execute("DELETE FROM meta.build_in_progress")
        connection.execute("INSERT INTO meta.build_in_progress VALUES (?, ?)",
                           [plan.full_refresh, [] if plan.full_refresh else sorted(plan.rebuild_dates)])
        try:
            with db.memory_bound(connection) as lift_bound:  # for dbt's nodes too
                result = _invoke_dbt(dbtRunner, args)
                if not result.success and _ran_out_of_memory(result):  # a query that cannot spill (windows, medians)
                    progress("dbt build ran out of its memory bound; again, with DuckDB's default...")
                    lift_bound()
                    result = _invoke_dbt(dbtRunner, args)
        finally:
            connection.execute("DELETE FROM meta.build_in_progress")
        if not result.success:
            raise RuntimeError(f"dbt build failed: {result.exception or 'see ' + str(work / 'logs' / 'dbt.log')}")
        if not select:
            connection.execute(
                "INSERT INTO meta.builds BY NAME SELECT ? AS started_at, ? AS finished_at, ? AS ingested_through, "
                "? AS full_refresh, ? AS rebuilt_days, ? AS models_fingerprint, ? AS commit_seq_through",
                [started_at, utc_now(), plan.ingested_through, plan.full_refresh, len(plan.rebuild_dates),
                 models_fingerprint(overrides), plan.commit_seq_through],
            )
    return plan


