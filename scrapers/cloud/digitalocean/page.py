"""DigitalOcean GPU Droplets (public docs pricing page, no key): the on-demand and spot hourly price of every GPU
Droplet configuration the page lists.

Facts (gpu-index's real capture of docs.digitalocean.com/products/droplets/details/pricing/, 2026-08-22, and that
project's collector notes; recordings/digitalocean-page/):
- `GET https://docs.digitalocean.com/products/droplets/details/pricing/`: a server-rendered (Hugo) docs page, the
  prices in the HTML. gpu-index read it rather than the marketing page (www.digitalocean.com/pricing/gpu-droplets),
  which mixes "12 Month Reserved Price*" teasers into its on-demand figures; it saw the host refuse python-urllib's
  default User-Agent (403).
- The page's sections are `<h2 id=...>` headings. Only two are read, each of which must appear once:
  `on-demand-gpu-droplet-pricing` -> on_demand and `spot-gpu-droplet-pricing` -> spot (public preview: "may change
  daily based on available idle GPU capacity"). A section runs to the next h1-h3 heading and must hold exactly one
  table with the columns GPU | Price. Never read: the CPU Droplet section (a link to the CPU pricing page, no
  table), the contract section (its GPU | Price table says "Per contract after contacting sales", no figure), the
  bandwidth prose ($0.01 per GiB) and the billing prose ($0.01 minimum charge).
- Each row is `<td>{label}</td><td>$D.DD per hour</td>`: USD per Droplet-hour. A label ending "(8x)" is an 8-GPU
  Droplet (H200 8x $35.76 = 8 x $4.47); a label without a count is a one-GPU Droplet (no count on the page; each
  of its (8x) rows is 8 times that price). price_unit instance_hour, gpu_count that count. A "(Nx)" that is not at
  the label's end is a ParseError (its count is unsure), as is a priced cell not "$D[.DD] per hour" (another
  currency or unit); a cell with no figure at all is no price and is skipped; a section with no price is a
  ParseError.
- Labels are kept as written, the count taken off, as the raw GPU name: "NVIDIA L40s" (lowercase s); "NVIDIA H100"
  names no form factor (unresolved, never guessed SXM); "NVIDIA RTX 4000" / "NVIDIA RTX 6000" name no generation
  on this page (unresolved, never guessed Ada); "NVIDIA B300, air-cooled" and "..., liquid-cooled" are two offers at
  the same price. Some GPUs are spot-only (MI350X, MI355X, B300) and some on-demand-only (MI300X, MI325X, H100,
  H200, L40s, RTX): each section's rows stand alone.
- The page names no region, stock, interconnect or cluster network.
"""

from __future__ import annotations

import re
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://docs.digitalocean.com/products/droplets/details/pricing/"
# section heading id -> pricing type; every other section (CPU, contract, bandwidth) is never read
SECTIONS = {"on-demand-gpu-droplet-pricing": "on_demand", "spot-gpu-droplet-pricing": "spot"}
HEADER = ["GPU", "Price"]
_HEADINGS = {"h1", "h2", "h3"}
_PRICE = re.compile(r"^\$(\d[\d,]*(?:\.\d{2})?) per hour$")
_COUNT = re.compile(r"\((\d+)x\)")
_LABEL = re.compile(r"^(.+?) \((\d+)x\)$")
_DIGIT = re.compile(r"\d")


def split_label(label: str) -> tuple[str, int] | None:
    """"NVIDIA H200 (8x)" -> ("NVIDIA H200", 8); "AMD MI300X" -> ("AMD MI300X", 1); None when a "(Nx)" is not at
    the label's end (its count is unsure)."""
    match = _LABEL.match(label)
    if match:
        name, count = match.group(1), int(match.group(2))
    else:
        name, count = label, 1
    return None if _COUNT.search(name) else (name, count)


class DigitalOceanPage(PricingPage):
    id = "digitalocean-page"
    provider = "digitalocean"
    description = "DigitalOcean GPU Droplets from the public docs pricing page (USD per Droplet-hour, on-demand/spot)"
    pricing_types = ("on_demand", "spot")
    hosts = ("docs.digitalocean.com",)
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the docs pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"mi300x-192gb", "l40s-48gb", "h200-sxm-141gb"}), min_offers=10)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        tree = LexborHTMLParser(html)
        offers = []
        for anchor, pricing_type in SECTIONS.items():
            headings = tree.css(f'h2[id="{anchor}"]')
            if len(headings) != 1:
                raise ParseError(f"{self.id}: {len(headings)} <h2 id={anchor}> headings (need 1): page reshaped")
            section = self._section(headings[0], anchor, pricing_type, index)
            if not section:
                raise ParseError(f"{self.id}: section {anchor!r} holds no price")
            offers.extend(section)
        return offers

    def _section(self, heading: LexborNode, anchor: str, pricing_type: str, index: int) -> list[Offer]:
        tables = []
        node = heading.next
        while node is not None and node.tag not in _HEADINGS:
            if node.tag == "table":
                tables.append(node)
            elif node.tag != "-text":
                tables.extend(node.css("table"))
            node = node.next
        if node is None:
            raise ParseError(f"{self.id}: section {anchor!r} has no heading after it: its end is unknown")
        if len(tables) != 1:
            raise ParseError(f"{self.id}: section {anchor!r} holds {len(tables)} tables (need 1)")
        header = [node_text(th) for th in tables[0].css("th")]
        if header != HEADER:
            raise ParseError(f"{self.id}: section {anchor!r} has columns {header}, not {HEADER}")
        rows = [row for row in tables[0].css("tr") if row.css_first("td") is not None]
        offers = []
        for row in rows:
            offer = self._row(row, anchor, pricing_type, index)
            if offer is not None:
                offers.append(offer)
        return offers

    def _row(self, row: LexborNode, anchor: str, pricing_type: str, index: int) -> Offer | None:
        cells = [node_text(td) for td in row.css("td")]
        if len(cells) != 2:
            raise ParseError(f"{self.id}: section {anchor!r}: a row with {len(cells)} cells (need GPU | Price)")
        label, price_text = cells
        where = f"section {anchor!r} row {label!r}"
        if not label:
            raise ParseError(f"{self.id}: {where}: no GPU label")
        match = _PRICE.match(price_text)
        if not match:
            if _DIGIT.search(price_text):
                raise ParseError(f"{self.id}: {where}: price {price_text!r} is not '$D.DD per hour'")
            return None  # no figure ("contact sales"): not a price
        parts = split_label(label)
        if parts is None:
            raise ParseError(f"{self.id}: {where}: a '(Nx)' GPU count that does not end the label")
        name, count = parts
        if count < 1:
            raise ParseError(f"{self.id}: {where}: GPU count {count}")
        price = money(match.group(1).replace(",", ""), where, self.id)
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: {where}: price {price_text!r} is not positive")
        section = "spot" if pricing_type == "spot" else "on-demand"
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=f"{label}|{pricing_type}",
            title=f"{label} GPU Droplet, {section} ({price_text})", raw_gpu_name=name,
            gpu_id=resolve_gpu_id(name, self.provider), gpu_count=Fraction(count), pricing_type=pricing_type,
            price=price, currency="USD", price_unit="instance_hour", instance_type=label, url=PRICING_URL,
            document_index=index,
        )
