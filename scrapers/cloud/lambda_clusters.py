"""Lambda 1-Click Clusters (public pricing page, no key): the reserved price of a cluster per GPU-hour, by the
cluster size it is sold at.

Facts (gpu-index's real capture of lambda.ai/pricing, 2026-08-22; recordings/lambda-clusters/ keeps its "1-Click
Clusters pricing" section byte for byte, tests/fixtures/PROVENANCE.md):
- `GET https://lambda.ai/pricing`: a server-rendered (HubSpot) page. The cluster prices sit in one `<section>` whose
  `<h2>` reads "1-Click Clusters pricing" ("Production-ready clusters from 16 to 2,000+ NVIDIA B200 or H100 GPUs"),
  one tab panel per GPU (`<h3>` "NVIDIA HGX B200 systems", "NVIDIA H100 systems"), each a table headed Plan |
  DURATION | GPU COUNT | PRICE/GPU/HR* | Action ("* plus applicable sales tax/VAT/GST"). The header is pinned:
  which cell is the price rides on it. The same tables are repeated, escaped, inside the page's `newIslands` script
  (hydration data): only the rendered section is read, so no price counts twice. The page's other section,
  "Instances pricing" (on-demand, 1x-8x), is Lambda's API's business (source `lambda`) and is not read here.
- A row is a reservation: DURATION "2 weeks – 1 year" (en dash) at a GPU COUNT of "16", "64", "256" or "256+" (the
  smallest cluster the rate is sold at: `gpu_count`, the term's minimum size), at "$D.DD" USD per GPU-hour. As with
  Together's reserved tiers, a duration range is loaded at its longest reservation in whole months: "2 weeks – 1 year"
  -> 12 months, pricing type `reserved_1y` (a 1-year reservation of that cluster costs that rate; so does a shorter
  one down to 2 weeks, which the title keeps). "1 year+" rows print an em dash: no published price, never a zero. Any
  other duration, count or figure is a ParseError (never a guess).
- Names: "NVIDIA HGX B200" ("HGX" is NVIDIA's SXM baseboard: "B200 SXM", b200-180gb); "NVIDIA H100" says no form
  factor and no memory: it is the H100 whose form factor the offer does not say (h100-unstated, by the provider's
  alias in models/seeds/gpu_aliases.csv), never guessed SXM. The page names no region, no
  stock and no network between the nodes (Lambda's cluster pages do, not this one): region, in_stock and
  cluster_network stay empty. How a reservation is paid is not printed either.
"""

from __future__ import annotations

import re
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage, term_pricing_type
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import gpu_raw_name, interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import dollar_cell, node_text

PRICING_URL = "https://lambda.ai/pricing"
SECTION_TITLE = "1-Click Clusters pricing"
HEADER = ("Plan", "DURATION", "GPU COUNT", "PRICE/GPU/HR*", "Action")
# a printed duration -> its longest reservation in whole months; the "1 year+" rows carry no price
DURATION_MONTHS = {"2 weeks \u2013 1 year": 12}
UNPRICED_DURATIONS = {"1 year+"}
NO_PRICE = {"\u2014", "-", "\u2013"}
_COUNT = re.compile(r"^(\d+)\+?$")


class LambdaClusters(PricingPage):
    id = "lambda-clusters"
    provider = "lambda"
    description = ("Lambda 1-Click Clusters from the public pricing page (USD per GPU-hour, reserved 2 weeks to 1 year, "
                   "by cluster size)")
    pricing_types = ("reserved_1y",)
    hosts = ("lambda.ai", "www.lambda.ai")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"b200-180gb"}), min_offers=4)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        sections = [section for section in LexborHTMLParser(html).css("section")
                    if node_text(section.css_first("h2"), " ") == SECTION_TITLE]
        if len(sections) != 1:
            raise ParseError(f"{self.id}: {len(sections)} sections titled {SECTION_TITLE!r} (need 1): reshaped")
        panels = sections[0].css('div[role="tabpanel"]')
        if not panels:
            raise ParseError(f"{self.id}: no tab panel in {SECTION_TITLE!r}")
        offers = []
        for panel in panels:
            offers.extend(self._panel(panel, index))
        if not offers:
            raise ParseError(f"{self.id}: {SECTION_TITLE!r} holds no priced row")
        return offers

    def _panel(self, panel: LexborNode, index: int) -> list[Offer]:
        heading = node_text(panel.css_first("h3"), " ")
        tables = panel.css("table")
        if len(tables) != 1:
            raise ParseError(f"{self.id}: panel {heading!r} has {len(tables)} tables (need 1)")
        columns = tuple(node_text(cell, " ") for cell in tables[0].css("thead th"))
        if columns != HEADER:
            raise ParseError(f"{self.id}: panel {heading!r} has columns {list(columns)}, not {list(HEADER)}")
        offers = []
        for row in tables[0].css("tbody tr"):
            cells = [node_text(cell, " ") for cell in row.css("th, td")]
            if len(cells) != len(HEADER):
                raise ParseError(f"{self.id}: panel {heading!r}: row {cells} has {len(cells)} cells for "
                                 f"{len(HEADER)} columns")
            offer = self._row(cells, heading, index)
            if offer is not None:
                offers.append(offer)
        return offers

    def _row(self, cells: list[str], heading: str, index: int) -> Offer | None:
        label, duration, count, printed = cells[:4]
        where = f"panel {heading!r} row {label!r} {duration!r} x {count!r}"
        if not label.startswith("NVIDIA "):
            raise ParseError(f"{self.id}: {where}: plan {label!r} is not an NVIDIA GPU")
        if duration in UNPRICED_DURATIONS:
            if printed not in NO_PRICE:
                raise ParseError(f"{self.id}: {where}: a price {printed!r} for a duration read as unpriced")
            return None
        months = DURATION_MONTHS.get(duration)
        if months is None:
            raise ParseError(f"{self.id}: {where}: unknown duration {duration!r}")
        size = _COUNT.match(count)
        if not size or int(size.group(1)) <= 0:
            raise ParseError(f"{self.id}: {where}: GPU count {count!r} is not '<n>' or '<n>+'")
        if printed in NO_PRICE:
            return None
        price = dollar_cell(printed, where, self.id)
        raw_name = gpu_raw_name(label)
        gpus = int(size.group(1))
        return Offer(
            source=self.id, channel="cloud", provider=self.provider,
            offer_id=f"{label}|{duration}|{count}", instance_type=label,
            title=f"{label} 1-Click Cluster, {count} GPUs, reserved {duration}",
            raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.provider),
            gpu_count=Fraction(gpus), pricing_type=term_pricing_type(months), term_months=months,
            price=price, currency="USD", price_unit="gpu_hour", url=PRICING_URL, document_index=index,
            interconnect=interconnect_of(raw_name),
        )
