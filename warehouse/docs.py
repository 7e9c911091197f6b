"""Documentation generated from the real thing: the warehouse schema (from DuckDB's catalog) and the source
table (from the source registry). docs/schema.md and docs/sources.md embed both; a test fails when they drift."""

from __future__ import annotations

import re

from scrapers.registry import all_sources
from scrapers.replay import load_recordings
from warehouse import db

DOCUMENTED_SCHEMAS = ("raw", "meta", "reference", "staging", "intermediate", "marts", "alerts")


def schema_markdown() -> str:
    with db.connect(read_only=True) as connection:
        rows = connection.execute(
            """
            SELECT table_schema, table_name, string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)
            FROM information_schema.columns
            WHERE table_schema IN ({})
            GROUP BY table_schema, table_name
            ORDER BY list_position(?, table_schema), table_name
            """.format(", ".join(f"'{s}'" for s in DOCUMENTED_SCHEMAS)),
            [list(DOCUMENTED_SCHEMAS)],
        ).fetchall()
    lines = ["| table | columns |", "|---|---|"]
    lines += [f"| `{schema}.{table}` | {columns} |" for schema, table, columns in rows]
    return "\n".join(lines)


def sources_markdown() -> str:
    lines = ["| id | what | auth | pricing types | status |", "|---|---|---|---|---|"]
    for source_id, source in sorted(all_sources().items()):
        keys = [name for name in (source.api_key_env, *source.extra_credential_envs) if name]
        auth = " + ".join(f"`{name}`" for name in keys) if keys else "none"
        lines.append(
            f"| `{source_id}` | {source.description} | {auth} | {', '.join(source.pricing_types)} | {source.status} |"
        )
    return "\n".join(lines)


# What the offline run's recording of a source is, in the README's words (recordings/index.json data_origin); all
# but a dated capture load flagged synthetic.
ORIGIN_WORDS = {
    "captured": "real capture, dated",
    "stale_capture": "real capture, undated",
    "reconstructed": "rebuilt from real prices",
    "synthetic": "made up, documented format",
}
_HASH = re.compile(r"\b([0-9a-f]{7})[0-9a-f]{33}\b")
_ORIGIN = re.compile(r"[\w.-]+(?:/[\w.-]+)?@[0-9a-f]{7}")
NO_RECORDING = "none: parser tests only"


def _short_origin(note: str) -> str:
    """A recording's origin in a few words: its repository@commit, else the note's first clause."""
    note = " ".join(_HASH.sub(r"\1", note).replace("NOT a capture: ", "").replace("skypilot-org/", "").split())
    found = _ORIGIN.search(note)
    if found:
        return found.group(0)
    clause = re.split(r"[(,;]", note)[0].strip()
    return clause if len(clause) <= 40 else clause[:37].rsplit(" ", 1)[0] + "..."


def sources_test_data_markdown() -> str:
    """The README's source table: per kind of offline test data, the sources whose last recording is of that kind,
    each with the repository and commit it came from where the recording names one (details: docs/sources.md)."""
    latest: dict[str, dict] = {}
    for recording in sorted(load_recordings(), key=lambda r: r["recorded_at"]):
        latest[recording["source"]] = recording
    groups: dict[str, list[str]] = {words: [] for words in (*ORIGIN_WORDS.values(), NO_RECORDING)}
    for source_id in sorted(all_sources()):
        recording = latest.get(source_id)
        if recording is None:
            groups[NO_RECORDING].append(f"`{source_id}`")
            continue
        tag = "" if recording["data_origin"] == "synthetic" else f" ({_short_origin(recording['note'])})"
        groups[ORIGIN_WORDS[recording["data_origin"]]].append(f"`{source_id}`{tag}")
    lines = ["| offline test data | sources (repository@commit of the data) |", "|---|---|"]
    lines += [f"| {words} | {', '.join(sources)} |" for words, sources in groups.items() if sources]
    return "\n".join(lines)
