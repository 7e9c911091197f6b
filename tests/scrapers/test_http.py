"""The shared HTTP client against a real server on 127.0.0.1 that misbehaves on purpose."""

from __future__ import annotations

import asyncio
import hashlib
import re
import socket
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import serve_in_background

from scrapers import http as scrapers_http
from scrapers.errors import FetchError, ForbiddenRedirect, ResponseTooLarge
from scrapers.http import HttpClient, HttpSettings, parse_retry_after, project_version, user_agent

HOST = "api.example.test"


class Scripted:
    """path -> list of responses, served in order (the last one repeats)."""

    def __init__(self):
        self.script: dict[str, list] = {}
        self.hits: dict[str, list[float]] = defaultdict(list)
        self.user_agents: list[str] = []
        self.credentials: list[tuple[str, str | None, str | None]] = []  # (path, Authorization, Cookie)


@pytest.fixture
def server():
    scripted = Scripted()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            path = self.path.split("/", 2)[2] if self.path.count("/") >= 2 else ""
            key = "/" + path.split("?", 1)[0]
            scripted.hits[key].append(time.monotonic())
            scripted.user_agents.append(self.headers.get("User-Agent", ""))
            scripted.credentials.append((key, self.headers.get("Authorization"), self.headers.get("Cookie")))
            steps = scripted.script.get(key, [(404, {}, b"")])
            step = steps[min(len(scripted.hits[key]) - 1, len(steps) - 1)]
            if step == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                self.connection.close()
                return
            status, headers, body = step
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_background(httpd)
    scripted.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield scripted
    httpd.shutdown()
    httpd.server_close()


def fetch(server, path, settings=None, allowed=(HOST,), headers=None, url=None, clock=None, real_sleep=False):
    sleeps: list[float] = []

    async def fake_sleep(seconds):
        sleeps.append(seconds)

    async def run():
        rewrite = lambda url: f"{server.base}/{url.split('://', 1)[1]}"  # noqa: E731
        extra = {"clock": clock} if clock else {}
        async with HttpClient(settings or HttpSettings(per_host_min_interval_s=0), rewrite=rewrite,
                              sleep=asyncio.sleep if real_sleep else fake_sleep, **extra) as client:
            return await client.get(url or f"https://{HOST}{path}", allowed_hosts=allowed, headers=headers)

    return asyncio.run(run()), sleeps


def test_429_honours_retry_after_then_succeeds(server):
    server.script["/prices"] = [(429, {"Retry-After": "7"}, b""), (200, {}, b"ok")]
    document, sleeps = fetch(server, "/prices")
    assert document.body == b"ok" and sleeps == [7.0]
    assert server.user_agents == [user_agent()] * 2


def test_429_with_retry_after_1_is_retried_after_about_a_second_by_the_clock(server):
    """The real sleep, measured at the server: the second request comes ~1 s after the first, and succeeds."""
    server.script["/prices"] = [(429, {"Retry-After": "1"}, b"slow down"), (200, {}, b"ok")]
    # a backoff of at most 10 ms: only the Retry-After can make the client wait a second
    document, _ = fetch(server, "/prices", HttpSettings(per_host_min_interval_s=0, backoff_base_s=0.01),
                        real_sleep=True)
    first, second = server.hits["/prices"]
    assert document.body == b"ok"
    assert 0.95 <= second - first < 2.5, second - first


def test_a_retry_after_http_date_is_read_against_the_clock(server):
    """Retry-After as an HTTP date: the wait is that date less the (injected) wall clock."""
    server.script["/prices"] = [(503, {"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}, b""), (200, {}, b"ok")]
    document, sleeps = fetch(server, "/prices", clock=lambda: 1792567675.0)  # 5 s before that date
    assert document.body == b"ok" and sleeps == [pytest.approx(5.0)]
    server.script["/late"] = [(429, {"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}, b"")]
    with pytest.raises(FetchError, match=r"asks to retry after 3600 s \(Retry-After\), too long"):
        fetch(server, "/late", clock=lambda: 1792567680.0 - 3600)  # an hour before: over the 120 s cap


def test_503_is_retried_and_honours_its_retry_after(server):
    server.script["/prices"] = [(503, {"Retry-After": "2"}, b"maintenance"), (503, {}, b"down"), (200, {}, b"ok")]
    document, sleeps = fetch(server, "/prices")
    assert document.body == b"ok" and len(server.hits["/prices"]) == 3
    assert sleeps[0] == 2.0 and 0 <= sleeps[1] <= 2.0  # the Retry-After, then the jittered backoff (base 1 s x 2)


def test_503_retries_with_backoff_then_gives_up_in_one_line(server):
    server.script["/prices"] = [(503, {}, b"down")]
    with pytest.raises(FetchError) as failure:
        fetch(server, "/prices")
    assert len(server.hits["/prices"]) == 4
    assert str(failure.value) == (f"https://{HOST}/prices: gave up after 4 attempts (GPUPRICES_HTTP_MAX_ATTEMPTS), "
                                  "last: HTTP 503")
    server.script["/limited"] = [(429, {"Retry-After": "3"}, b"")]
    with pytest.raises(FetchError) as failure:
        fetch(server, "/limited", HttpSettings(per_host_min_interval_s=0, max_attempts=2))
    assert len(server.hits["/limited"]) == 2 and failure.value.transient  # the task may try again later
    assert str(failure.value).endswith("gave up after 2 attempts (GPUPRICES_HTTP_MAX_ATTEMPTS), last: HTTP 429, "
                                       "Retry-After 3 s")


def test_retry_after_longer_than_the_cap_is_one_clear_line_not_a_long_sleep(server):
    server.script["/prices"] = [(429, {"Retry-After": "86400"}, b"")]
    with pytest.raises(FetchError) as failure:
        _, sleeps = fetch(server, "/prices")
    assert len(server.hits["/prices"]) == 1 and not failure.value.transient
    assert str(failure.value) == (f"https://{HOST}/prices: HTTP 429 asks to retry after 86400 s (Retry-After), too "
                                  "long: over the 120 s cap (GPUPRICES_HTTP_MAX_RETRY_AFTER_S), not retried")
    # the cap is a setting: a wait under it is honoured
    server.script["/soon"] = [(429, {"Retry-After": "90"}, b""), (200, {}, b"ok")]
    document, sleeps = fetch(server, "/soon", HttpSettings(per_host_min_interval_s=0, max_retry_after_s=100))
    assert document.body == b"ok" and sleeps == [90.0]
    server.script["/later"] = [(429, {"Retry-After": "90"}, b"")]
    with pytest.raises(FetchError, match="over the 60 s cap"):
        fetch(server, "/later", HttpSettings(per_host_min_interval_s=0, max_retry_after_s=60))


def test_the_user_agent_names_the_project_its_version_and_the_contact_url(server, monkeypatch):
    server.script["/prices"] = [(200, {}, b"ok")]
    fetch(server, "/prices")
    assert server.user_agents[-1] == (f"gpuprices/{project_version()} (+https://github.com/gpuprices/gpuprices; "
                                      "open GPU price warehouse, daily price collector)")
    assert project_version() == "0.1.0"  # pyproject.toml's
    monkeypatch.setenv("GPUPRICES_CONTACT_URL", "https://prices.example.org/about-our-crawler")
    fetch(server, "/prices")
    assert server.user_agents[-1].startswith("gpuprices/0.1.0 (+https://prices.example.org/about-our-crawler; ")
    assert all("Mozilla" not in agent for agent in server.user_agents)
    monkeypatch.setenv("GPUPRICES_CONTACT_URL", "https://x.example (pretending to be a browser) Mozilla/5.0")
    with pytest.raises(ValueError, match="GPUPRICES_CONTACT_URL must be"):
        fetch(server, "/prices")


def test_no_source_sends_a_user_agent_of_its_own():
    """Honest identification is the default and no source replaces it (with a browser's, say): a source that must
    would set the header in its module, and this test would make it say why here."""
    root = Path(__file__).resolve().parents[2] / "scrapers"
    setting_one = re.compile(r"[\"']user-agent[\"']\s*:|Mozilla/|AppleWebKit|Chrome/\d", re.IGNORECASE)
    offenders = [str(path.relative_to(root)) for path in root.rglob("*.py")
                 if path.name != "http.py" and setting_one.search(path.read_text())]
    assert offenders == []


def test_other_4xx_is_not_retried(server):
    server.script["/missing"] = [(404, {}, b"nope")]
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch(server, "/missing")
    assert len(server.hits["/missing"]) == 1


def test_connection_reset_is_retried(server):
    server.script["/flaky"] = ["reset", (200, {}, b"fine")]
    document, sleeps = fetch(server, "/flaky")
    assert document.body == b"fine" and len(sleeps) == 1


def test_body_over_the_cap_is_refused(server):
    server.script["/huge"] = [(200, {}, b"x" * 5000)]
    with pytest.raises(ResponseTooLarge):
        fetch(server, "/huge", HttpSettings(max_body_bytes=1000, per_host_min_interval_s=0))
    assert len(server.hits["/huge"]) == 1  # never retried


def test_redirect_within_the_source_hosts_is_followed(server):
    server.script["/old"] = [(301, {"Location": f"https://{HOST}/new"}, b"")]
    server.script["/new"] = [(200, {}, b"moved")]
    document, _ = fetch(server, "/old")
    assert document.body == b"moved" and document.url == f"https://{HOST}/new"


def test_redirect_to_another_host_is_refused(server):
    server.script["/old"] = [(302, {"Location": "https://evil.example.org/login"}, b"")]
    with pytest.raises(ForbiddenRedirect, match="evil.example.org"):
        fetch(server, "/old")


def test_per_host_rate_limit_spaces_requests(server, monkeypatch):
    """Measured where the client lets each request go: the server's arrival times also carry its own thread's
    scheduling jitter (CI saw a 0.178 s gap between arrivals the client had spaced 0.2 s apart)."""
    server.script["/a"] = [(200, {}, b"a")]
    interval = 0.2
    released: list[float] = []
    enter = scrapers_http._HostGate.__aenter__

    async def recording_enter(gate):
        entered = await enter(gate)
        released.append(time.monotonic())
        return entered

    monkeypatch.setattr(scrapers_http._HostGate, "__aenter__", recording_enter)

    async def run():
        rewrite = lambda url: f"{server.base}/{url.split('://', 1)[1]}"  # noqa: E731
        settings = HttpSettings(per_host_min_interval_s=interval, per_host_concurrency=4)
        async with HttpClient(settings, rewrite=rewrite) as client:
            await asyncio.gather(*(client.get(f"https://{HOST}/a", allowed_hosts=(HOST,)) for _ in range(4)))

    asyncio.run(run())
    assert len(server.hits["/a"]) == 4 and len(released) == 4
    gaps = [later - earlier for earlier, later in zip(released, released[1:])]
    assert min(gaps) >= interval * 0.9


def test_retry_after_http_date():
    assert parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT", now=1792567670.0) == pytest.approx(10.0)
    assert parse_retry_after("soon") is None


SECRET = "SECRETKEY123"


def test_a_redirect_never_goes_from_https_to_http(server):
    server.script["/old"] = [(302, {"Location": f"http://{HOST}/new"}, b"")]
    server.script["/new"] = [(200, {}, b"plain")]
    with pytest.raises(ForbiddenRedirect, match="https to plain http"):
        fetch(server, "/old")
    assert "/new" not in server.hits


@pytest.mark.parametrize("target", [f"https://{HOST}:8443/new", f"https://www.{HOST}/new"])
def test_credentials_are_not_carried_to_another_origin_even_on_the_same_host_name(server, target):
    server.script["/old"] = [(302, {"Location": target}, b"")]
    server.script["/new"] = [(200, {}, b"moved")]
    document, _ = fetch(server, "/old", allowed=(HOST, f"www.{HOST}"),
                        headers={"Authorization": f"Bearer {SECRET}", "Cookie": f"session={SECRET}"})
    assert document.body == b"moved"
    assert server.credentials == [("/old", f"Bearer {SECRET}", f"session={SECRET}"), ("/new", None, None)]


def test_credentials_follow_a_redirect_within_the_same_origin(server):
    server.script["/old"] = [(301, {"Location": "/new"}, b"")]
    server.script["/new"] = [(200, {}, b"moved")]
    fetch(server, "/old", headers={"Authorization": f"Bearer {SECRET}"})
    assert [auth for _, auth, _ in server.credentials] == [f"Bearer {SECRET}", f"Bearer {SECRET}"]


def test_no_cookie_a_server_sets_is_sent_back(server):
    server.script["/login"] = [(302, {"Location": "/prices", "Set-Cookie": "session=abc; Path=/"}, b"")]
    server.script["/prices"] = [(200, {}, b"ok")]
    fetch(server, "/login")
    assert server.credentials[-1] == ("/prices", None, None)


def test_a_key_in_the_query_string_never_reaches_a_document_or_an_error(server, monkeypatch):
    monkeypatch.setenv("BESTBUY_API_KEY", SECRET)
    server.script["/products"] = [(200, {}, b"[]")]
    document, _ = fetch(server, "", url=f"https://{HOST}/products?apiKey={SECRET}&format=json")
    assert document.url == f"https://{HOST}/products?apiKey=REDACTED&format=json"
    server.script["/denied"] = [(403, {}, b"forbidden")]
    with pytest.raises(FetchError) as failure:
        fetch(server, "", url=f"https://user:pw@{HOST}/denied?token=abc123&q=rtx")
    assert str(failure.value) == f"HTTP 403 from https://REDACTED@{HOST}/denied?token=REDACTED&q=rtx"
    # a configured secret is redacted wherever it appears, even outside a URL
    with pytest.raises(FetchError, match="REDACTED") as failure:
        raise FetchError(f"the server said: bad key {SECRET}")
    assert SECRET not in str(failure.value)


def test_a_spooled_body_streams_to_a_file_and_a_failed_attempt_leaves_none(server, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    body = b'{"products": {}}' * 10_000
    server.script["/offer"] = [(503, {}, b"busy"), (200, {}, body)]

    async def run():
        rewrite = lambda url: f"{server.base}/{url.split('://', 1)[1]}"  # noqa: E731
        async with HttpClient(HttpSettings(per_host_min_interval_s=0), rewrite=rewrite,
                              sleep=lambda seconds: asyncio.sleep(0)) as client:
            return await client.get(f"https://{HOST}/offer", allowed_hosts=(HOST,), spool=True)

    document = asyncio.run(run())
    assert document.body == b"" and document.spool is not None and document.spool.read_bytes() == body
    assert document.size == len(body) and document.sha256() == hashlib.sha256(body).hexdigest()
    assert list(document.spool.parent.iterdir()) == [document.spool]  # the 503 attempt left no file
    with document.open() as stream:
        assert stream.read(12) == body[:12]
    document.discard_spool()
    assert not document.spool.exists()
