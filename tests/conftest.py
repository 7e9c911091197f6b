from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from scrapers.http import RawDocument

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent
# Real captures the offline run replays live once, in recordings/ (SkyPilot catalogs, the 2020 Newegg and Best Buy
# pages): the parser tests read them there.
RECORDINGS = ROOT / "recordings"
SINCE = "2026-04-28"  # four replay days: every bundled source has a recording by then (vast from 04-29)


FETCHED_AT = datetime(2026, 4, 2, tzinfo=UTC)


def raw_document(body: bytes, url: str = "https://example.test/doc", content_type: str = "") -> RawDocument:
    """A raw document as the HTTP client would return it, from bytes a test built."""
    return RawDocument(url=url, status=200, body=body, fetched_at=FETCHED_AT, content_type=content_type)


def document(path: Path | str, url: str = "https://example.test/doc", content_type: str = "") -> RawDocument:
    """A raw document holding a fixture file."""
    path = (RECORDINGS if path.startswith("skypilot/") else FIXTURES) / path if isinstance(path, str) else path
    return raw_document(path.read_bytes(), url, content_type)


def fixture_json(path: str):
    """tests/fixtures/<path>, parsed."""
    return json.loads((FIXTURES / path).read_text())


def json_document(payload, url: str = "https://example.test/doc") -> RawDocument:
    """A raw document holding `payload` as JSON (a fixture's part, or a changed copy of it)."""
    return raw_document(json.dumps(payload).encode(), url)


def by_id(offers) -> dict:
    """Offers by (offer id, pricing type)."""
    return {(o.offer_id, o.pricing_type): o for o in offers}


def retail_page(retailer: str, name: str) -> Path:
    """A saved page: tests/fixtures/retail/, or recordings/ for the real 2020 pages the offline run replays (kept
    once)."""
    saved = FIXTURES / "retail" / retailer / name
    return saved if saved.exists() else RECORDINGS / retailer / f"stale_capture_2020_{name}"


class AnsweringClient:
    """A stand-in HTTP client for a source's fetch: answers each URL from a map (url -> body) and records what was
    asked, in order, as (url, headers); with `host`, every request must allow that host."""

    def __init__(self, answers: dict[str, bytes], host: str | None = None):
        self.answers, self.host, self.asked = answers, host, []

    async def get(self, url, *, allowed_hosts, headers=None):
        assert self.host is None or self.host in allowed_hosts
        self.asked.append((url, headers))
        return raw_document(self.answers[url], url=url)


def serve_in_background(httpd) -> threading.Thread:
    """`httpd.serve_forever()` on a daemon thread, looking for a shutdown every 50 ms: at the default 0.5 s, each
    test's `httpd.shutdown()` waited half a second (15 s of the fast subset)."""
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per test module (the browser tests of tests/dashboards/)."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.fail("Chromium is not installed: `apt-get install -y chromium` (.ci/run does this)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh, empty data home for one test."""
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


_PREFECT_SERVER: dict = {}


def prefect_api() -> str:
    """One Prefect API server for the whole test session, started on first need: every `gpuprices run` subprocess
    talks to it (PREFECT_API_URL) instead of starting a temporary server of its own (~13 s each). Like the offline
    replay's temporary server, it keeps flow runs but not task-run events. Stopped at the end of the session."""
    if "url" not in _PREFECT_SERVER:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        prefect_home = Path(tempfile.mkdtemp(prefix="gpuprices-prefect-"))
        from flows.daily import (
            LIGHT_SERVER,  # Prefect: imported only when a test runs a flow
        )

        env = {**os.environ, "PREFECT_HOME": str(prefect_home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
               **LIGHT_SERVER}
        process = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port),
             "--no-ui", "--no-scheduler", "--no-late-runs", "--analytics-off"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}/api"
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("the test session's Prefect server did not start")
            time.sleep(0.3)
        _PREFECT_SERVER.update(url=url, process=process, home=prefect_home)
        os.environ["PREFECT_API_URL"] = url
    return _PREFECT_SERVER["url"]


def gpuprices(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, on the given data home (flows against the session's Prefect server)."""
    if args and args[0] == "run":
        prefect_api()
    env = {**os.environ, "GPUPRICES_HOME": str(home)}
    result = subprocess.run(
        [sys.executable, "-m", "flows.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    if check and result.returncode != 0:
        raise AssertionError(f"gpuprices {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def sql_rows(home: Path, query: str) -> list[dict]:
    """A query's rows as `gpuprices sql --json` prints them (its column naming and JSON, its read-only connection),
    run in this process: a CLI process per query cost ~1.5 s, and the end-to-end tests run hundreds of queries.
    The command itself is tested through the CLI (tests/flows/test_cli_errors.py, test_sql_allow_files.py)."""
    from config.settings import use_data_home
    from flows.cli.common import json_text, unique_names
    from warehouse.store import db

    with use_data_home(home), db.connect(read_only=True) as connection:
        result = connection.execute(query)
        keys = unique_names([column[0] for column in result.description])
        return [json.loads(json_text(dict(zip(keys, row, strict=True)))) for row in result.fetchall()]


def everything_left_behind(home: Path, console: str) -> dict[str, bytes]:
    """Where a run could have written a secret, as bytes to search: the console, every file of the data home
    (gzip bodies unpacked) and every VARCHAR column of every table of the warehouse."""
    texts = {"console": console.encode()}
    for path in home.rglob("*"):
        if path.is_file() and path.suffix != ".duckdb":  # the warehouse is read table by table below
            data = path.read_bytes()
            texts[str(path)] = gzip.decompress(data) if path.suffix == ".gz" else data
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        columns = connection.execute(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns "
            "WHERE data_type = 'VARCHAR' AND table_catalog = current_database()").fetchall()
        for schema, table, column in columns:
            values = connection.execute(f'SELECT DISTINCT "{column}" FROM "{schema}"."{table}"').fetchall()
            texts[f"{schema}.{table}.{column}"] = "\n".join(str(v) for (v,) in values).encode()
    return texts


def row_counts(home: Path) -> dict:
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        tables = connection.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema IN ('raw', 'marts', 'intermediate') AND table_type = 'BASE TABLE'"
        ).fetchall()
        return {t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for (t,) in tables}


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory, worker_id) -> Path:
    """The README's offline run (four replay days) on a fresh data home, shared by the end-to-end tests of every
    xdist worker: the first worker to need it runs it while the others wait (a lock in the session's shared
    temporary folder), so the session runs it once, not once per worker. Tests only read it (several processes
    may read it at once); one that writes takes a copy (own_warehouse)."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":  # each worker's base is a folder of the session's
        shared = shared.parent
    home, outcome = shared / "offline-run", shared / "offline-run.outcome"
    with (shared / "offline-run.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not outcome.exists():
            try:
                gpuprices(home, "run", "--offline", "--since", SINCE)
            except BaseException as error:
                outcome.write_text(f"failed on another worker: {error}"[:20000])
                raise
            outcome.write_text("ok")
    if outcome.read_text() != "ok":
        raise RuntimeError(outcome.read_text())
    return home


@pytest.fixture
def own_warehouse(warehouse, tmp_path) -> Path:
    """A copy of the shared offline run's data home, for a test that writes to it (runs, builds): a writer holds
    the DuckDB file alone, and the shared one stays as the run left it. Without its Parquet export (~14,000 files:
    most of the copy's time), which a run writes anew."""
    copy = tmp_path / "offline-run"
    shutil.copytree(warehouse, copy, symlinks=True,
                    ignore=lambda folder, _names: ["export"] if Path(folder) == warehouse else [])
    return copy


FIRST_FILE = "test_offline_end_to_end.py"  # its first test starts the session's shared offline run (warehouse)


def pytest_collection_modifyitems(session, config, items):
    """The order xdist hands files out in (--dist loadfile --no-loadscope-reorder: as collected): first the file that
    starts the shared offline run, then the files that do not read it, then those that do, so that while one worker
    runs the offline run (~2 minutes) the other does not wait for it. In each group the files with the most slow
    tests (CLI runs, builds, a browser) first, so that the last files handed out are short and the two workers end
    together."""
    files: dict = {}
    for item in items:
        group, slow = files.get(item.path, (1, 0))
        if item.path.name == FIRST_FILE:
            group = 0
        elif "warehouse" in item.fixturenames:
            group = 2
        files[item.path] = (group, slow + (item.get_closest_marker("slow") is not None))
    items.sort(key=lambda item: (files[item.path][0], -files[item.path][1]))


def pytest_sessionfinish(session, exitstatus):
    """Stop the Prefect servers while pytest's output streams are still open: left to the interpreter's exit, a
    temporary server's 'Stopping temporary server' log line is written to a closed stream (a logging error)."""
    # in-process flows' logs and events go to the API in the background: send them while it is up
    for module, worker in (("prefect.logging.handlers", "APILogWorker"), ("prefect.events.worker", "EventsWorker")):
        if module in sys.modules:
            getattr(sys.modules[module], worker).drain_all(timeout=30)
    server_module = sys.modules.get("prefect.server.api.server")
    if server_module is not None:
        for server in list(server_module.SubprocessASGIServer._instances.values()):
            server.stop()
    if "process" in _PREFECT_SERVER:
        os.killpg(_PREFECT_SERVER["process"].pid, signal.SIGTERM)
        _PREFECT_SERVER["process"].wait(timeout=30)
        shutil.rmtree(_PREFECT_SERVER["home"], ignore_errors=True)
