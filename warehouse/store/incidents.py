"""Source incidents: the operator hears when a source breaks, once, and once more when it loads normally again.

Judged after each run's load (flows/daily.py), per source, from its feed runs in raw.ingest_runs (daily and offline
runs; imports, backfills and re-parses are not a feed). One observation is one run: of two runs of the same
observation (a rerun), the one that finished last counts. A `skipped` run (no API key) counts for nothing.

An incident opens when the source's newest run
- hit a ParseError (`parse_error`: the page or API changed shape): at once, it will not fix itself;
- was the FAILURES_IN_A_ROW-th run in a row that did not load (`failed`, `blocked`, `quarantined`, `parse_error`):
  `repeated_failure`; one failure is often a bad minute of the network, and is already a line of `status --check`;
- loaded fewer than LOW_SHARE of its usual offers (`low_offers`): usual = the median offer count of the source's
  last USUAL_RUNS loaded runs before it, judged only with at least MIN_USUAL_RUNS of them. The median, not the mean:
  one odd day does not move it. Loaded runs, not only good ones: a source that lastingly lists fewer offers (a
  provider that dropped half its catalog) has a new usual once most of its last USUAL_RUNS loaded runs are at that
  level (the 5th such run is judged against it), and its incident closes saying so (`new_usual`), instead of
  staying open for ever.

It closes when the newest run loaded normally (loaded, and not under LOW_SHARE of its usual): `recovered`. A source
has at most one open incident; a source that breaks another way while one is open adds nothing (it is still broken).
An incident closed by hand (`gpuprices incidents close`) is not reopened by the runs it was closed over: only a
newer run that is broken opens the next one.

Messages go through the alert deliveries (analytics/alerts/delivery.py send_notices, passed in as `send`): one when an
incident opens, one when it recovers; never again for the same incident. A message that reached no delivery (every
delivery failed) is tried again at the next run while it still applies; with no delivery configured, nothing is sent
and the run report says so. Rows of meta.source_incidents are opened and closed, never deleted.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from config.redact import redact
from warehouse.store import db
from warehouse.store.db import fetch_dicts

KINDS = ("parse_error", "repeated_failure", "low_offers")
FAILURE_STATUSES = ("failed", "blocked", "quarantined", "parse_error")
FAILURES_IN_A_ROW = 2
USUAL_RUNS = 7        # a week of daily runs
MIN_USUAL_RUNS = 3    # fewer loaded runs than this: no usual yet, the low-offers rule waits
LOW_SHARE = 0.5       # under half of the usual count
HISTORY_RUNS = 60     # observations read per source (enough for the streak, the usual and the last good run)
FEED_TRIGGERS_EXCLUDED = ("import", "backfill", "reparse")

Send = Callable[[list[dict]], list[dict]]
NO_DELIVERY_NOTE = ("incident messages not sent: no alert delivery configured (GPUPRICES_ALERT_WEBHOOK_URL, or "
                   "GPUPRICES_ALERT_EMAIL_TO with GPUPRICES_SMTP_HOST); the next run with one sends them")


@dataclass(frozen=True)
class Observation:
    """One run of a source, as the incident rules read it."""

    run_id: str
    observed_at: datetime
    status: str
    rows_loaded: int
    error: str | None = None
    usual: float | None = None  # the median offers of the previous USUAL_RUNS loaded runs (at least MIN_USUAL_RUNS)
    usual_runs: int = 0         # how many loaded runs that median is of

    @property
    def failure(self) -> bool:
        return self.status in FAILURE_STATUSES

    @property
    def low(self) -> bool:
        return self.status == "loaded" and self.usual is not None and self.rows_loaded < LOW_SHARE * self.usual

    @property
    def good(self) -> bool:
        return self.status == "loaded" and not self.low


@dataclass(frozen=True)
class Verdict:
    state: str  # broken | healthy | pending (a first failure: wait for the next run) | unknown (nothing to judge)
    run: Observation | None = None
    kind: str | None = None
    detail: str = ""
    last_good: Observation | None = None


def with_usual(observations: list[Observation]) -> list[Observation]:
    """Each observation (oldest first, skipped ones left out) with the usual offer count before it."""
    annotated, loaded = [], []
    for observation in observations:
        previous = loaded[-USUAL_RUNS:]
        usual = statistics.median(previous) if len(previous) >= MIN_USUAL_RUNS else None
        annotated.append(Observation(observation.run_id, observation.observed_at, observation.status,
                                     observation.rows_loaded, observation.error, usual,
                                     len(previous) if usual is not None else 0))
        if observation.status == "loaded":
            loaded.append(observation.rows_loaded)
    return annotated


def _when(moment: datetime | None) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if moment else "never"


def _one_line(text: str | None, limit: int = 300) -> str:
    return " ".join((text or "").split())[:limit]


def judge(observations: list[Observation]) -> Verdict:
    """The state of a source from its runs, oldest first (skipped ones included: a newest run that was skipped
    judges nothing)."""
    if not observations or observations[-1].status == "skipped":
        return Verdict("unknown")
    runs = with_usual([o for o in observations if o.status != "skipped"])
    last = runs[-1]
    last_good = next((o for o in reversed(runs[:-1]) if o.good), None)
    if last.status == "parse_error":
        return Verdict("broken", last, "parse_error", f"parse error: {_one_line(last.error)}", last_good)
    if last.failure:
        streak = 0
        for observation in reversed(runs):
            if not observation.failure:
                break
            streak += 1
        if streak < FAILURES_IN_A_ROW:
            return Verdict("pending", last, last_good=last_good)
        statuses = ", ".join(o.status for o in runs[-streak:])
        return Verdict("broken", last, "repeated_failure",
                       f"{streak} runs in a row did not load ({statuses}); last error: {_one_line(last.error)}",
                       last_good)
    if last.low:
        return Verdict("broken", last, "low_offers",
                       f"loaded {last.rows_loaded} offers, under {LOW_SHARE:.0%} of its usual {last.usual:g} (the "
                       f"median of its last {last.usual_runs} loaded runs)", last_good)
    if last.status == "loaded":
        return Verdict("healthy", last, last_good=last)
    return Verdict("unknown", last)


OBSERVATIONS_SQL = f"""
SELECT source, observed_at, arg_max(run_id, finished_at) AS run_id, arg_max(status, finished_at) AS status,
       arg_max(rows_loaded, finished_at) AS rows_loaded, arg_max(error, finished_at) AS error
FROM raw.ingest_runs
WHERE source IN (SELECT unnest($sources)) AND trigger NOT IN {FEED_TRIGGERS_EXCLUDED}
GROUP BY source, observed_at
QUALIFY row_number() OVER (PARTITION BY source ORDER BY observed_at DESC) <= {HISTORY_RUNS}
ORDER BY source, observed_at
"""


def observations(connection, sources: Iterable[str]) -> dict[str, list[Observation]]:
    """Each source's feed runs, oldest first (the newest HISTORY_RUNS)."""
    found: dict[str, list[Observation]] = {}
    for row in fetch_dicts(connection, OBSERVATIONS_SQL, {"sources": sorted(set(sources))}):
        source = row.pop("source")
        found.setdefault(source, []).append(Observation(**row))
    return found


COLUMNS = ("incident_id", "source", "kind", "detail", "opened_at", "opened_run_id", "opened_observed_at",
           "last_good_run", "last_good_at", "usual_offers", "notified_at", "closed_at", "closed_run_id",
           "closed_observed_at", "close_reason", "recovery_notified_at")


def _open_incidents(connection, sources: list[str]) -> dict[str, dict]:
    """Each source's open incident (the newest, were there more), in one query for all of them."""
    rows = fetch_dicts(connection, f"SELECT {', '.join(COLUMNS)} FROM meta.source_incidents "
                                   "WHERE source IN (SELECT unnest($sources)) AND closed_at IS NULL "
                                   "QUALIFY row_number() OVER (PARTITION BY source ORDER BY opened_at DESC) = 1",
                       {"sources": sources})
    return {row["source"]: row for row in rows}


def _open(connection, source: str, verdict: Verdict, now: datetime) -> dict | None:
    """A new incident, unless the run that shows the break was already judged by a closed one (closed by hand)."""
    judged_through, count = connection.execute(
        "SELECT max(closed_observed_at), count(*) FROM meta.source_incidents WHERE source = ?", [source]).fetchone()
    if judged_through is not None and verdict.run.observed_at <= judged_through:
        return None
    good = verdict.last_good
    incident = {
        "incident_id": f"{source}#{count + 1}", "source": source, "kind": verdict.kind,
        "detail": redact(verdict.detail), "opened_at": now, "opened_run_id": verdict.run.run_id,
        "opened_observed_at": verdict.run.observed_at, "last_good_run": good.run_id if good else None,
        "last_good_at": good.observed_at if good else None, "usual_offers": verdict.run.usual,
        "notified_at": None, "closed_at": None, "closed_run_id": None, "closed_observed_at": None,
        "close_reason": None, "recovery_notified_at": None,
    }
    connection.execute(f"INSERT INTO meta.source_incidents ({', '.join(COLUMNS)}) VALUES "
                       f"({', '.join('?' for _ in COLUMNS)})", [incident[c] for c in COLUMNS])
    return incident


def _close(connection, incident: dict, run: Observation, now: datetime, reason: str) -> dict:
    connection.execute(
        "UPDATE meta.source_incidents SET closed_at = ?, closed_run_id = ?, closed_observed_at = ?, close_reason = ? "
        "WHERE incident_id = ?", [now, run.run_id, run.observed_at, reason, incident["incident_id"]])
    return {**incident, "closed_at": now, "closed_run_id": run.run_id, "closed_observed_at": run.observed_at,
            "close_reason": reason, "rows_loaded": run.rows_loaded, "usual_now": run.usual}


def _recovery_reason(incident: dict, run: Observation) -> str:
    """`new_usual` when a low-offers incident closes because its usual moved down to the new level, not because
    the offers came back."""
    before = incident["usual_offers"]
    if incident["kind"] == "low_offers" and before is not None and run.rows_loaded < LOW_SHARE * before:
        return "new_usual"
    return "recovered"


# -- messages -------------------------------------------------------------------------------------------------------
def _last_good_text(incident: dict) -> str:
    if not incident["last_good_run"]:
        return "no good run on record"
    return f"{incident['last_good_run']} (observed {_when(incident['last_good_at'])})"


def opening_notice(incident: dict) -> dict:
    message = (f"gpuprices: source {incident['source']} is broken ({incident['kind']}): {incident['detail']}. "
               f"Last good run: {_last_good_text(incident)}. Incident {incident['incident_id']} opened "
               f"{_when(incident['opened_at'])} (run {incident['opened_run_id']}); `gpuprices status` lists it, "
               "one more message when it loads normally again.")
    return _notice(incident, "opened", f"source {incident['source']} broke: {incident['kind']}", message)


def recovery_notice(incident: dict, rows_loaded: int | None = None, usual_now: float | None = None) -> dict:
    loaded = f" loaded {rows_loaded} offers" if rows_loaded is not None else " loaded normally"
    if incident["close_reason"] == "new_usual":
        message = (f"gpuprices: source {incident['source']}: incident {incident['incident_id']} (low_offers, opened "
                   f"{_when(incident['opened_at'])}) closed: run {incident['closed_run_id']}{loaded}, now its usual "
                   f"(the median of its last {USUAL_RUNS} loaded runs"
                   + (f", {usual_now:g}" if usual_now is not None else "")
                   + f"); the usual was {incident['usual_offers']:g} when it opened. Last good run before it: "
                   f"{_last_good_text(incident)}.")
        subject = f"source {incident['source']}: fewer offers is its new usual"
    else:
        message = (f"gpuprices: source {incident['source']} recovered: run {incident['closed_run_id']} (observed "
                   f"{_when(incident['closed_observed_at'])}){loaded}. Incident {incident['incident_id']} "
                   f"({incident['kind']}, opened {_when(incident['opened_at'])}) is closed; last good run before "
                   f"it: {_last_good_text(incident)}.")
        subject = f"source {incident['source']} recovered"
    return _notice(incident, "recovered", subject, message)


def _notice(incident: dict, what: str, subject: str, message: str) -> dict:
    return {
        "event_id": f"incident:{incident['incident_id']}:{what}", "what": what,
        "subject": redact(f"[gpuprices] {subject}"), "message": redact(message),
        **{key: incident[key] for key in ("incident_id", "source", "kind", "detail", "last_good_run", "last_good_at",
                                          "opened_at", "closed_at", "close_reason")},
    }


def _pending(connection, sources: list[str]) -> list[tuple[dict, str]]:
    """(incident, opened | recovered) whose message has reached no delivery yet: open incidents not announced, and
    announced incidents that recovered (not those closed by hand)."""
    rows = fetch_dicts(
        connection,
        f"""SELECT {', '.join(COLUMNS)} FROM meta.source_incidents
            WHERE source IN (SELECT unnest($sources))
              AND ((closed_at IS NULL AND notified_at IS NULL)
                   OR (closed_at IS NOT NULL AND notified_at IS NOT NULL AND recovery_notified_at IS NULL
                       AND closed_run_id IS NOT NULL))
            ORDER BY opened_at, incident_id""", {"sources": sorted(set(sources))})
    return [(row, "opened" if row["closed_at"] is None else "recovered") for row in rows]


# -- the evaluation after a run ---------------------------------------------------------------------------------------
def evaluate(sources: Iterable[str], send: Send | None = None, now: datetime | None = None) -> dict:
    """Open and close the incidents of these sources from their runs, then send the messages due. Returns the
    outcome for the run report: opened, closed, open (every open incident of these sources), messages (one per
    message and delivery: delivered or failed), notes."""
    sources = sorted(set(sources))
    now = now or datetime.now(UTC)
    opened, closed, details = [], [], {}
    with db.connect() as connection:
        runs = observations(connection, sources)
        open_now = _open_incidents(connection, sources)
        for source in sources:
            verdict = judge(runs.get(source, []))
            current = open_now.get(source)
            if verdict.state == "broken" and current is None:
                incident = _open(connection, source, verdict, now)
                if incident is not None:
                    opened.append(incident)
            elif verdict.state == "healthy" and current is not None:
                incident = _close(connection, current, verdict.run, now, _recovery_reason(current, verdict.run))
                details[incident["incident_id"]] = (incident["rows_loaded"], incident["usual_now"])
                closed.append(incident)
        pending = _pending(connection, sources)
        still_open = fetch_dicts(connection, f"SELECT {', '.join(COLUMNS)} FROM meta.source_incidents WHERE "
                                             "closed_at IS NULL AND source IN (SELECT unnest($sources)) "
                                             "ORDER BY source", {"sources": sources})
    notices = [opening_notice(incident) if what == "opened" else recovery_notice(incident, *details.get(
        incident["incident_id"], (None, None))) for incident, what in pending]
    messages, notes = [], []
    if notices and send is not None:
        messages = send(notices)
        if not messages:
            notes.append(NO_DELIVERY_NOTE)
        delivered = {m["event_id"] for m in messages if m["status"] == "delivered"}
        sent_at = datetime.now(UTC)
        with db.connect() as connection:
            for notice in notices:
                if notice["event_id"] in delivered:
                    column = "notified_at" if notice["what"] == "opened" else "recovery_notified_at"
                    connection.execute(f"UPDATE meta.source_incidents SET {column} = ? WHERE incident_id = ?",
                                       [sent_at, notice["incident_id"]])
    return {
        "opened": [_reported(incident) for incident in opened],
        "closed": [_reported(incident) for incident in closed],
        "open": [_reported(incident) for incident in still_open],
        "messages": [{**message, "incident_id": _incident_of(message["event_id"])} for message in messages],
        "notes": notes,
    }


def _incident_of(event_id: str) -> str:
    return event_id.split(":")[1] if event_id.startswith("incident:") else event_id


def _reported(incident: dict) -> dict:
    """An incident as the run report's JSON holds it."""
    return {key: (value.isoformat() if isinstance(value, datetime) else value) for key, value in incident.items()
            if key in COLUMNS}


# -- reading and closing by hand ------------------------------------------------------------------------------------
def listed(open_only: bool = True, connection=None) -> list[dict]:
    """The open incidents (or every one), newest first; none in a warehouse made before incidents existed."""
    if connection is None:
        with db.connect(read_only=True) as reader:
            return listed(open_only, reader)
    exists = connection.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'meta' "
                                "AND table_name = 'source_incidents'").fetchone()[0]
    if not exists:
        return []
    where = "WHERE closed_at IS NULL" if open_only else ""
    return fetch_dicts(connection, f"SELECT {', '.join(COLUMNS)} FROM meta.source_incidents {where} "
                                   "ORDER BY closed_at IS NULL DESC, opened_at DESC, incident_id")


class NoOpenIncident(LookupError):
    pass


def close_by_hand(source: str, reason: str, now: datetime | None = None) -> dict:
    """Close a source's open incident without a recovery (a retired source, a break accepted): no message is sent.
    The runs judged so far cannot reopen it; a newer broken run opens the next incident."""
    now = now or datetime.now(UTC)
    with db.connect() as connection:
        current = _open_incidents(connection, [source]).get(source)
        if current is None:
            raise NoOpenIncident(f"{source} has no open incident (gpuprices incidents list)")
        newest = connection.execute("SELECT max(observed_at) FROM raw.ingest_runs WHERE source = ?",
                                    [source]).fetchone()[0]
        connection.execute(
            "UPDATE meta.source_incidents SET closed_at = ?, closed_observed_at = ?, close_reason = ? "
            "WHERE incident_id = ?", [now, newest or current["opened_observed_at"], f"by hand: {_one_line(reason)}",
                                      current["incident_id"]])
    return {**current, "closed_at": now, "close_reason": f"by hand: {_one_line(reason)}"}


def render_line(incident: dict) -> str:
    """One line for `status` and `incidents list`."""
    state = (f"open since {_when(incident['opened_at'])}" if incident["closed_at"] is None
             else f"closed {_when(incident['closed_at'])} ({incident['close_reason']})")
    return (f"{incident['incident_id']:26} {incident['kind']:16} {state}; last good run: "
            f"{_last_good_text(incident)}; {_one_line(incident['detail'], 200)}")
