"""The run report (one JSON file per run under <home>/reports/, and its console summary) and progress lines."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from config.redact import redact
from config.settings import data_home
from warehouse.ingest.load import IngestRecord
from warehouse.store.progress import utc_now


@contextmanager
def timed(seconds: dict[str, float], name: str) -> Iterator[None]:
    """Add the block's wall time to seconds[name]: the run's stages and each source's pipeline steps."""
    start = time.monotonic()
    try:
        yield
    finally:
        seconds[name] = round(seconds.get(name, 0.0) + time.monotonic() - start, 3)


@dataclass
class RunReport:
    observed_at: datetime
    records: list[IngestRecord] = field(default_factory=list)
    built: bool = False
    exported: list[str] = field(default_factory=list)
    dashboard: str | None = None        # the site directory, when it was built
    dashboard_error: str | None = None  # why it was not
    alerts: list[dict] = field(default_factory=list)            # alert events fired by this run
    alert_deliveries: list[dict] = field(default_factory=list)  # each (event, delivery): delivered or failed
    alerts_error: str | None = None
    outlook_error: str | None = None  # why the outlook stage wrote nothing (the marts and the rest of the run stand)
    # source incidents after the load (warehouse/store/incidents.py): opened, closed, open, messages (one per message and
    # delivery), notes; an offline replay judges each day and adds them up
    incidents: dict = field(default_factory=lambda: {"opened": [], "closed": [], "open": [], "messages": [],
                                                     "notes": []})
    incidents_error: str | None = None  # why the incidents were not judged (the run stands)
    snapshot: str | None = None  # the copy readers use while the next run writes
    imports: list[dict] = field(default_factory=list)  # price histories imported by the run (offline: the bundled ones)
    stage_seconds: dict[str, float] = field(default_factory=dict)  # collect, build, alerts, export, dashboard...
    started_at: datetime = field(default_factory=utc_now)  # when this run began (its report file is named by it)

    def stage(self, name: str):
        """`with report.stage("build"): ...` adds the block's wall time to stage_seconds["build"]."""
        return timed(self.stage_seconds, name)

    def add_incidents(self, outcome: dict) -> None:
        """One evaluation's outcome (warehouse/incidents.evaluate): opened, closed, messages and notes add up; `open`
        is the latest evaluation's, per source."""
        for key in ("opened", "closed", "messages"):
            self.incidents[key] = self.incidents[key] + outcome[key]
        self.incidents["notes"] = list(dict.fromkeys(self.incidents["notes"] + outcome["notes"]))  # once each
        judged = {incident["source"] for incident in outcome["open"]} | {
            incident["source"] for incident in outcome["closed"]}
        self.incidents["open"] = [incident for incident in self.incidents["open"] if incident["source"] not in judged]
        self.incidents["open"] = sorted(self.incidents["open"] + outcome["open"], key=lambda i: i["incident_id"])

    def source_stage_totals(self) -> dict[str, float]:
        """Each pipeline stage's seconds summed over every source-run (fetch, parse, normalize, check, load)."""
        totals: dict[str, float] = {}
        for record in self.records:
            for name, seconds in record.stage_seconds.items():
                totals[name] = round(totals.get(name, 0.0) + seconds, 3)
        return totals

    def as_dict(self) -> dict:
        return {
            "observed_at": self.observed_at.isoformat(),
            "started_at": self.started_at.isoformat(),
            "snapshot": self.snapshot,
            "stage_seconds": self.stage_seconds,
            "source_stage_seconds": self.source_stage_totals(),
            "built": self.built,
            "exported": self.exported,
            "dashboard": self.dashboard,
            "dashboard_error": redact(self.dashboard_error),
            "alerts": [{key: (value if isinstance(value, (str, int, float, bool, type(None))) else str(value))
                        for key, value in event.items()} for event in self.alerts],
            "alert_deliveries": self.alert_deliveries,
            "alerts_error": redact(self.alerts_error),
            "outlook_error": redact(self.outlook_error),
            "incidents": self.incidents,
            "incidents_error": redact(self.incidents_error),
            "imports": self.imports,
            "sources": [
                {
                    "source": r.source, "status": r.status, "run_id": r.run_id, "rows_loaded": r.rows_loaded,
                    "rows_rejected": r.rows_rejected, "duration_s": round(r.row()["duration_s"], 3),
                    "stage_seconds": r.stage_seconds,
                    "is_synthetic": r.is_synthetic, "error": r.error,
                }
                for r in self.records
            ],
        }

    def write(self) -> Path:
        """reports/run-<observed at>-<started at>.json: one file per run, so a rerun of the same observation (the
        offline replay again, a distributed rerun of a day) writes its own beside the first, never over it. Runs
        started in the same second get -2, -3..."""
        reports = data_home() / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        name = f"run-{self.observed_at:%Y%m%dT%H%M%SZ}-{self.started_at:%Y%m%dT%H%M%SZ}"
        text = json.dumps(self.as_dict(), indent=2)
        number = 1
        while True:
            path = reports / (f"{name}.json" if number == 1 else f"{name}-{number}.json")
            try:
                with path.open("x") as file:  # created here, or taken by another run: the next name
                    file.write(text)
                return path
            except FileExistsError:
                number += 1

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
            loaded = sum(r.rows_loaded for r in records)
            rejected = sum(r.rows_rejected for r in records)
            seconds = sum(sum(r.stage_seconds.values()) for r in records)
            lines.append(f"  {source:23} {status_text:36} loaded={loaded:<7} rejected={rejected:<5} {seconds:6.2f}s{flag}")
            errors = [r.error for r in records if r.error]
            if errors:
                lines.append(f"      last error: {' '.join(errors[-1].split())[:300]}")
        for item in self.imports:  # warehouse/ingest/histories.py: each bundled history file (prices, or ECB rates)
            what = "rates" if item.get("kind") == "fx_rates" else "prices"
            on_days = f" on {item['days']} days" if item.get("days") else ""
            outcome = (f"not imported: {item['error']}" if item["error"] else "already imported"
                       if item["already_loaded"] else f"{item['prices']} {what} read{on_days}, "
                       f"loaded={item.get('loaded', item['prices'])} quarantined={item.get('quarantined', 0)}")
            seconds = f" {item['seconds']:.1f}s" if "seconds" in item else ""
            kind = "real, backfill" if item.get("kind") == "fx_rates" else "real, imported"
            lines.append(f"  {item['source']:23} import {item['file']}: {outcome}{seconds} [{kind}]")
            if item.get("quarantined") and item.get("first_reasons"):
                lines.append(f"      first held back: {'; '.join(item['first_reasons'][:3])}")
        return "\n".join(lines)
