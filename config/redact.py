"""Secrets never leave the process: the one redaction every URL and message goes through before it is logged,
stored, landed or shown (FetchError and every other SourceError, RawDocument.url, failure records, alert
delivery errors, the run report).

Three rules, applied in this order:
- any value of a configured secret (an environment variable named like a credential: `*_KEY`, `*_TOKEN`,
  `*_SECRET`, `*_PASSWORD`, `*_CLIENT_ID`, `*_WEBHOOK_URL`...), as written or percent-encoded. A secret that is a URL
  (a webhook's, whose token is in its path or query) is also matched by its parts, in whatever spelling a client
  writes it back (httpx quotes the URL it sent: host lower-cased and in its IDNA form, path and query
  percent-encoded, a trailing space as %20, dot segments resolved): every URL in the text that reaches the same
  host and port at the same path (or below it) is replaced whole, and the path and query themselves, however
  percent-encoded and in any letter case, wherever they appear;
- in every URL: the userinfo (`user:password@`) and the value of every query parameter named like a key, token,
  secret, signature, password or credential;
- an `Authorization:` / `Bearer` / `Basic` credential written in a message.
Each is replaced by REDACTED.
"""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

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


DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
MIN_SECRET_PART = 8  # a URL's path or query shorter than this ("/", "/hook") names no secret of its own


def url_key(url: str) -> tuple[str, int | None, str, str] | None:
    """(host, port, path, query) of a URL as the server it reaches reads it, whatever its spelling: the host
    lower-cased in its IDNA (xn--) form, the default port filled in, the path's dot segments resolved, path and
    query percent-decoded, stripped of surrounding white space and case-folded. None when the text is no URL with a
    host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if not parts.scheme or not host:
        return None
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        pass
    path = _without_dot_segments(unquote(parts.path).strip()) or "/"
    return (host.lower(), port or DEFAULT_PORTS.get(parts.scheme.lower()), path.casefold(),
            unquote(parts.query.replace("+", " ")).strip().casefold())


def _without_dot_segments(path: str) -> str:
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if len(kept) > 1:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    return "/".join(kept)


def _any_spelling(part: str) -> re.Pattern:
    """A pattern for the (decoded) text written as it is or with any of its characters percent-encoded, in any
    letter case (a space also as '+')."""
    pieces = []
    for character in part:
        spellings = {"\\+"} if character == " " else set()
        for variant in {character, character.lower(), character.upper()}:  # É is %C3%89, é %C3%A9
            spellings |= {re.escape(variant), "".join(f"%{byte:02X}" for byte in variant.encode("utf-8"))}
        pieces.append(f"(?:{'|'.join(sorted(spellings, key=len, reverse=True))})")
    return re.compile("".join(pieces), re.IGNORECASE)


def _secret_urls(values: list[str]) -> list[tuple[tuple, list[re.Pattern]]]:
    """Each secret that is a URL: its key (url_key) and the patterns of its path and query in every spelling."""
    found = []
    for value in values:
        if "://" not in value:
            continue
        key = url_key(value)
        if key is None:
            continue
        parts = urlsplit(value.strip())
        path = _without_dot_segments(unquote(parts.path).strip())
        query = unquote(parts.query.replace("+", " ")).strip()
        parts_named = [part for part in (path, query) if len(part.strip("/")) >= MIN_SECRET_PART]
        found.append((key, [_any_spelling(part) for part in parts_named]))
    return found


def _reaches(url: str, secret: tuple) -> bool:
    """Whether the URL goes to the secret URL's host and port, at its path or below it."""
    key = url_key(url)
    if key is None or key[:2] != secret[:2]:
        return False
    path, secret_path = key[2], secret[2]
    return secret_path == "/" or path == secret_path or path.startswith(secret_path.rstrip("/") + "/")


def redact(text: str, also: tuple[str, ...] | list[str] = ()) -> str:
    """The text with every configured secret (and each of `also`: a secret the caller holds, such as the webhook
    URL it called), every URL's credentials and any Authorization value replaced."""
    if not text:
        return text
    values = sorted({*secret_values(), *(value for value in also if value and len(value) >= MIN_SECRET_LENGTH)},
                    key=len, reverse=True)
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
        encoded = quote(value, safe="")
        if encoded != value and encoded in text:
            text = text.replace(encoded, REDACTED)
    secret_urls = _secret_urls(values)
    if secret_urls:
        text = URL.sub(lambda match: REDACTED if any(_reaches(match.group(0), key) for key, _ in secret_urls)
                       else match.group(0), text)
        for _, patterns in secret_urls:
            for pattern in patterns:
                text = pattern.sub(REDACTED, text)
    text = URL.sub(lambda match: redact_url(match.group(0)), text)
    return AUTHORIZATION.sub(lambda match: match.group(1) + REDACTED, text)


def _secret_parameter(name: str) -> bool:
    return bool(SECRET_PARAMETER.search(name)) and not NOT_SECRET_PARAMETER.search(name)
