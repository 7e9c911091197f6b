"""`gpuprices status`: last run and freshness per source (and, for a SkyPilot catalog that did not read the newest
published schema, which one it read and why), quarantined results, suspect prices, unmatched GPU names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from scrapers.cloud.skypilot import catalog_notes
from warehouse.store import db
from warehouse.store.build import carry_forward_days
from warehouse.store.freshness import age_of, source_age
from warehouse.store.incidents import listed as listed_incidents
from warehouse.store.incidents import render_line as incident_line


def _has_table(connection, schema: str, table: str) -> bool:
    return bool(
        connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", [schema, table]
        ).fetchone()[0]
    )


# Days between a source's last loaded run (`last_loaded_at`) and the newest day any source ran: the clock of the
# carry-forward window (int_offers__daily), read by `status` and the dashboards' freshness table.
DAYS_BEHIND_NEWEST_SQL = """date_diff('day', timezone('UTC', last_loaded_at)::date,
    (SELECT max(timezone('UTC', observed_at)::date) FROM raw.ingest_runs))"""


IN_NEWEST_DAY = "in the newest day's figures"


def staleness(days_behind: int | None, carry_days: int, imported: bool = False) -> str:
    """A source's state in the daily tables, from how many days its last loaded run is behind the newest run day:
    in the newest day's figures, stale but carried forward (int_offers__daily.is_carried_forward), or dropped. This
    is no clock: a warehouse whose newest day is months old has every source in its newest day's figures (how old
    they are by the clock: warehouse/store/freshness.py source_age). A source whose every run came from `gpuprices import
    prices` is history, not a feed: it has no freshness."""
    if imported:
        return "imported history (gpuprices import prices): no daily feed to be fresh or stale"
    if days_behind is None:
        return "never loaded"
    if days_behind <= 0:
        return IN_NEWEST_DAY
    if days_behind <= carry_days:
        return f"stale: last good snapshot carried forward ({days_behind} of {carry_days} days)"
    return f"stale: dropped from the daily figures ({days_behind} days without a good run)"


# The prices the market figures set aside on the newest price day (int_provider_prices__daily's rules), as listed
# by source: the same query for `gpuprices status` and the sources page.
SUSPECT_PRICES_SQL = """
    SELECT price_date, source, provider, gpu_id, market, price_per,
           min_price_usd AS price_usd, suspect_reason, is_synthetic
    FROM marts.gpu_prices_by_source_daily
    WHERE suspect_reason IS NOT NULL
      AND price_date = (SELECT max(price_date) FROM marts.gpu_prices_by_source_daily)
    ORDER BY source, gpu_id, market"""


def status() -> dict:
    now = datetime.now(UTC)
    with db.connect(read_only=True) as connection:
        sources = db.fetch_dicts(
            connection,
            f"""
            WITH last_run AS (
                -- the last run: the newest observation, and of two runs of one observation (a rerun) the later
                SELECT source, arg_max(status, (observed_at, finished_at)) AS last_status,
                       max(observed_at) AS last_observed_at,
                       arg_max(error, (observed_at, finished_at)) AS last_error, count(*) AS runs,
                       bool_and(trigger = 'import') AS is_imported
                FROM raw.ingest_runs GROUP BY source
            ), last_good AS (
                SELECT source, max(observed_at) AS last_loaded_at,
                       arg_max(rows_loaded, observed_at) AS rows_in_last_load,
                       bool_or(is_synthetic) AS has_synthetic_rows
                FROM raw.ingest_runs WHERE status = 'loaded' GROUP BY source
            )
            SELECT *, {DAYS_BEHIND_NEWEST_SQL} AS days_behind_newest
            FROM last_run LEFT JOIN last_good USING (source) ORDER BY source
            """,
        )
        # the newest observation of a feed (imports and backfills bring history observed elsewhere or earlier)
        newest_run_at = connection.execute(
            "SELECT max(observed_at) FROM raw.ingest_runs WHERE trigger NOT IN ('import', 'backfill')").fetchone()[0]
        carry_days = carry_forward_days()
        notes = catalog_notes()  # which catalog schema each discovering SkyPilot source read, and why
        for row in sources:
            by_clock = source_age(row["last_loaded_at"], now, row["is_imported"])
            row["age_hours"], row["freshness"], row["freshness_note"] = by_clock.hours, by_clock.state, by_clock.words
            row["age_days"] = by_clock.age.days if by_clock.age else None
            row["state"] = staleness(row["days_behind_newest"], carry_days, row["is_imported"])
            choice = notes.get(row["source"])
            row["catalog_version"] = choice.version_used if choice else None
            row["catalog_note"] = choice.note if choice else None
        quarantined = db.fetch_dicts(
            connection,
            """
            SELECT source, observed_at, reason FROM raw.quarantine WHERE scope = 'result'
            ORDER BY observed_at DESC LIMIT 20
            """,
        )
        rejected_rows = db.fetch_dicts(
            connection,
            """
            SELECT source, reason, count(*) AS rows, max(observed_at) AS last_seen_at
            FROM raw.quarantine WHERE scope = 'row' GROUP BY ALL ORDER BY source, rows DESC
            """,
        )
        # `gpuprices import prices --bad-rows quarantine`: per imported file, its held-back rows and the first reasons
        imported_rows = db.fetch_dicts(
            connection,
            """
            SELECT source, run_id, any_value(json_extract_string(detail, '$.file')) AS file, count(*) AS rows,
                   list(json_extract_string(detail, '$.problem')
                        ORDER BY json_extract(detail, '$.line')::BIGINT)[1:3] AS first_reasons,
                   max(quarantined_at) AS quarantined_at
            FROM raw.quarantine WHERE scope = 'row' AND json_extract(detail, '$.line') IS NOT NULL
            GROUP BY source, run_id ORDER BY max(quarantined_at) DESC, source LIMIT 20
            """,
        )
        if _has_table(connection, "monitoring", "unmatched_gpu_names"):
            unmatched_sql = "SELECT * FROM monitoring.unmatched_gpu_names ORDER BY source, observation_count DESC"
        else:  # before the first dbt build: the parser's own resolution
            unmatched_sql = """
                SELECT source, provider, raw_gpu_name, count(*) AS observation_count,
                       count(DISTINCT offer_id) AS offer_count, min(observed_at) AS first_seen_at,
                       max(observed_at) AS last_seen_at
                FROM raw.offers WHERE gpu_id IS NULL GROUP BY ALL ORDER BY source, observation_count DESC
            """
        unmatched = db.fetch_dicts(connection, unmatched_sql)
        suspect = db.fetch_dicts(connection, SUSPECT_PRICES_SQL) if _has_table(
            connection, "marts", "gpu_prices_by_source_daily") else []
        incidents = listed_incidents(open_only=True, connection=connection)  # meta.source_incidents
    newest_age = age_of(newest_run_at, now)
    return {
        "checked_at": now,
        "newest_run_at": newest_run_at,
        "newest_run_age_hours": round((now - newest_run_at).total_seconds() / 3600, 1) if newest_run_at else None,
        "newest_run_age": newest_age.as_dict() if newest_age else None,
        "sources": sources,
        "quarantined_results": quarantined,
        "quarantined_rows": rejected_rows,
        "imported_rows_held_back": imported_rows,
        "unmatched_gpu_names": unmatched,
        "suspect_prices": suspect,
        "open_incidents": incidents,
    }


# Runs that ended without loading for a reason a scheduler must hear about. Not `skipped`: a source without its API
# key is skipped by configuration, every day, and says so in `status`.
FAILED_STATUSES = ("failed", "blocked", "parse_error", "quarantined")


def _hours(delta: timedelta) -> str:
    return f"{delta.total_seconds() / 3600:.1f} h"


def problems(report: dict, max_age: timedelta) -> list[str]:
    """`gpuprices status --check`: one line per problem. The newest feed run older than `max_age` by the wall clock
    (a scheduler that stopped); a source whose last run failed; a source whose daily rows are a carried-forward
    snapshot or that was dropped from them; an open source incident (warehouse/store/incidents.py: it stays a problem
    until the source loads normally again or it is closed by hand, so a source loading under half its usual offers
    is one too). Imported histories have no feed to check."""
    found = []
    newest = report["newest_run_at"]
    if newest is None:
        found.append("no run yet: nothing has been collected (gpuprices run)")
    elif report["checked_at"] - newest > max_age:
        age = _hours(report["checked_at"] - newest)
        found.append(f"newest run {newest.astimezone(UTC):%Y-%m-%d %H:%M} UTC is {age} old by the clock, over the "
                     f"max age of {_hours(max_age)}: is the daily job still scheduled?")
    for source in report["sources"]:
        if source["is_imported"]:
            continue
        if source["last_status"] in FAILED_STATUSES:
            error = " ".join((source["last_error"] or "").split())[:200]
            found.append(f"{source['source']}: last run {source['last_status']} "
                         f"({source['last_observed_at'].astimezone(UTC):%Y-%m-%d %H:%M} UTC)"
                         + (f": {error}" if error else ""))
        if source["state"].startswith("stale"):
            found.append(f"{source['source']}: {source['state']}")
    for incident in report.get("open_incidents", []):
        found.append(f"{incident['source']}: open incident {incident['incident_id']} ({incident['kind']}) since "
                     f"{incident['opened_at'].astimezone(UTC):%Y-%m-%d %H:%M} UTC: "
                     f"{' '.join(incident['detail'].split())[:200]}")
    return found


def render(report: dict) -> str:
    newest = report.get("newest_run_at")
    age = report.get("newest_run_age")
    stale = (f" (over the {age['stale_after_days']}-day limit: every figure is stale)"
             if age and age["is_stale"] else "")
    lines = [f"Newest run: {newest.astimezone(UTC):%Y-%m-%d %H:%M} UTC, {report['newest_run_age_hours']} h ago{stale}"
             if newest else "Newest run: none yet", ""]
    lines.append("Sources (last run; freshness = time since the last loaded observation, by the clock)")
    for s in report["sources"]:
        age = f"{s['age_hours']}h ago" if s["age_hours"] is not None else "never loaded"
        synthetic = "  [synthetic rows]" if s["has_synthetic_rows"] else ""
        lines.append(
            f"  {s['source']:23} last={s['last_status']:12} at {s['last_observed_at']:%Y-%m-%d %H:%M}  "
            f"loaded {age}, {s['rows_in_last_load'] or 0} offers, {s['runs']} runs{synthetic}"
        )
        if s.get("freshness") not in (None, "fresh", "imported"):
            lines.append(f"      {s['freshness_note']}")
        if s["state"] != IN_NEWEST_DAY:
            lines.append(f"      {s['state']}")
        if s["last_status"] != "loaded" and s["last_error"]:
            lines.append(f"      error: {s['last_error'][:200]}")
        if s.get("catalog_note"):
            lines.append(f"      catalog: {s['catalog_note'][:300]}")
    lines.append("\nOpen incidents (a source that broke; closed when it loads normally again, or by hand: "
                 "gpuprices incidents)")
    lines += [f"  {incident_line(incident)}" for incident in report.get("open_incidents", [])]
    if not report.get("open_incidents"):
        lines.append("  none")
    lines.append("\nQuarantined results (latest 20)")
    lines += [f"  {q['source']:23} {q['observed_at']:%Y-%m-%d %H:%M}  {q['reason']}" for q in report["quarantined_results"]]
    if not report["quarantined_results"]:
        lines.append("  none")
    lines.append("\nRows held back by the integrity check")
    lines += [f"  {r['source']:23} {r['reason']:20} {r['rows']} rows" for r in report["quarantined_rows"]]
    if not report["quarantined_rows"]:
        lines.append("  none")
    lines.append("\nImported rows held back (gpuprices import prices --bad-rows quarantine; latest 20 imports)")
    for held in report.get("imported_rows_held_back", []):
        lines.append(f"  {held['source']:23} {held['file']}: {held['rows']} rows ({held['run_id']})")
        lines += [f"      {reason[:200]}" for reason in held["first_reasons"]]
    if not report.get("imported_rows_held_back"):
        lines.append("  none")
    lines.append("\nSuspect prices on the newest day (kept by source, left out of every cheapest answer; "
                 "marts.gpu_market_prices_daily)")
    lines += [f"  {p['source']:23} {p['gpu_id']:20} {p['market']:22} {p['price_usd']:>10.2f} USD  {p['suspect_reason'][:200]}"
              for p in report.get("suspect_prices", [])]
    if not report.get("suspect_prices"):
        lines.append("  none")
    lines.append("\nUnmatched GPU names (kept in raw, no gpu_id; add an alias to models/seeds/gpu_aliases.csv)")
    lines += [
        f"  {u['source']:23} {u['raw_gpu_name']!r:32} {u['observation_count']} observations, last {u['last_seen_at']:%Y-%m-%d}"
        for u in report["unmatched_gpu_names"]
    ]
    if not report["unmatched_gpu_names"]:
        lines.append("  none")
    return "\n".join(lines)
