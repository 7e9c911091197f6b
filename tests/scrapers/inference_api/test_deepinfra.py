"""DeepInfra's pricing page (per-token API prices): the token-price table of a real saved copy of the page, parsed,
normalized per million tokens and loaded; a page whose table is gone, empty or of another form is a parse error."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from conftest import RECORDINGS, raw_document

from scrapers.errors import ParseError
from scrapers.http import RawDocument
from scrapers.inference_api.deepinfra import PRICING_URL, DeepInfraPricingPage
from warehouse.store import db
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest

SOURCE = DeepInfraPricingPage()
# the real page lives once, as the offline recording (tests/fixtures/PROVENANCE.md)
PAGE = RECORDINGS / "deepinfra" / "stale_capture_2026-08-22_pricing_table_excerpt.html"
HTML = PAGE.read_text()
OBSERVED = datetime(2026, 8, 22, 12, 0, tzinfo=UTC)


def parse(html: str) -> list:
    return SOURCE.parse([raw_document(html.encode(), PRICING_URL, "text/html")])


def test_every_row_of_the_real_table_is_one_exact_price():
    parsed = parse(HTML)
    assert [p.model_slug for p in parsed] == [
        "deepseek-ai/DeepSeek-V4-Flash-0731", "deepseek-ai/DeepSeek-V4-Pro", "deepseek-ai/DeepSeek-V4-Flash"]
    pro = parsed[1]
    # "$1.30 / $0.10 cached" and "$2.60" per million: the uncached input price kept, per token
    assert (pro.usd_per_input_token, pro.usd_per_output_token) == (Decimal("0.0000013"), Decimal("0.0000026"))
    assert (pro.source, pro.provider, pro.context_length) == ("deepinfra", "deepinfra", None)
    assert parsed[0].usd_per_input_token == Decimal("8E-8")
    assert parsed[2].usd_per_output_token == Decimal("1.8E-7")


def test_a_run_loads_per_million_prices(home):
    document = raw_document(HTML.encode(), PRICING_URL, "text/html")
    record = ingest(SOURCE, land(SOURCE.id, OBSERVED, [document], "stale_capture"), "test")
    assert (record.status, record.rows_parsed, record.rows_loaded, record.rows_rejected) == ("loaded", 3, 3, 0)
    with db.connect() as connection:
        loaded = {row[0]: row[1:] for row in connection.execute(
            "SELECT model_slug, usd_per_million_input_tokens, usd_per_million_output_tokens, provider "
            "FROM raw.api_token_prices").fetchall()}
    assert loaded["deepseek-ai/DeepSeek-V4-Pro"] == (Decimal("1.3"), Decimal("2.6"), "deepinfra")
    assert loaded["deepseek-ai/DeepSeek-V4-Flash"][:2] == (Decimal("0.09"), Decimal("0.18"))


TBODY = '<tbody class="MuiTableBody-root mui-style-2sgn7f">'
HEAD = HTML.split(TBODY, 1)[0]  # the table up to its header row
GPU_TABLE = (
    '<table><thead><tr><th scope="col">GPU</th><th scope="col">Memory</th><th scope="col">Price</th></tr></thead>'
    '<tbody><tr><td>H100</td><td>80GB</td><td><b>$2.20</b> / GPU-hour</td></tr></tbody></table>')


@pytest.mark.parametrize("html, message", [
    ("<html><title>Just a moment...</title></html>", "has no token-price table"),
    (GPU_TABLE, "has no token-price table"),
    (HEAD + TBODY + "</tbody></table>", "token-price table has no rows"),  # rows rendered client-side only
    (HTML.replace("$1.30 / $0.10 cached", "<s>$1.60</s> $1.30"), "DeepSeek-V4-Pro prices"),
    (HTML.replace("<td class=\"MuiTableCell-root MuiTableCell-body MuiTableCell-sizeMedium mui-style-11i8fhu\">$2.60",
                  "<td>2.60 USD"), "DeepSeek-V4-Pro prices"),
    (HTML.replace('href="/deepseek-ai/DeepSeek-V4-Pro">DeepSeek-V4-Pro</a>', ">DeepSeek-V4-Pro</a>"), "no model link"),
    (HTML.replace("$ per 1M input tokens", "$ per 1K input tokens"), "has no token-price table"),
])
def test_a_changed_or_missing_table_is_a_parse_error(html, message):
    with pytest.raises(ParseError, match=message):
        parse(html)


def test_fetch_gets_the_public_page_without_a_key():
    calls = []

    class Client:
        async def get(self, url, *, allowed_hosts, headers=None, **_):
            calls.append((url, allowed_hosts, headers))
            return RawDocument(url=url, status=200, body=HTML.encode(), fetched_at=OBSERVED, content_type="text/html")

    assert SOURCE.api_key_env is None
    documents = asyncio.run(SOURCE.fetch(Client()))
    assert calls == [("https://deepinfra.com/pricing", ("deepinfra.com",), {"accept": "text/html"})]
    assert len(SOURCE.parse(documents)) == 3
