"""The offline run: recorded responses served on 127.0.0.1 to the real fetch code (a stand-in for the sources'
hosts, and the place where faults are injected).

recordings/index.json lists recordings: which source, recorded when, served at which real URL, from which
file, and whether it is a real capture. The replay walks every day from the first recording to the last; on a
day, each source is served its latest recording made by the end of that day (the catalog repo committed daily
and a file is only bundled when its GPU rows changed, so that is what the source showed that day).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

from config.settings import PROJECT_ROOT
from scrapers.base import Source
from scrapers.http import HttpSettings
from scrapers.offline import OFFLINE_PLACEHOLDER_KEY

BUNDLE_DIR = PROJECT_ROOT / "recordings"
# The offline server is local: no politeness delay is needed between requests to it. Every request goes to its one
# origin, on a new connection (a loopback connect costs less than keeping them: at each request's start and end
# httpx polls the socket of every idle connection it keeps, and compares each with all the others).
OFFLINE_HTTP = HttpSettings(per_host_min_interval_s=0.0, per_host_concurrency=4, backoff_base_s=0.05,
                            max_connections=16, max_keepalive_connections=0)
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


class ReplayRangeError(ValueError):
    """--since/--until name no bundled day (after each other, or outside the recordings): one usage line."""


def check_replay_range(recordings: list[dict], since: date | None = None, until: date | None = None) -> None:
    """Refuse a replay that would have no day: --since after --until, or a range outside the bundled recordings."""
    first = min(r["recorded_at"] for r in recordings).date()
    last = max(r["recorded_at"] for r in recordings).date()
    bundled = f"the bundled recordings run from {first} to {last}"
    if since and until and since > until:
        raise ReplayRangeError(f"--since {since} is after --until {until}")
    if since and since > last:
        raise ReplayRangeError(f"--since {since} is after the last bundled day: {bundled}")
    if until and until < first:
        raise ReplayRangeError(f"--until {until} is before the first bundled day: {bundled}")


def replay_plan(recordings: list[dict], since: date | None = None, until: date | None = None) -> list[ReplayDay]:
    check_replay_range(recordings, since, until)
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


FAULT_KINDS = ("status", "reset", "hang", "slow_body", "truncate", "replace_body", "huge_body", "redirect")


@dataclass
class Fault:
    """A failure the recorded-response server injects for every request whose route starts with `route`
    ("host/path?query" as in the bundle index; a bare host matches all its routes). `times` = how many matching
    requests fail before the route answers normally again (None: all of them).

      status        answer `status` (429, 500, 503...) with an empty body, and `retry_after` seconds if given
      reset         close the connection without an answer (TCP reset)
      hang          say nothing for `seconds`, then close
      slow_body     send the headers, then the body `chunk_bytes` at a time, one chunk every `seconds`
      truncate      the recorded body cut to `keep_fraction` of its length (Content-Length tells the cut length)
      replace_body  answer 200 with the file `body_file` (a changed layout, a captcha page) instead
      huge_body     answer 200 with `bytes` bytes of JSON-looking filler, no Content-Length
      redirect      answer 302 to `location`
    """

    route: str
    kind: str
    times: int | None = None
    status: int = 503
    retry_after: str | None = None
    seconds: float = 1.0
    chunk_bytes: int = 16
    keep_fraction: float = 0.5
    body_file: str | None = None
    bytes: int = 50_000_000
    location: str = "https://attacker.example/prices.json"
    hits: int = 0

    def __post_init__(self):
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"fault kind {self.kind!r} is not one of {FAULT_KINDS}")


def load_faults(path: Path) -> list[Fault]:
    """A fault plan: {"faults": [{"route": ..., "kind": ..., ...}, ...]}; body_file relative to the plan's folder."""
    faults = [Fault(**entry) for entry in json.loads(path.read_text())["faults"]]
    for fault in faults:
        if fault.body_file:
            fault.body_file = str((path.parent / fault.body_file).resolve())
    return faults


class _Server(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: two dozen sources connecting at once overflow it, and each
    # refused SYN costs the client a 1 s (then 3 s) retransmission wait.
    request_queue_size = 128
    daemon_threads = True


class RecordedServer:
    """Serves the routes of the current replay day on 127.0.0.1; anything else is a 404. `faults` (a fault plan,
    see Fault) makes chosen routes fail the way real sites do."""

    def __init__(self, bundle_dir: Path = BUNDLE_DIR, faults: list[Fault] | None = None):
        self.bundle_dir = bundle_dir
        self.routes: dict[str, str] = {}
        self.requests: list[str] = []
        self.latency_s = 0.0  # injected per-response latency (gpuprices bench fetch)
        self.faults = faults or []
        self._fault_lock = threading.Lock()
        # requests being answered per real host, and the most at once (gpuprices bench scale-out checks the limits)
        self.in_flight: dict[str, int] = {}
        self.max_in_flight: dict[str, int] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            # keep-alive for a client that keeps connections: a source paging through 30 documents can use one
            # connection (and one server thread)
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY: the headers and the body go out in two writes; with Nagle's algorithm the body waits for
            # the client's delayed ACK of the headers (40 ms per request, ~2 s of every replayed day)
            disable_nagle_algorithm = True

            def do_POST(self):  # noqa: N802 (http.server naming)
                # POST APIs (RunPod GraphQL, Vast search, token endpoints) are recorded per URL; the body is read
                # and not matched: each bundled source posts one fixed query per URL.
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.do_GET()

            def do_GET(self):  # noqa: N802 (http.server naming)
                host = unquote(self.path.lstrip("/")).split("/", 1)[0]
                with server._fault_lock:
                    server.in_flight[host] = server.in_flight.get(host, 0) + 1
                    server.max_in_flight[host] = max(server.max_in_flight.get(host, 0), server.in_flight[host])
                try:
                    self._answer()
                finally:
                    with server._fault_lock:
                        server.in_flight[host] -= 1

            def _answer(self):
                key = unquote(self.path.lstrip("/"))
                if server.latency_s:
                    threading.Event().wait(server.latency_s)  # this handler's thread only
                server.requests.append(key)
                relative = server.routes.get(key)
                if relative is None:
                    self.send_error(404, "no recording for this URL on this replay day")
                    return
                body = (server.bundle_dir / relative).read_bytes()
                content_type = CONTENT_TYPES.get(Path(relative).suffix, "application/octet-stream")
                fault = server._take_fault(key)
                if fault is not None:
                    _inject(self, fault, body, content_type)
                    return
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        # looking for the shutdown every 50 ms: at the default 0.5 s, leaving the block waited up to half a second
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _take_fault(self, key: str) -> Fault | None:
        with self._fault_lock:
            for fault in self.faults:
                if key.startswith(fault.route) and (fault.times is None or fault.hits < fault.times):
                    fault.hits += 1
                    return fault
        return None

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


def _inject(handler: BaseHTTPRequestHandler, fault: Fault, body: bytes, content_type: str) -> None:
    """Answer one request the way `fault` says (see Fault)."""
    handler.close_connection = True
    if fault.kind == "status":
        handler.send_response(fault.status)
        if fault.retry_after is not None:
            handler.send_header("Retry-After", fault.retry_after)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    elif fault.kind == "reset":
        # SO_LINGER 0: close() sends a RST instead of a clean FIN
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()
    elif fault.kind == "hang":
        threading.Event().wait(fault.seconds)
    elif fault.kind == "slow_body":
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        try:
            for start in range(0, len(body), fault.chunk_bytes):
                handler.wfile.write(body[start:start + fault.chunk_bytes])
                handler.wfile.flush()
                threading.Event().wait(fault.seconds)
        except OSError:  # the client gave up: what a slow body is for
            pass
    elif fault.kind in ("truncate", "replace_body"):
        cut = body[: int(len(body) * fault.keep_fraction)] if fault.kind == "truncate" else \
            Path(fault.body_file).read_bytes()
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(cut)))
        handler.end_headers()
        handler.wfile.write(cut)
    elif fault.kind == "huge_body":
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.end_headers()  # no Content-Length: the body ends when the connection closes
        filler = b'{"filler": "' + b"x" * (1 << 20) + b'"}\n'
        try:
            for _ in range(fault.bytes // len(filler) + 1):
                handler.wfile.write(filler)
        except OSError:  # the client stopped reading at its size cap
            pass
    elif fault.kind == "redirect":
        handler.send_response(302)
        handler.send_header("Location", fault.location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()


def rewrite_to(base_url: str):
    """https://host/path?q -> <base_url>/host/path?q: the real URL travels inside the local request path."""

    def rewrite(url: str) -> str:
        return f"{base_url}/{url.split('://', 1)[1]}"

    return rewrite


def missing_credentials(sources: list[Source]) -> list[str]:
    """The credential variables of these sources that are not set."""
    return [name for source in sources for name in (source.api_key_env, *source.extra_credential_envs)
            if name and not os.environ.get(name)]


@contextmanager
def placeholder_credentials(sources: list[Source]) -> Iterator[list[str]]:
    """Keyed sources need a key to run their fetch code. Offline, every request goes to 127.0.0.1, so a placeholder
    stands in for each key that is not set (a real key is left as it is and never leaves this machine either)."""
    names = missing_credentials(sources)
    for name in names:
        os.environ[name] = OFFLINE_PLACEHOLDER_KEY
    try:
        yield names
    finally:
        for name in names:
            os.environ.pop(name, None)
