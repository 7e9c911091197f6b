"""A source's offline recording, declared on the source (`Source.offline`): what the offline replay serves it, at
which URLs, written from which test fixture, and how honest that is.

`dev/recordings/build_bundle.py` writes recordings/ and recordings/index.json from these declarations (and nothing
else); the replay (scrapers/replay.py) only reads index.json. Three kinds:
- `Recording`: files served from the first replay day on, each written from a fixture in tests/fixtures/ (whole, or
  the part `pick` takes), made up in the declaration (`body`), or kept in recordings/ only (the real copy its tests
  read there: a file is never kept twice);
- `Generated`: recordings a script in dev/recordings/ writes day by day or rebuilds from other real data (the
  SkyPilot catalogs and what is rebuilt from them, the ECB daily files, made-up AWS and retail pages), named here;
- None (the default): no offline recording, the source is tested on its parser only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# What a recording is, most honest first: a real response of that date; a real response replayed on later dates;
# rebuilt from the real prices of another source; made up in the documented format. All but `captured` load with
# is_synthetic = true.
RECORDING_ORIGINS = ("captured", "stale_capture", "reconstructed", "synthetic")
# The key the offline replay gives a keyed source whose variable is unset (its requests only go to 127.0.0.1); a URL
# holding a credential (Hot Aisle's team handle) is recorded with it.
OFFLINE_PLACEHOLDER_KEY = "offline-replay-placeholder"


@dataclass(frozen=True)
class Served:
    """One recorded response: `file` (under recordings/<source id>/) answers `url`, the real URL the source asks for
    (with its query). Without `fixture` or `body` the file is the only copy, kept in recordings/."""

    url: str
    file: str
    fixture: str | None = None  # under tests/fixtures/: the file is written from it (JSON, indent 1)
    pick: Callable[[Any], Any] | None = None  # what of the fixture is served (default: all of it)
    raw: bool = False  # `pick` takes and gives the fixture's bytes, written as they come (no JSON round trip)
    body: Any = None  # a made-up JSON answer (an empty page that ends a paging loop), written as JSON


@dataclass(frozen=True)
class Recording:
    """The files a source is served on every replay day. `overrides`: its constructor settings for the replay
    (what to fetch instead of the live defaults: the recorded zones, queries, models)."""

    origin: str  # one of RECORDING_ORIGINS
    note: str  # where the data came from, in a line (index.json `note`; the README table shows its repo@commit)
    served: tuple[Served, ...]
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.origin not in RECORDING_ORIGINS:
            raise ValueError(f"origin must be one of {RECORDING_ORIGINS}, not {self.origin!r}")


@dataclass(frozen=True)
class Generated:
    """Recordings written by `generator`, "module:function" in dev/recordings/ (called with the source id, returns
    that source's index.json entries), for data rebuilt day by day or from another source's real data."""

    generator: str
    what: str  # one line: what it writes


GPU_INDEX_PAGE_COPY = "stale_capture_2026-08-22_pricing_page_gpu_index.html"


def gpu_index_page_copy(page_url: str) -> Recording:
    """A price page's REAL copy saved by getcomputable/gpu-index on 2026-08-22, kept once in
    recordings/<source id>/ (its parser tests read it there), served at the page's own URL every day."""
    return Recording("stale_capture", f"getcomputable/gpu-index@055204ad: a REAL copy of {page_url} (2026-08-22; "
                     "that project's excerpt holding the price tables), every day",
                     (Served(page_url, GPU_INDEX_PAGE_COPY),))
