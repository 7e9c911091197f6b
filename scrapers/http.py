"""The one HTTP client every source uses.

- timeouts on connect/read, a deadline for each whole response (a body trickling in a byte at a time never passes
  a read timeout), and a size cap (bodies are streamed and cut off past the cap);
- retries with exponential backoff and full jitter on transient failures (connection errors, timeouts, 429, 5xx),
  honouring Retry-After on 429/503 (delta-seconds or an HTTP date) up to a cap (max_retry_after_s: a server asking
  for more fails the request at once), at most max_attempts tries; never a retry on other 4xx; each way of giving
  up is one line naming the URL, the last answer and the setting that bounds it;
- an honest User-Agent on every request: the project, its version and a contact address (GPUPRICES_CONTACT_URL).
  No source sends a browser's User-Agent; a source that must would pass its own header, and say why in its module;
- per-host concurrency and a per-host minimum interval between requests;
- redirects followed by hand, and only to the source's own hosts; never from https to http, and credentials
  (Authorization, Cookie headers) never carried to another origin (scheme, host and port); no cookie jar;
- every URL kept on a document or put in an error is redacted (config/redact.py);
- a `rewrite` hook so the offline run sends the very same requests to the local recorded-response server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import functools
import hashlib
import http.cookiejar
import importlib.metadata
import io
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin, urlsplit

import httpx

from config.redact import redact_url
from config.settings import contact_url, data_home
from scrapers.errors import FetchError, ForbiddenRedirect, ResponseTooLarge


@dataclass(frozen=True)
class RawDocument:
    """One HTTP response exactly as received, before any parsing. A very large body (an AWS offer file) is spooled
    to a file instead (`spool`, `body` empty): read it with `open()`, never whole."""

    url: str
    status: int
    body: bytes
    fetched_at: datetime
    content_type: str = ""
    spool: Path | None = None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    @property
    def size(self) -> int:
        return self.spool.stat().st_size if self.spool is not None else len(self.body)

    def open(self) -> BinaryIO:
        """The body as a binary stream (the spool file, or the bytes in memory)."""
        return self.spool.open("rb") if self.spool is not None else io.BytesIO(self.body)

    def sha256(self) -> str:
        """The body's SHA-256, hex (computed once: landing, loading and the replay's repeat check each ask)."""
        known = self.__dict__.get("_sha256")
        if known is not None:
            return known
        if self.spool is None:
            known = hashlib.sha256(self.body).hexdigest()
        else:
            digest = hashlib.sha256()
            with self.spool.open("rb") as stream:
                while chunk := stream.read(SPOOL_CHUNK_BYTES):
                    digest.update(chunk)
            known = digest.hexdigest()
        object.__setattr__(self, "_sha256", known)  # frozen: not a field, never compared
        return known

    def discard_spool(self) -> None:
        """Delete the spool file once the body is landed and parsed (the landed copy is the record)."""
        if self.spool is not None:
            self.spool.unlink(missing_ok=True)


SPOOL_CHUNK_BYTES = 1 << 20


def spool_dir() -> Path:
    """Where very large bodies wait between fetch, landing and parse (each deleted once parsed)."""
    return data_home() / "spool"


@functools.cache
def project_version() -> str:
    """The installed gpuprices version (pyproject.toml's), for the User-Agent."""
    try:
        return importlib.metadata.version("gpuprices")
    except importlib.metadata.PackageNotFoundError:  # run from a tree that was never installed
        return "unknown"


def user_agent() -> str:
    """What every request says it is: `gpuprices/<version> (+<contact URL>; open GPU price warehouse, daily price
    collector)`, the usual form of a crawler's User-Agent, so a site owner can see who fetches and reach them
    (GPUPRICES_CONTACT_URL, read when a client is made)."""
    return f"gpuprices/{project_version()} (+{contact_url()}; open GPU price warehouse, daily price collector)"


TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
RETRY_AFTER_STATUSES = frozenset({429, 503})


@dataclass
class HttpSettings:
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0
    max_attempts: int = 4
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    max_retry_after_s: float = 120.0  # a server asking us to wait longer than this is treated as a failure
    attempt_timeout_s: float = 300.0  # one request, headers and whole body: past it the attempt is a timeout
    max_body_bytes: int = 25_000_000  # no price page or API answer comes near; AWS offer files set their own cap
    max_redirects: int = 5
    per_host_concurrency: int = 2
    per_host_min_interval_s: float = 0.25
    host_overrides: dict[str, tuple[int, float]] = field(default_factory=dict)  # host -> (concurrency, interval)
    # open connections in all, and of those kept open between requests (httpx's defaults): at every request's start
    # and end httpx polls each idle one's socket
    max_connections: int = 100
    max_keepalive_connections: int = 20

    def with_overrides(self, overrides: dict[str, float]) -> HttpSettings:
        """A copy with some fields replaced (config.settings.http_overrides(): GPUPRICES_HTTP_<FIELD>)."""
        return dataclasses.replace(
            self, **{name: type(getattr(self, name))(value) for name, value in overrides.items()})


class _HostGate:
    """At most `concurrency` requests in flight to one host, and starts spaced `interval` seconds apart."""

    def __init__(self, concurrency: int, interval: float):
        self._semaphore = asyncio.Semaphore(concurrency)
        self._interval = interval
        self._next_start = 0.0
        self._lock = asyncio.Lock()

    async def __aenter__(self):
        await self._semaphore.acquire()
        async with self._lock:
            now = time.monotonic()
            wait = self._next_start - now
            self._next_start = max(now, self._next_start) + self._interval
        if wait > 0:
            await asyncio.sleep(wait)
        return self

    async def __aexit__(self, *exc):
        self._semaphore.release()


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    default_port = {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default_port


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After is either delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


class HttpClient:
    def __init__(
        self,
        settings: HttpSettings | None = None,
        rewrite: Callable[[str], str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], object] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
    ):
        """`sleep` and `clock` (the wall clock an HTTP-date Retry-After is read against) are the tests' to replace."""
        self.settings = settings or HttpSettings()
        self._rewrite = rewrite or (lambda url: url)
        self._sleep = sleep
        self._clock = clock
        self._gates: dict[str, _HostGate] = {}
        self.user_agent = user_agent()
        self._client = httpx.AsyncClient(
            headers={"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"},
            timeout=httpx.Timeout(self.settings.read_timeout_s, connect=self.settings.connect_timeout_s),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=self.settings.max_connections,
                                max_keepalive_connections=self.settings.max_keepalive_connections),
            transport=transport,
            # no cookie is kept from a response nor sent with a later request (a cookie set by one origin would
            # otherwise reach the same host name on another port)
            cookies=http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[])),
        )
        self.request_count = 0

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self._client.aclose()

    def _gate(self, host: str) -> _HostGate:
        if host not in self._gates:
            concurrency, interval = self.settings.host_overrides.get(
                host, (self.settings.per_host_concurrency, self.settings.per_host_min_interval_s)
            )
            self._gates[host] = _HostGate(concurrency, interval)
        return self._gates[host]

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.settings.backoff_cap_s, self.settings.backoff_base_s * 2**attempt)
        return random.uniform(0, ceiling)  # full jitter

    async def get(
        self, url: str, *, allowed_hosts: tuple[str, ...], headers: dict | None = None, max_bytes: int | None = None,
        spool: bool = False,
    ) -> RawDocument:
        """`spool`: stream the body into a file under spool_dir() instead of memory (RawDocument.spool)."""
        return await self.request("GET", url, allowed_hosts=allowed_hosts, headers=headers, max_bytes=max_bytes,
                                  spool_dir=spool_dir() if spool else None)

    async def post(
        self, url: str, *, allowed_hosts: tuple[str, ...], json: object = None, headers: dict | None = None,
        form: dict | None = None,
    ) -> RawDocument:
        """POST a JSON body (`json`) or an application/x-www-form-urlencoded one (`form`, e.g. an OAuth token)."""
        return await self.request("POST", url, allowed_hosts=allowed_hosts, headers=headers, json=json, form=form)

    async def request(
        self,
        method: str,
        url: str,
        *,
        allowed_hosts: tuple[str, ...],
        headers: dict | None = None,
        json: object = None,
        max_bytes: int | None = None,
        form: dict | None = None,
        spool_dir: Path | None = None,
    ) -> RawDocument:
        """Fetch `url` (the real, logical URL). Returns the final 2xx response or raises a FetchError.
        `max_bytes` raises the size cap for one known-large document (AWS offer files)."""
        cap = max_bytes or self.settings.max_body_bytes
        for _hop in range(self.settings.max_redirects + 1):
            host = urlsplit(url).hostname or ""
            if host not in allowed_hosts:
                raise ForbiddenRedirect(f"refusing {url}: host {host!r} is not one of {allowed_hosts}")
            status, body, response_headers = await self._with_retries(
                method, url, host, headers, json, form, cap, spool_dir)
            if 300 <= status < 400 and "location" in response_headers:
                if isinstance(body, Path):  # a redirect's own body is never kept
                    body.unlink(missing_ok=True)
                target = urljoin(url, response_headers["location"])
                if urlsplit(url).scheme == "https" and urlsplit(target).scheme != "https":
                    raise ForbiddenRedirect(f"refusing the redirect from {url} to {target}: https to plain http")
                if headers and _origin(target) != _origin(url):
                    headers = {k: v for k, v in headers.items() if k.lower() not in CREDENTIAL_HEADERS}
                url = target
                method, json, form = "GET", None, None
                continue
            spool = body if isinstance(body, Path) else None
            if not 200 <= status < 300:
                if spool is not None:
                    spool.unlink(missing_ok=True)
                raise FetchError(f"HTTP {status} from {url}")
            return RawDocument(
                url=redact_url(url),  # landed, stored and shown: never with a key in its query
                status=status,
                body=b"" if spool is not None else body,
                spool=spool,
                fetched_at=datetime.now(UTC),
                content_type=response_headers.get("content-type", ""),
            )
        raise FetchError(f"more than {self.settings.max_redirects} redirects from {url}")

    async def _with_retries(self, method, url, host, headers, json, form, cap, spool_dir=None):
        last_error = ""
        attempts = max(1, int(self.settings.max_attempts))
        for attempt in range(attempts):
            try:
                async with self._gate(host):
                    async with asyncio.timeout(self.settings.attempt_timeout_s):
                        status, body, response_headers = await self._send_once(
                            method, url, headers, json, form, cap, spool_dir)
            except ResponseTooLarge:
                raise
            except (httpx.TransportError, httpx.DecodingError) as error:  # resets, timeouts, truncated gzip
                last_error = f"{type(error).__name__}: {error}"
                delay = self._backoff(attempt)
            except TimeoutError:  # the whole response took longer than attempt_timeout_s (a slow body)
                last_error = f"no complete response within {self.settings.attempt_timeout_s:g}s"
                delay = self._backoff(attempt)
            else:
                if status not in TRANSIENT_STATUSES:
                    return status, body, response_headers
                if isinstance(body, Path):
                    body.unlink(missing_ok=True)
                last_error = f"HTTP {status}"
                delay = self._backoff(attempt)
                if status in RETRY_AFTER_STATUSES:
                    asked = parse_retry_after(response_headers.get("retry-after"), now=self._clock())
                    if asked is not None:
                        if asked > self.settings.max_retry_after_s:
                            # waiting would hold the source (and its host's other requests) for longer than we allow
                            raise FetchError(
                                f"{url}: HTTP {status} asks to retry after {asked:.0f} s (Retry-After), too long: over "
                                f"the {self.settings.max_retry_after_s:g} s cap (GPUPRICES_HTTP_MAX_RETRY_AFTER_S), "
                                f"not retried")  # not transient either: a task retry seconds later is no better
                        delay = asked
                        last_error = f"HTTP {status}, Retry-After {asked:.0f} s"
            if attempt + 1 < attempts:
                await self._sleep(delay)
        raise FetchError(f"{url}: gave up after {attempts} attempts (GPUPRICES_HTTP_MAX_ATTEMPTS), last: {last_error}",
                         transient=True)

    async def _send_once(self, method, url, headers, json, form, cap, spool_dir=None):
        """One attempt: (status, body bytes or the spool file's path, headers)."""
        self.request_count += 1
        request = self._client.build_request(method, self._rewrite(url), headers=headers, json=json, data=form)
        response = await self._client.send(request, stream=True)
        spool = None
        try:
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > cap:
                raise ResponseTooLarge(f"{url}: Content-Length {declared} exceeds {cap}")
            chunks, size = [], 0
            if spool_dir is not None:
                spool_dir.mkdir(parents=True, exist_ok=True)
                handle, name = tempfile.mkstemp(prefix="spool-", dir=spool_dir)
                spool = Path(name)
                sink = os.fdopen(handle, "wb")
            try:
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > cap:
                        raise ResponseTooLarge(f"{url}: body exceeds {cap} bytes")
                    if spool is not None:
                        sink.write(chunk)  # bounded memory: one chunk at a time
                    else:
                        chunks.append(chunk)
            finally:
                if spool is not None:
                    sink.close()
            body = spool if spool is not None else b"".join(chunks)
            spool = None  # handed over
            return response.status_code, body, {k.lower(): v for k, v in response.headers.items()}
        finally:
            if spool is not None:  # the attempt failed: no half file is left behind
                spool.unlink(missing_ok=True)
            await response.aclose()
