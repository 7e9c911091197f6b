"""Every source table in the docs is generated from the sources (warehouse/docs.py): the block between its markers is
what its command prints now, so a source added, changed or given a recording without regenerating the docs fails
here (no warehouse needed; the offline end-to-end test checks the same through the CLI)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from scrapers.registry import SOURCE_IDS
from warehouse.docs import source_credentials_markdown, sources_markdown, sources_test_data_markdown

BLOCKS = (
    ("docs/sources.md", "sources", sources_markdown, "gpuprices sources"),
    ("README.md", "sources-test-data", sources_test_data_markdown, "gpuprices sources --test-data"),
    ("docs/settings.md", "source-credentials", source_credentials_markdown, "gpuprices sources --credentials"),
)


@pytest.mark.parametrize(("document", "marker", "generate", "command"), BLOCKS, ids=[block[1] for block in BLOCKS])
def test_the_source_tables_are_what_the_sources_say(document, marker, generate, command):
    text = (ROOT / document).read_text()
    found = re.search(rf"<!-- {marker}:start -->\n(.*?)\n<!-- {marker}:end -->", text, re.S)
    assert found, f"{document} lost its {marker} markers"
    assert found.group(1).strip() == generate(), f"{document} drifted: paste `{command}` between its {marker} markers"


def test_every_source_is_in_the_source_table():
    table = sources_markdown()
    assert all(f"| `{source_id}` |" in table for source_id in SOURCE_IDS)
