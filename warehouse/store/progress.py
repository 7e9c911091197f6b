"""Progress lines on stderr and the run clock: what the store's build and the ingest's stages both print by."""

from __future__ import annotations

import sys
from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def progress(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)
