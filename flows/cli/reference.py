"""What the warehouse holds, as Markdown: `gpuprices schema`, `sources`, `settings`, and `docs` (the generated
blocks of the docs, rewritten or checked)."""

from __future__ import annotations

import sys

import duckdb

from config.settings import markdown_table as settings_table
from warehouse.store.docs import (
    GENERATED_BLOCKS,
    MissingMarkers,
    rewrite_blocks,
    schema_markdown,
    source_credentials_markdown,
    sources_markdown,
    sources_test_data_markdown,
    stale_blocks,
)


def cmd_schema(args) -> int:
    print(schema_markdown())
    return 0


def cmd_sources(args) -> int:
    if args.credentials:
        print(source_credentials_markdown())
    else:
        print(sources_test_data_markdown() if args.test_data else sources_markdown())
    return 0


def cmd_docs(args) -> int:
    blocks = [block for block in GENERATED_BLOCKS if args.warehouse or not block.from_warehouse]
    try:
        found = stale_blocks(blocks) if args.check else rewrite_blocks(blocks)
    except (MissingMarkers, FileNotFoundError, duckdb.CatalogException) as error:
        print(f"gpuprices docs: {error}", file=sys.stderr)
        return 2
    for name in found:
        print(f"{'stale' if args.check else 'rewritten'}: {name}")
    if not args.warehouse:
        print("not checked: the blocks generated from the warehouse (schema, offline counts); after `gpuprices run "
              "--offline` on a fresh home: gpuprices docs --warehouse", file=sys.stderr)
    return 1 if args.check and found else 0


def cmd_settings(args) -> int:
    print(settings_table())
    return 0


def register(commands) -> None:
    commands.add_parser("schema", help="print the warehouse schema (Markdown)").set_defaults(func=cmd_schema)
    sources = commands.add_parser("sources", help="print the source table (Markdown)")
    sources.add_argument("--test-data", action="store_true", help="the README's table: where each source's offline "
                                                                   "test data came from")
    sources.add_argument("--credentials", action="store_true", help="the credential variables each keyed source "
                                                                      "needs (docs/settings.md's table)")
    sources.set_defaults(func=cmd_sources)
    commands.add_parser("settings", help="print every GPUPRICES_* setting (Markdown)").set_defaults(func=cmd_settings)
    docs = commands.add_parser(
        "docs", help="rewrite every generated block of the docs (README counts and test data, docs/sources.md, "
                     "docs/settings.md; --warehouse: docs/schema.md and the offline counts too)",
        epilog="exit status: 0 = written (or --check: none stale); 1 = --check found a stale block; 2 = a document "
               "lost its markers, or --warehouse without a warehouse")
    docs.add_argument("--check", action="store_true", help="rewrite nothing: list the stale blocks, exit 1 if any")
    docs.add_argument("--warehouse", action="store_true",
                      help="the blocks generated from the built warehouse too (run it on the offline run's home)")
    docs.set_defaults(func=cmd_docs)
