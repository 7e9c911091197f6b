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


def sources_test_data_markdown() -> str:
    """The README's source table: per source, where its offline test data came from (its last recording)."""
    latest: dict[str, dict] = {}
    for recording in sorted(load_recordings(), key=lambda r: r["recorded_at"]):
        latest[recording["source"]] = recording
    lines = ["| source | offline test data | from |", "|---|---|---|"]
    for source_id in sorted(all_sources()):
        recording = latest.get(source_id)
        if recording is None:
            lines.append(f"| `{source_id}` | none: parser tests only | |")
            continue
        note = _HASH.sub(r"\1", " ".join(recording["note"].replace("NOT a capture: ", "").split()))
        note = "" if recording["data_origin"] == "synthetic" else note.replace("skypilot-org/", "")
        note = note if len(note) <= 48 else note[:45].rsplit(" ", 1)[0] + "..."
        lines.append(f"| `{source_id}` | {ORIGIN_WORDS[recording['data_origin']]} | {note} |")
    return "\n".join(lines)
