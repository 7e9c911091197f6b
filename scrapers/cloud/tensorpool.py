"""TensorPool GPU clusters (public pricing page, no key): on-demand per-GPU-hour prices from the TensorPool column
of the page's comparison grid.

Facts (gpu-index's real capture of tensorpool.dev/pricing, 2026-08-22, and that project's collector notes;
recordings/tensorpool/):
- `GET https://tensorpool.dev/pricing`: a server-rendered Next.js page (~31 KB). The price table is rendered
  twice: mobile cards per provider first (hidden on desktop), then the desktop comparison grid, a
  `<div class="... grid-cols-[200px_200px_1fr_1fr_1fr] ...">` whose direct child divs are the cells, five a row:
  Category | GPU Type | Lambda Labs | TensorPool | Traditional Clouds (GCP, AWS, etc.). Only the grid is read
  (the cards repeat the same figures); the grid must be there exactly once.
- THE trap: every GPU label appears in all three price columns, and the Lambda Labs column (another provider's
  price) and Traditional Clouds column (TensorPool's own estimate of GCP/AWS) are competitors' figures: they are
  never loaded. The TensorPool column is found by its header cell and must be the column TensorPool paints with
  its own highlight (`bg-[#B8E7F5]`) on every row, else ParseError. B200 SXM is $4.99 in BOTH the Lambda and
  TensorPool columns, so a B200 spot check alone does not prove the right column (H100 SXM: $3.29 Lambda,
  $1.99 TensorPool).
- Cells read `$D/hr` (`$1.99/hr`, `$0.015/hr`): USD per GPU per hour (the mobile card heads the same figures
  "GPU COSTS / HR"); gpu_count 1, price_unit gpu_hour. Any other print is a ParseError; "N/A" is no price.
- The only Category is ON-DEMAND (first data row; the later rows' category cells are empty): reservations and
  committed discounts are "contact us", unpriced. A second category label is a ParseError (its rows could not be
  labelled honestly). The CPU row ($0.015/hr) is not a GPU and is skipped; storage prices sit outside the grid.
- Labels say SXM (interconnect sxm) but no memory: "H100 SXM" does not resolve (the H100 SXM5 comes in 64, 80,
  94 and 96 GB) and is kept with gpu_id NULL, never guessed. The page names no region or stock.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://tensorpool.dev/pricing"
GRID_CLASS = "grid-cols-[200px_200px_1fr_1fr_1fr]"
HIGHLIGHT_CLASS = "bg-[#B8E7F5]"
COLUMNS = 5
ON_DEMAND = "ON-DEMAND"
NOT_OFFERED = "N/A"
CPU_LABEL = "CPU"
_PRICE = re.compile(r"^\$(\d+(?:\.\d+)?)/hr$")


def _classes(node: LexborNode) -> list[str]:
    return (node.attributes.get("class") or "").split()


class TensorPool(PricingPage):
    id = "tensorpool"
    provider = "tensorpool"
    description = "TensorPool on-demand GPU prices from its pricing page's comparison grid (USD per GPU-hour)"
    pricing_types = ("on_demand",)
    hosts = ("tensorpool.dev", "www.tensorpool.dev")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"b200-180gb", "h200-sxm-141gb"}), min_offers=4)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        grids = [node for node in LexborHTMLParser(html).css("div") if GRID_CLASS in _classes(node)]
        if len(grids) != 1:
            raise ParseError(f"{self.id}: {len(grids)} comparison grids ({GRID_CLASS}) on the page (need 1)")
        cells = [child for child in grids[0].iter() if child.tag == "div"]
        if len(cells) < 2 * COLUMNS or len(cells) % COLUMNS:
            raise ParseError(f"{self.id}: the grid holds {len(cells)} cells, not a header and rows of {COLUMNS}")
        rows = [cells[at:at + COLUMNS] for at in range(0, len(cells), COLUMNS)]
        header = [node_text(cell, " ") for cell in rows[0]]
        if header[:2] != ["Category", "GPU Type"] or header.count("TensorPool") != 1:
            raise ParseError(f"{self.id}: grid header {header} is not Category | GPU Type | ... | TensorPool | ...")
        column = header.index("TensorPool")
        for number, row in enumerate(rows):
            painted = [at for at, cell in enumerate(row) if HIGHLIGHT_CLASS in _classes(cell)]
            if painted != [column]:
                raise ParseError(f"{self.id}: grid row {number} highlights columns {painted}, not TensorPool's "
                                 f"({column}): the column can no longer be told from the competitors'")
        offers = []
        seen = set()
        for number, row in enumerate(rows[1:], start=1):
            category, label, price_cell = node_text(row[0], " "), node_text(row[1], " "), node_text(row[column], " ")
            if category != (ON_DEMAND if number == 1 else ""):
                raise ParseError(f"{self.id}: grid row {number} category {category!r}: only one ON-DEMAND section "
                                 "is known")
            if not label or label in seen:
                raise ParseError(f"{self.id}: grid row {number} GPU type {label!r} is empty or repeated")
            seen.add(label)
            if price_cell == NOT_OFFERED:
                continue
            match = _PRICE.match(price_cell)
            if not match:
                raise ParseError(f"{self.id}: {label!r} TensorPool price {price_cell!r} is not '$D/hr' or N/A")
            price = money(match.group(1), f"{label} price", self.id)
            if price is None or price <= 0:
                raise ParseError(f"{self.id}: {label!r} price {price_cell!r} is not positive")
            if label == CPU_LABEL:
                continue
            offers.append(self._offer(label, price, index))
        if not offers:
            raise ParseError(f"{self.id}: the grid's TensorPool column holds no GPU price")
        return offers

    def _offer(self, label: str, price: Decimal, index: int) -> Offer:
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=label, title=f"{label} (on demand)",
            raw_gpu_name=label, gpu_id=resolve_gpu_id(label, self.id), gpu_count=Fraction(1),
            pricing_type="on_demand", price=price, currency="USD", price_unit="gpu_hour", instance_type=label,
            url=PRICING_URL, document_index=index, interconnect=interconnect_of(label),
        )
