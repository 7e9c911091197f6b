"""DeepInfra's public pricing page: the per-token API price of the language models it lists there.

fetch: `GET https://deepinfra.com/pricing` (no key). No JSON price list of DeepInfra was found saved anywhere; the
page was. Format, read from a real saved copy of the page (tests/fixtures/deepinfra/, tests/fixtures/PROVENANCE.md):
server-rendered MUI tables; the token-price table has the header row `Model | Context | $ per 1M input tokens |
$ per 1M output tokens | Actions` and one row per model:
`<td><div><a href="/deepseek-ai/DeepSeek-V4-Pro">DeepSeek-V4-Pro</a></div></td><td>1024k</td>
<td>$1.30 / $0.10 cached</td><td>$2.60</td><td>...View more...</td>`.
- model_slug: the row link's path without its leading "/" (`deepseek-ai/DeepSeek-V4-Pro`), DeepInfra's model id.
- Prices are USD per MILLION tokens as written ("$1.30"), read exactly and divided by 10^6. The input cell may add
  the cached-input price ("$1.30 / $0.10 cached"): the uncached price (first figure) is kept, the cached one dropped.
- Context is written rounded ("1024k": 1024 x 1000 or x 1024 tokens, the page does not say): not read
  (context_length None) rather than guessed.
- Every table with that header is read (the page may split models over several). A page without one, or with no
  priced row, or a price cell of another form (e.g. a struck-through list price beside a discount) is a ParseError:
  the page changed and the parser must be looked at.
The same page lists GPU rentals for custom LLM deployments ("A100 80GB $0.89 / GPU-hour" ...): not read here.
"""

from __future__ import annotations

import re
from decimal import Decimal

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Expectations, PricingPage, TokenPrice
from scrapers.errors import ParseError
from scrapers.offline import Recording, Served
from scrapers.parsing import money, node_text

PRICING_URL = "https://deepinfra.com/pricing"
TOKEN_TABLE_HEADER = ("Model", "Context", "$ per 1M input tokens", "$ per 1M output tokens")
TOKENS_PER_MILLION_EXPONENT = -6

_PRICE = r"\$(\d+(?:\.\d+)?)"
_INPUT_CELL = re.compile(rf"{_PRICE}(?: / {_PRICE} cached)?")
_OUTPUT_CELL = re.compile(_PRICE)


class DeepInfraPricingPage(PricingPage):
    id = "deepinfra"
    kind = "api"
    provider = "deepinfra"
    records = "token_prices"
    description = "DeepInfra pricing page: USD per input and output token of each language model listed (API prices)"
    pricing_types = ("per_token",)
    hosts = ("deepinfra.com",)
    page_url = PRICING_URL
    status = (
        "page parser tested on the token-price table of a REAL saved copy of deepinfra.com/pricing (2026-08-22, an "
        "excerpt of 3 rows); the live page's full row count is unknown"
    )
    # the saved excerpt holds 3 rows; how many the live page renders is not known
    expectations = Expectations(frozenset(), min_offers=3)
    offline = Recording(
        "stale_capture", "getcomputable/gpu-index@055204ad deepinfra/pricing.html: the token-price table of a REAL "
        "copy of the page fetched 2026-08-22 (3 rows), every day",
        (Served(PRICING_URL, "stale_capture_2026-08-22_pricing_table_excerpt.html"),))  # kept once, in recordings/

    def parse_page(self, html: str, index: int) -> list[TokenPrice]:
        tables = [table for table in LexborHTMLParser(html).css("table") if self._header(table) == TOKEN_TABLE_HEADER]
        if not tables:
            raise ParseError(f"{self.id}: {self.page_url} has no token-price table (header {TOKEN_TABLE_HEADER})")
        found = [self._price(row, index) for table in tables for row in table.css("tbody tr")]
        if not found:
            raise ParseError(f"{self.id}: {self.page_url} token-price table has no rows")
        return found

    @staticmethod
    def _header(table) -> tuple[str, ...]:
        return tuple(node_text(th) for th in table.css("thead th"))[:len(TOKEN_TABLE_HEADER)]

    def _price(self, row, index: int) -> TokenPrice:
        cells = row.css("td")
        if len(cells) < len(TOKEN_TABLE_HEADER):
            raise ParseError(f"{self.id}: a token-price row has {len(cells)} cells, expected {len(TOKEN_TABLE_HEADER)}+")
        link = cells[0].css_first("a[href]")
        href = (link.attributes.get("href") or "") if link is not None else ""
        slug = href.lstrip("/")
        if not href.startswith("/") or not slug:
            raise ParseError(f"{self.id}: a token-price row has no model link ({node_text(cells[0])!r})")
        input_text, output_text = node_text(cells[2]), node_text(cells[3])
        input_match = _INPUT_CELL.fullmatch(input_text)
        output_match = _OUTPUT_CELL.fullmatch(output_text)
        if input_match is None or output_match is None:
            raise ParseError(f"{self.id}: {slug} prices {input_text!r} / {output_text!r} are not of a known form")
        return TokenPrice(
            source=self.id, provider=self.provider, model_slug=slug,
            usd_per_input_token=self._per_token(input_match.group(1), slug, "input"),
            usd_per_output_token=self._per_token(output_match.group(1), slug, "output"),
            document_index=index,
        )

    def _per_token(self, per_million: str, slug: str, side: str) -> Decimal:
        return money(per_million, f"{slug} {side} price", self.id).scaleb(TOKENS_PER_MILLION_EXPONENT)
