"""Secrets never leave the process: the one redaction every URL and message goes through before it is logged,
stored, landed or shown (FetchError and every other SourceError, RawDocument.url, failure records, alert
delivery errors, the run report).

Three rules, applied in this order:
- any value of a configured secret (an environment variable named like a credential: `*_KEY`, `*_TOKEN`,
  `*_SECRET`, `*_PASSWORD`, `*_CLIENT_ID`, `*_WEBHOOK_URL`...), as written or percent-encoded;
- in every URL: the userinfo (`user:password@`) and the value of every query parameter named like a key, token,
  secret, signature, password or credential;
- an `Authorization:` / `Bearer` / `Basic` credential written in a message.
Each is replaced by REDACTED.
"""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

REDACTED = "REDACTED"

# Environment variables holding credentials (source keys, OAuth client ids and secrets, the SMTP password, the alert
# webhook URL, which carries its token in its path).
SECRET_VARIABLE = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CLIENT_ID|CLIENT_SECRET|"
                             r"WEBHOOK_URL|CREDENTIALS?)$")
MIN_SECRET_LENGTH = 4  # a one-letter "secret" would redact half of every message

SECRET_PARAMETER = re.compile(r"key|token|secret|signature|password|passwd|credential|^sig$|^auth", re.IGNORECASE)
# "keywords=rtx 4090" is a search, not a key
NOT_SECRET_PARAMETER = re.compile(r"^keywords?$|^_?nkw$", re.IGNORECASE)

URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s'\"<>\[\]{}]+", re.IGNORECASE)
AUTHORIZATION = re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?|bearer\s+)"
                           r"[A-Za-z0-9._~+/=-]{6,}")


def secret_values() -> list[str]:
    """The values of the configured credentials in the environment now (longest first: a secret that contains
    another is replaced whole)."""
    values = {value for name, value in os.environ.items()
              if SECRET_VARIABLE.search(name.upper()) and len(value) >= MIN_SECRET_LENGTH}
    return sorted(values, key=len, reverse=True)


def redact_url(url: str) -> str:
    """The URL with its userinfo and its secret-looking query values replaced."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_secret_parameter(name) for name, _ in pairs):
            query = urlencode([(name, REDACTED if _secret_parameter(name) else value) for name, value in pairs],
                              safe="(),:/*")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact(text: str) -> str:
    """The text with every configured secret, every URL's credentials and any Authorization value replaced."""
    if not text:
        return text
    for value in secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
        encoded = quote(value, safe="")
        if encoded != value and encoded in text:
            text = text.replace(encoded, REDACTED)
    text = URL.sub(lambda match: redact_url(match.group(0)), text)
    return AUTHORIZATION.sub(lambda match: match.group(1) + REDACTED, text)


def _secret_parameter(name: str) -> bool:
    return bool(SECRET_PARAMETER.search(name)) and not NOT_SECRET_PARAMETER.search(name)
