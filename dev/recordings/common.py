"""What the recording builders share: where recordings live, the route key the recorded server matches, the shape
of one index.json entry, and writing a served file."""

from __future__ import annotations

import json
from urllib.parse import unquote

from config.settings import PROJECT_ROOT

RECORDINGS = PROJECT_ROOT / "recordings"  # the data these scripts write (index.json and the served files)
FIXTURES = PROJECT_ROOT / "tests" / "fixtures"
REPLAY_START = "2026-04-02T00:00:00+00:00"  # fixture-based recordings are served from the first replay day on
FIRST_DAY, LAST_DAY = "2026-04-02", "2026-05-01"  # the replay month the day-by-day recordings cover


def route_key(url: str) -> str:
    """The route key the recorded server matches: the URL without scheme, percent-decoded."""
    return unquote(url.split("://", 1)[1])


def recording(source, origin, note, routes, recorded_at=REPLAY_START, overrides=None) -> dict:
    """One index.json entry: which source, since when, how honest (data_origin), its constructor settings for the
    replay (overrides) and its URL -> file routes."""
    routes = {route_key(url): relative for url, relative in routes.items()}
    return {"source": source, "recorded_at": recorded_at, "data_origin": origin, "note": note,
            "overrides": dict(overrides or {}), "routes": routes}


def write_bytes(relative: str, body: bytes) -> str:
    """Write recordings/<relative>; returns `relative` (the route's file)."""
    path = RECORDINGS / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return relative


def write_text(relative: str, text: str) -> str:
    return write_bytes(relative, text.encode())


def write_json(relative: str, payload: object) -> str:
    """A served JSON answer, as the recordings keep it (indent 1, a final newline)."""
    return write_text(relative, json.dumps(payload, indent=1) + "\n")


def fixture_json(relative: str) -> object:
    """tests/fixtures/<relative>, parsed."""
    return json.loads((FIXTURES / relative).read_text())
