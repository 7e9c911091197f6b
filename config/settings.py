"""Every GPUPRICES_* environment variable, read in one place (docs/settings.md is generated from SETTINGS).

Read at call time (`current()`), not at import: a test or a long-lived worker that changes the environment gets the
new value. Source credentials (BESTBUY_API_KEY...) are not here: each source names its own (Source.api_key_env).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Setting:
    name: str
    default: str | None
    doc: str


SETTINGS = (
    Setting('GPUPRICES_HOME', './data',
            'the data home: warehouse file, snapshot, landing, export, site, reports, alert rules'),
    Setting('GPUPRICES_DATABASE', '<home>/gpuprices.duckdb',
            'what DuckDB opens (loaders, dbt, readers): a file path, or `md:<name>` for MotherDuck; the one database variable'),
    Setting('GPUPRICES_LOCK_WAIT_S', '120',
            "seconds a writer waits for other processes' sessions on the warehouse file to end"),
    Setting('GPUPRICES_WATCHLIST', 'config/watchlist.toml',
            'the watch list: what the retail sources fetch'),
    Setting('GPUPRICES_ALERTS', '<home>/alerts.toml',
            'the alert rules file'),
    Setting('GPUPRICES_ALERT_WEBHOOK_URL', None,
            'webhook alerts are posted to (JSON: Slack-style `text` + the whole `event`); or `webhook_url` under `[delivery]` in the rules file'),
    Setting('GPUPRICES_ALERT_EMAIL_TO', None,
            'comma-separated alert email recipients; or `email_to` under `[delivery]` in the rules file'),
    Setting('GPUPRICES_ALERT_RETRY_PAUSE_S', '1.0',
            'base pause between the 3 tries of an alert delivery (grows each try)'),
    Setting('GPUPRICES_ALERT_MESSAGE_DEADLINE_S', '30',
            'overall deadline of one alert or notice on one channel (webhook or email), its tries and pauses '
            'included, seconds: a try still going then is cut, however the endpoint trickles'),
    Setting('GPUPRICES_ALERT_RUN_DEADLINE_S', '120',
            "overall deadline of all of a run's alert and notice deliveries, seconds: messages left then are "
            'recorded as not sent, without a try'),
    Setting('GPUPRICES_SMTP_HOST', None,
            'SMTP server for alert email'),
    Setting('GPUPRICES_SMTP_PORT', '587',
            'SMTP port'),
    Setting('GPUPRICES_SMTP_USER', None,
            'SMTP login user'),
    Setting('GPUPRICES_SMTP_PASSWORD', None,
            'SMTP login password'),
    Setting('GPUPRICES_SMTP_STARTTLS', '`1` when a user is set, else `0`',
            '`1` = STARTTLS before login (the server certificate is verified)'),
    Setting('GPUPRICES_SMTP_SSL', '0',
            '`1` = SMTPS: TLS from the first byte (usually port 465; the server certificate is verified)'),
    Setting('GPUPRICES_SMTP_FROM', 'gpuprices@localhost',
            'sender address of alert email'),
    Setting('GPUPRICES_AWS_REGIONS', 'every commercial region',
            'comma-separated AWS regions whose EC2 offer files the `aws` source reads (hundreds of MB each, streamed)'),
    Setting('GPUPRICES_PROJECT_DIR', None,
            "the checkout on a Prefect worker: prefect.yaml's pull step changes into it (scale-out)"),
    Setting('GPUPRICES_FAULTS', None,
            "a fault plan (JSON) the offline run's recorded-response server applies ([reliability.md](reliability.md#fault-injection))"),
    Setting('GPUPRICES_HTTP_CONNECT_TIMEOUT_S', '10',
            'HTTP connect timeout, seconds'),
    Setting('GPUPRICES_HTTP_READ_TIMEOUT_S', '60',
            'HTTP read timeout (between bytes), seconds'),
    Setting('GPUPRICES_HTTP_ATTEMPT_TIMEOUT_S', '300',
            'deadline for one request attempt, headers and whole body, seconds'),
    Setting('GPUPRICES_HTTP_MAX_ATTEMPTS', '4',
            'tries per request on transient failures (connection errors, timeouts, 429, 5xx)'),
    Setting('GPUPRICES_HTTP_BACKOFF_BASE_S', '1.0',
            'base of the exponential backoff (full jitter), seconds'),
    Setting('GPUPRICES_HTTP_BACKOFF_CAP_S', '30',
            'longest backoff pause, seconds'),
    Setting('GPUPRICES_HTTP_MAX_RETRY_AFTER_S', '120',
            'longest Retry-After (seconds, or an HTTP date) honoured on a 429 or 503; a server asking for more is a '
            'failure at once, in one line'),
    Setting('GPUPRICES_HTTP_MAX_BODY_BYTES', '25000000',
            'size cap of a response body (AWS offer files set their own)'),
    Setting('GPUPRICES_CONTACT_URL', 'https://github.com/gpuprices/gpuprices',
            'where a site owner reaches whoever runs the collector: named in the User-Agent of every request '
            '(`gpuprices/<version> (+<url>; ...)`); an `http(s)://` or `mailto:` address'),
    Setting('GPUPRICES_SOURCE_DEADLINE_S', '900',
            "deadline for a source's whole fetch, seconds"),
    Setting('GPUPRICES_SOURCE_RETRIES', '2',
            'extra tries of a failed source task (Prefect task retries)'),
    Setting('GPUPRICES_SOURCE_RETRY_DELAY_S', '10',
            'pause before a source task retry, seconds'),
    Setting('GPUPRICES_EXPORT_GRACE_S', '3600',
            'seconds an export version is kept after it stops being the current one (a reader that resolved the '
            'link before the switch finishes meanwhile); the current version is never deleted'),
    Setting('GPUPRICES_IMPORT_MAX_BYTES', '4294967296',
            '`import prices`: the largest file, in bytes after decompression (4 GiB); a larger one is refused in one '
            'line'),
    Setting('GPUPRICES_IMPORT_MAX_ROWS', '20000000',
            '`import prices`: the most rows a file may hold (blank lines are not rows); more are refused in one line'),
    Setting('GPUPRICES_IMPORT_MAX_LINE_BYTES', '1048576',
            '`import prices`: the longest line, in bytes (1 MiB), never held whole: a longer one is a bad row (its '
            'line named; quarantined with `--bad-rows quarantine`), a longer header refuses the file'),
    Setting('GPUPRICES_IMPORT_MAX_FIELD_CHARS', '2000',
            '`import prices`: the longest value of a field (title, url, region...), in characters; a longer one is '
            'a bad row'),
    Setting('GPUPRICES_HEADLINE_MARKETPLACES', '1',
            '`0`: the dashboards\' cheapest-rental headline leaves out peer-to-peer marketplace asks (channel '
            '`marketplace`); they keep their own rows in the marts either way'),
    Setting('GPUPRICES_STALE_AFTER_DAYS', '14',
            'a price, buy verdict, outlook or source whose day is more than this many days before the clock\'s UTC '
            'date is stale: the site shows it with its date and greyed (never a "buy now"), `status` and every '
            'command that shows a headline say so (warehouse/store/freshness.py)'),
)
_KNOWN = {setting.name for setting in SETTINGS}

# The HTTP client settings the environment may override: HttpSettings field -> variable.
HTTP_FIELDS = (
    "connect_timeout_s", "read_timeout_s", "attempt_timeout_s", "max_attempts", "backoff_base_s", "backoff_cap_s",
    "max_retry_after_s", "max_body_bytes",
)


def raw(name: str) -> str | None:
    """The variable's value, None when unset or empty. Only the variables listed in SETTINGS may be read."""
    if name not in _KNOWN:
        raise KeyError(f"{name} is not a gpuprices setting (config/settings.py SETTINGS)")
    return os.environ.get(name) or None


def number(name: str, default: float) -> float:
    value = raw(name)
    return float(value) if value is not None else default


def data_home() -> Path:
    home = Path(raw("GPUPRICES_HOME") or "data").resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


@contextmanager
def exported(name: str, value: str) -> Iterator[str]:
    """Set a setting in the environment for the block (for code that reads it there: dbt's profile), then restore."""
    raw(name)  # only known settings
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield value
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def exported_database(target: str):
    """GPUPRICES_DATABASE set to `target` for the block: models/profiles.yml reads it (the dbt build)."""
    return exported("GPUPRICES_DATABASE", target)


def lock_wait_s() -> float:
    return number("GPUPRICES_LOCK_WAIT_S", 120)


@dataclass(frozen=True)
class ImportLimits:
    max_bytes: int
    max_rows: int
    max_line_bytes: int
    max_field_chars: int


def import_limits() -> ImportLimits:
    return ImportLimits(max_bytes=int(number("GPUPRICES_IMPORT_MAX_BYTES", 4 * 1024**3)),
                        max_rows=int(number("GPUPRICES_IMPORT_MAX_ROWS", 20_000_000)),
                        max_line_bytes=int(number("GPUPRICES_IMPORT_MAX_LINE_BYTES", 1024**2)),
                        max_field_chars=int(number("GPUPRICES_IMPORT_MAX_FIELD_CHARS", 2000)))


def export_grace_s() -> float:
    return number("GPUPRICES_EXPORT_GRACE_S", 3600)


def run_environment(home: Path) -> dict[str, str]:
    """The variables a worker process of a distributed run needs: the data home and the checkout."""
    return {"GPUPRICES_HOME": str(home), "GPUPRICES_PROJECT_DIR": str(PROJECT_ROOT)}


def use_data_home(home: Path):
    """Point GPUPRICES_HOME at `home` for the block (benchmarks build several warehouses in one process)."""
    return exported("GPUPRICES_HOME", str(home))


def database_override() -> str | None:
    return raw("GPUPRICES_DATABASE")


def watchlist_path() -> Path:
    return Path(raw("GPUPRICES_WATCHLIST") or PROJECT_ROOT / "config" / "watchlist.toml")


def alerts_path() -> Path:
    return Path(raw("GPUPRICES_ALERTS") or data_home() / "alerts.toml")


def headline_includes_marketplaces() -> bool:
    return (raw("GPUPRICES_HEADLINE_MARKETPLACES") or "1").strip() not in ("0", "false", "no")


def stale_after_days() -> int:
    """GPUPRICES_STALE_AFTER_DAYS: a whole number of days, 0 or more (warehouse/store/freshness.py)."""
    value = raw("GPUPRICES_STALE_AFTER_DAYS")
    if value is None:
        return 14
    try:
        days = int(value)
    except ValueError:
        days = -1
    if days < 0:
        raise ValueError(f"GPUPRICES_STALE_AFTER_DAYS must be a whole number of days (0 or more), not {value!r}")
    return days


def faults_path() -> Path | None:
    value = raw("GPUPRICES_FAULTS")
    return Path(value) if value else None


DEFAULT_CONTACT_URL = "https://github.com/gpuprices/gpuprices"  # the project's repository (placeholder address)


def contact_url() -> str:
    """GPUPRICES_CONTACT_URL: the address the User-Agent names (scrapers/http.py). Refused when it is not one
    http(s):// or mailto: address without spaces: it goes into a header of every request."""
    value = (raw("GPUPRICES_CONTACT_URL") or DEFAULT_CONTACT_URL).strip()
    if not value.startswith(("https://", "http://", "mailto:")) or any(c.isspace() or not c.isprintable()
                                                                       or c in "()" for c in value):
        raise ValueError(f"GPUPRICES_CONTACT_URL must be one http(s):// or mailto: address without spaces or "
                         f"parentheses (it is sent in the User-Agent header), not {value!r}")
    return value


def http_overrides() -> dict[str, float]:
    """HttpSettings fields set in the environment (GPUPRICES_HTTP_<FIELD>)."""
    found = {}
    for field in HTTP_FIELDS:
        value = raw(f"GPUPRICES_HTTP_{field.upper()}")
        if value is not None:
            found[field] = float(value)
    return found


@dataclass(frozen=True)
class SourceLimits:
    deadline_s: float
    retries: int
    retry_delay_s: float


def source_limits() -> SourceLimits:
    return SourceLimits(
        deadline_s=number("GPUPRICES_SOURCE_DEADLINE_S", 900),
        retries=int(number("GPUPRICES_SOURCE_RETRIES", 2)),
        retry_delay_s=number("GPUPRICES_SOURCE_RETRY_DELAY_S", 10),
    )


@dataclass(frozen=True)
class AlertDelivery:
    webhook_url: str | None
    email_to: str | None
    retry_pause_s: float
    smtp_host: str | None
    smtp_port: int
    smtp_user: str | None
    smtp_password: str
    smtp_starttls: bool
    smtp_ssl: bool
    smtp_from: str


@dataclass(frozen=True)
class AlertDeadlines:
    message_s: float
    run_s: float


def alert_deadlines() -> AlertDeadlines:
    return AlertDeadlines(message_s=number("GPUPRICES_ALERT_MESSAGE_DEADLINE_S", 30),
                          run_s=number("GPUPRICES_ALERT_RUN_DEADLINE_S", 120))


def aws_regions() -> tuple[str, ...]:
    """GPUPRICES_AWS_REGIONS as a tuple (empty: the source's own list)."""
    return tuple(region.strip() for region in (raw("GPUPRICES_AWS_REGIONS") or "").split(",") if region.strip())


def alert_delivery() -> AlertDelivery:
    user = raw("GPUPRICES_SMTP_USER")
    starttls = raw("GPUPRICES_SMTP_STARTTLS")
    return AlertDelivery(
        webhook_url=raw("GPUPRICES_ALERT_WEBHOOK_URL"),
        email_to=raw("GPUPRICES_ALERT_EMAIL_TO"),
        retry_pause_s=number("GPUPRICES_ALERT_RETRY_PAUSE_S", 1.0),
        smtp_host=raw("GPUPRICES_SMTP_HOST"),
        smtp_port=int(number("GPUPRICES_SMTP_PORT", 587)),
        smtp_user=user,
        smtp_password=raw("GPUPRICES_SMTP_PASSWORD") or "",
        smtp_starttls=(starttls or ("1" if user else "0")) == "1",
        smtp_ssl=raw("GPUPRICES_SMTP_SSL") == "1",
        smtp_from=raw("GPUPRICES_SMTP_FROM") or "gpuprices@localhost",
    )


def default(setting: Setting) -> str:
    if setting.default is None:
        return "unset"
    return setting.default if " " in setting.default else f"`{setting.default}`"


def markdown_table() -> str:
    lines = ["| variable | default | what it does |", "|---|---|---|"]
    lines += [f"| `{s.name}` | {default(s)} | {s.doc} |" for s in SETTINGS]
    return "\n".join(lines)
