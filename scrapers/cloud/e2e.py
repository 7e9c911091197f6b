"""E2E Networks GPU instances (public pricing page, no key): on-demand per-GPU-hour prices and the annual
commitment price of every NVIDIA GPU row.

Facts (gpu-index's real capture of www.e2enetworks.com/pricing?region=us, 2026-08-22, and that project's collector
notes; recordings/e2e/):
- `GET https://www.e2enetworks.com/pricing?region=us`: a server-rendered Next.js page. The prices sit in ONE
  `<table>` inside `<section id="gpu-pricing">` whose header row is exactly
  Item | vRAM | vCPUs | RAM, GB | Hourly/On-Demand | Monthly | Annually; that header is both the table fence and
  the column-order pin (no other table on the page has it; none, or two, is a ParseError).
- Each row: a GPU label ("NVIDIA B200"), three integer spec cells (vRAM GB, vCPUs, RAM GB), then three price
  cells. The two A100 rows share the label "NVIDIA A100" and differ only by the vRAM cell (80 vs 40): the raw
  GPU name is the label without "NVIDIA" plus the vRAM ("A100 80GB"), which keeps them apart. No row says SXM or
  PCIe, so H100/A100 resolve to their -unstated ids and interconnect stays unset.
- Money is exact and carries its currency in the symbol: `$` -> USD, the rupee sign -> INR (E2E's INR view prints
  it); any other money print is a ParseError, never assumed USD. A cell with no digits (a "contact us" sibling)
  is no price and is skipped.
- Unit: the footnote right under the table says "Prices are per GPU-hour". A 1x/2x/4x/8x multiplier control
  sits above the SAME table (the capture shows the 1x view), and a multiplied default view would look the same,
  so the per-GPU unit is claimed only while that footnote is in the section: without it the unit is unknown and
  the page is a ParseError. gpu_count is 1 (one GPU per printed price).
- Hourly/On-Demand -> on_demand, price_unit gpu_hour. Annually -> reserved_1y (term_months 12), the total for one
  GPU for a year: price_unit instance_term (B200 $55,089.45 / 8760 h = $6.29/GPU-hour vs $6.99 on demand). An
  annual print whose hourly rate is not below the on-demand rate, or less than a quarter of it, means the columns
  moved: ParseError. Monthly (a one-month commitment) has no pricing type here and is not loaded.
- Not read: the page's JSON-LD OfferCatalog and the escaped flight-payload copy of it (<script> text; INR list
  prices of a different price list: 671 INR/hr for the B200 vs $6.99), the hero "B200 from $6.99/hr" banner.
- The page names no region or stock (E2E's data centres are in India; the region is left empty).
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://www.e2enetworks.com/pricing?region=us"
HEADER = ("Item", "vRAM", "vCPUs", "RAM, GB", "Hourly/On-Demand", "Monthly", "Annually")
PER_GPU_FOOTNOTE = "Prices are per GPU-hour"
HOURS_PER_YEAR = 8760
CURRENCIES = {"$": "USD", "\u20b9": "INR"}
_MONEY = re.compile("^([$\u20b9])\\s*([0-9][0-9,]*(?:\\.[0-9]+)?)$")
_INTEGER = re.compile(r"^\d+$")
_MEMORY = re.compile(r"\b\d+\s*GB\b", re.IGNORECASE)


def raw_gpu_name(label: str, vram: str) -> str:
    """"NVIDIA A100" + vRAM "80" -> "A100 80GB"; a label stating its memory is kept as it is (without NVIDIA)."""
    name = label.removeprefix("NVIDIA ").strip()
    return name if _MEMORY.search(name) else f"{name} {vram}GB"


class E2ENetworks(PricingPage):
    id = "e2e"
    provider = "e2e"
    description = "E2E Networks GPU instances from the public pricing page (per GPU-hour on demand, 1-year total)"
    pricing_types = ("on_demand", "reserved_1y")
    hosts = ("www.e2enetworks.com", "e2enetworks.com")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the US pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"h200-sxm-141gb", "a100-80gb-unstated", "l40s-48gb"}), min_offers=16)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        tables = [table for table in LexborHTMLParser(html).css("table")
                  if tuple(node_text(th) for th in table.css("thead th")) == HEADER]
        if len(tables) != 1:
            raise ParseError(f"{self.id}: {len(tables)} tables with the header {' | '.join(HEADER)} (need 1)")
        table = tables[0]
        section = table.parent
        while section is not None and section.tag != "section":
            section = section.parent
        if section is None or PER_GPU_FOOTNOTE not in node_text(section):
            raise ParseError(f"{self.id}: the footnote {PER_GPU_FOOTNOTE!r} is gone from the price table's section: "
                             "unknown unit (the table has a 1x/2x/4x/8x multiplier)")
        rows = table.css("tbody tr")
        offers = []
        for row in rows:
            offers.extend(self._row(row, index))
        if not offers:
            raise ParseError(f"{self.id}: the price table has {len(rows)} rows but no price in them")
        return offers

    def _row(self, row: LexborNode, index: int) -> list[Offer]:
        cells = [node_text(cell) for cell in row.css("td")]
        if len(cells) != len(HEADER):
            raise ParseError(f"{self.id}: a table row has {len(cells)} cells, not {len(HEADER)}: {cells}")
        label, vram, vcpus, ram, hourly_cell, _monthly, annual_cell = cells
        if not label or not all(_INTEGER.match(spec) for spec in (vram, vcpus, ram)) or _INTEGER.match(label):
            raise ParseError(f"{self.id}: row {cells[:4]} is not 'GPU label, vRAM, vCPUs, RAM' as integers")
        raw_name = raw_gpu_name(label, vram)
        where = f"row {raw_name!r}"
        hourly = self._price(hourly_cell, f"{where} Hourly/On-Demand")
        annual = self._price(annual_cell, f"{where} Annually")
        if hourly and annual and hourly[0] == annual[0]:
            rate = annual[1] / HOURS_PER_YEAR
            if not hourly[1] / 4 < rate < hourly[1]:
                raise ParseError(f"{self.id}: {where}: annual {annual_cell} is not a discount on hourly "
                                 f"{hourly_cell} (columns moved?)")
        prices = [("on_demand", None, "gpu_hour", hourly), ("reserved_1y", 12, "instance_term", annual)]
        instance_type = f"{raw_name} {vcpus} vCPU {ram}GB"
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{instance_type}|{pricing_type}",
                title=f"{label} {vram}GB vRAM, {vcpus} vCPUs, {ram} GB RAM", raw_gpu_name=raw_name,
                gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(1), pricing_type=pricing_type,
                term_months=months, price=price[1], currency=price[0], price_unit=unit, instance_type=instance_type,
                url=PRICING_URL, document_index=index,
            )
            for pricing_type, months, unit, price in prices
            if price is not None
        ]

    def _price(self, cell: str, where: str) -> tuple[str, Decimal] | None:
        """(currency, amount) of a `$1,240.00` / rupee print; None for a cell without a figure; else ParseError."""
        if not any(char.isdigit() for char in cell):
            return None
        match = _MONEY.match(cell)
        if not match:
            raise ParseError(f"{self.id}: {where}: {cell!r} is not a $ or rupee price")
        amount = money(match.group(2).replace(",", ""), where, self.id)
        if amount is None or amount <= 0:
            raise ParseError(f"{self.id}: {where}: price {cell!r} is not positive")
        return CURRENCIES[match.group(1)], amount
