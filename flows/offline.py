"""The offline run: bundled recorded responses served on 127.0.0.1 to the real fetch code.

flows/recorded/index.json lists recordings: which source, recorded when, served at which real URL, from which
file, and whether it is a real capture. The replay walks every day from the first recording to the last; on a
day, each source is served its latest recording made by the end of that day (the catalog repo committed daily
and a file is only bundled when its GPU rows changed, so that is what the source showed that day).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

from scrapers.base import Source

BUNDLE_DIR = Path(__file__).resolve().parent / "recorded"
OBSERVATION_TIME_OF_DAY = time(23, 0, tzinfo=UTC)  # after every commit of the day in the bundled history

CONTENT_TYPES = {".json": "application/json", ".csv": "text/csv; charset=utf-8", ".html": "text/html; charset=utf-8"}


@dataclass
class ReplayDay:
    observed_at: datetime
    data_origins: dict[str, str] = field(default_factory=dict)  # source id -> captured | reconstructed
    overrides: dict[str, dict] = field(default_factory=dict)  # source id -> constructor settings
    routes: dict[str, str] = field(default_factory=dict)  # "host/path?query" -> file in the bundle

    @property
    def sources(self) -> list[str]:
        return sorted(self.data_origins)


def load_recordings(bundle_dir: Path = BUNDLE_DIR) -> list[dict]:
    recordings = json.loads((bundle_dir / "index.json").read_text())["recordings"]
    for recording in recordings:
        recording["recorded_at"] = datetime.fromisoformat(recording["recorded_at"])
    return recordings


def replay_plan(recordings: list[dict], since: date | None = None, until: date | None = None) -> list[ReplayDay]:
    first = min(r["recorded_at"] for r in recordings).date()
    last = max(r["recorded_at"] for r in recordings).date()
    day, plan = max(first, since or first), []
    while day <= min(last, until or last):
        observed_at = datetime.combine(day, OBSERVATION_TIME_OF_DAY)
        current: dict[str, dict] = {}
        for recording in sorted(recordings, key=lambda r: r["recorded_at"]):
            if recording["recorded_at"] <= observed_at:
                current[recording["source"]] = recording
        replay_day = ReplayDay(observed_at=observed_at)
        for source_id, recording in current.items():
            replay_day.data_origins[source_id] = recording["data_origin"]
            replay_day.overrides[source_id] = recording["overrides"]
            replay_day.routes.update(recording["routes"])
        plan.append(replay_day)
        day += timedelta(days=1)
    return plan


class RecordedServer:
    """Serves the routes of the current replay day on 127.0.0.1; anything else is a 404."""

    def __init__(self, bundle_dir: Path = BUNDLE_DIR):
        self.bundle_dir = bundle_dir
        self.routes: dict[str, str] = {}
        self.requests: list[str] = []
        self.latency_s = 0.0  # injected per-response latency (gpuprices bench fetch)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server naming)
                # POST APIs (RunPod GraphQL, Vast search, token endpoints) are recorded per URL; the body is read
                # and not matched: each bundled source posts one fixed query per URL.
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.do_GET()

            def do_GET(self):  # noqa: N802 (http.server naming)
                key = unquote(self.path.lstrip("/"))
                if server.latency_s:
                    threading.Event().wait(server.latency_s)  # this handler's thread only
                server.requests.append(key)
                relative = server.routes.get(key)
                if relative is None:
                    self.send_error(404, "no recording for this URL on this replay day")
                    return
                body = (server.bundle_dir / relative).read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPES.get(Path(relative).suffix, "application/octet-stream"))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> RecordedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def rewrite_to(base_url: str):
    """https://host/path?q -> <base_url>/host/path?q: the real URL travels inside the local request path."""

    def rewrite(url: str) -> str:
        return f"{base_url}/{url.split('://', 1)[1]}"

    return rewrite


OFFLINE_PLACEHOLDER_KEY = "offline-replay-placeholder"


@contextmanager
def placeholder_credentials(sources: list[Source]) -> Iterator[list[str]]:
    """Keyed sources need a key to run their fetch code. Offline, every request goes to 127.0.0.1, so a placeholder
    stands in for each key that is not set (a real key is left as it is and never leaves this machine either)."""
    names = [
        name for source in sources for name in (source.api_key_env, *source.extra_credential_envs)
        if name and not os.environ.get(name)
    ]
    for name in names:
        os.environ[name] = OFFLINE_PLACEHOLDER_KEY
    try:
        yield names
    finally:
        for name in names:
            os.environ.pop(name, None)
