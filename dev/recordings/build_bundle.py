"""Builds recordings/index.json and the files it routes to, from what every source declares (`Source.offline`,
scrapers/offline.py). Run from the project root: `uv run python -m dev.recordings.build_bundle`. Reads only files in
the repository (tests/fixtures/, recordings/); every output is byte-reproducible.

Nothing here knows a source: a `Recording` is written from its fixtures (or made-up bodies) and served from the first
replay day on; a `Generated` one is written by the function it names (dev/recordings/from_skypilot.py, rebuilt.py,
retail_scenario.py); a source without a declaration has no recording.
"""

from __future__ import annotations

import importlib
import json

from dev.recordings.common import FIXTURES, RECORDINGS, fixture_json, recording, write_bytes
from scrapers.offline import Generated, Recording, Served
from scrapers.registry import all_sources


def served_body(served: Served) -> bytes | None:
    """The bytes of one served file as the bundle keeps them; None for a file kept in recordings/ only."""
    if served.body is not None:
        return (json.dumps(served.body, indent=1) + "\n").encode()
    if served.fixture is None:
        return None
    if served.raw:
        return served.pick((FIXTURES / served.fixture).read_bytes())
    payload = fixture_json(served.fixture)
    if isinstance(served.pick, str):
        payload = payload[served.pick]
    elif served.pick is not None:
        payload = served.pick(payload)
    return (json.dumps(payload, indent=1) + "\n").encode()


def declared_entry(source_id: str, declaration: Recording) -> tuple[dict, dict[str, bytes | None]]:
    """A Recording's index.json entry and its files (path under recordings/ -> bytes; None: kept there already),
    nothing written."""
    files = {f"{source_id}/{served.file}": served_body(served) for served in declaration.served}
    routes = {served.url: f"{source_id}/{served.file}" for served in declaration.served}
    return recording(source_id, declaration.origin, declaration.note, routes, overrides=declaration.overrides), files


def declared_recordings(source_id: str, declaration: Recording | Generated) -> list[dict]:
    """The index.json entries of one source's declaration (writing their files)."""
    if isinstance(declaration, Generated):
        module, function = declaration.generator.split(":")
        entries = getattr(importlib.import_module(module), function)(source_id)
        strangers = {entry["source"] for entry in entries} - {source_id}
        if strangers:
            raise ValueError(f"{declaration.generator} wrote recordings of {sorted(strangers)} for {source_id}")
        return entries
    entry, files = declared_entry(source_id, declaration)
    for relative, body in files.items():
        if body is not None:
            write_bytes(relative, body)
        elif not (RECORDINGS / relative).is_file():
            raise FileNotFoundError(f"{source_id}: recordings/{relative} is declared kept in recordings/, not there")
    return [entry]


def build() -> list[dict]:
    """Every declared recording, in replay order (recorded_at, then source)."""
    recordings = []
    for source_id, source in all_sources().items():
        if source.offline is not None:
            recordings.extend(declared_recordings(source_id, source.offline))
    recordings.sort(key=lambda r: (r["recorded_at"], r["source"]))
    return recordings


def main() -> None:
    recordings = build()
    (RECORDINGS / "index.json").write_text(json.dumps({"recordings": recordings}, indent=1))
    print(f"{len(recordings)} recordings")


if __name__ == "__main__":
    main()
