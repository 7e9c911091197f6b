"""Documentation generated from the real thing: the warehouse schema (from DuckDB's catalog) and the source
table (from the source registry). docs/schema.md and docs/sources.md embed both; a test fails when they drift."""

from __future__ import annotations

from scrapers.registry import all_sources
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
