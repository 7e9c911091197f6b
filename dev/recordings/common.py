"""What the recording builders share: where recordings live, the route key the recorded server matches, and the
shape of one index.json entry."""

from __future__ import annotations

from urllib.parse import unquote

from config.settings import PROJECT_ROOT

RECORDINGS = PROJECT_ROOT / "recordings"  # the data these scripts write (index.json and the served files)
FIXTURES = PROJECT_ROOT / "tests" / "fixtures"
REPLAY_START = "2026-04-02T00:00:00+00:00"  # fixture-based recordings are served from the first replay day on


def route_key(url: str) -> str:
    """The route key the recorded server matches: the URL without scheme, percent-decoded."""
    return unquote(url.split("://", 1)[1])


def recording(source, origin, note, routes, recorded_at=REPLAY_START) -> dict:
    """One index.json entry: which source, since when, how honest (data_origin), and its URL -> file routes."""
    return {"source": source, "recorded_at": recorded_at, "data_origin": origin, "note": note, "overrides": {},
            "routes": {route_key(url): relative for url, relative in routes.items()}}
