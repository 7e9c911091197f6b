"""Nebius public price list (no key): on-demand and preemptible price of each GPU, per GPU-hour.

Facts (an excerpt of the page as getcomputable/gpu-index saved it on 2026-08-22, its nebius collector and tests;
tests/fixtures/nebius/):
- `GET https://nebius.com/prices` -> a server-rendered page whose price tables travel as JSON escaped one level
  inside a script string (`{\\"type\\":\\"highlight-table-block\\",\\"title\\":\\"NVIDIA GPU Instances\\",...,
  \\"table\\":{\\"content\\":[[header], [row], ...],\\"customColumnWidth\\":[...]}}`), not as HTML tables. Each
  block is read whole: the escapes are decoded up to the end of the enclosing string and the block is parsed as JSON.
- The GPU table is the block whose header row names "<tier>, GPU-hour" columns: on 2026-08-22
  ["Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour"]. Prices are USD per GPU-HOUR (vCPUs
  and RAM are each GPU's share), one offer per GPU and tier, gpu_count 1. "Preemptible" is spot. A "..., GPU-hour"
  column of another tier (a commitment, say) is a ParseError: its term is not known.
- The other blocks ("CPU-only instances" priced per hour, "Storage", "Other services") have other headers and are
  never read; a page with no GPU table (changed shape) is a ParseError, never zero offers.
- Cells: "$7.85"; "from $1.82" for the L40S rows, whose size varies (vCPUs "16-192"): the price of the smallest
  size, kept with "from" in the title; "––" or "[Contact us](#ai-contact-form)" (GB300/GB200 NVL72): no price. Any
  other figure is a ParseError, never a guess.
- The names state no GPU memory ("NVIDIA HGX H100"): "HGX" is NVIDIA's SXM baseboard, read as "H100 SXM"
  (interconnect sxm). A model sold in several memory sizes then stays unresolved rather than guessed.
- The page names no region and no availability: region and in_stock are left empty.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import gpu_raw_name, interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money

PRICES_URL = "https://nebius.com/prices"
BLOCK_MARKERS = ('{\\"type\\":\\"highlight-table-block\\"', '{"type":"highlight-table-block"')
GPU_HOUR = ", GPU-hour"
TIERS = {"On-demand": "on_demand", "Preemptible": "spot"}
_PRICE = re.compile(r"^(from )?\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?$")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def unescape_string(text: str, start: int) -> str:
    """The JSON string body that starts at `start`, decoded up to its closing quote (or the end of the text)."""
    out, position = [], start
    while position < len(text):
        character = text[position]
        if character == '"':
            break
        if character == "\\" and position + 1 < len(text):
            code = text[position + 1]
            if code == "u":
                out.append(chr(int(text[position + 2:position + 6], 16)))
                position += 6
                continue
            out.append(_ESCAPES.get(code, code))
            position += 2
            continue
        out.append(character)
        position += 1
    return "".join(out)


def table_blocks(text: str, source_id: str) -> list[dict]:
    """Every `highlight-table-block` object of the page, escaped (inside a script string) or plain."""
    blocks = []
    decoder = json.JSONDecoder()
    for marker in BLOCK_MARKERS:
        start = text.find(marker)
        while start != -1:
            try:
                plain = unescape_string(text, start) if marker.startswith('{\\"') else text[start:]
                block, _end = decoder.raw_decode(plain)
            except (json.JSONDecodeError, ValueError) as error:
                raise ParseError(f"{source_id}: a price table block is not JSON ({error})") from None
            blocks.append(block)
            start = text.find(marker, start + len(marker))
    return blocks


class Nebius(PricingPage):
    id = "nebius"
    provider = "nebius"
    description = "Nebius public price list: GPU instances (USD per GPU-hour)"
    pricing_types = ("on_demand", "spot")
    hosts = ("nebius.com", "www.nebius.com")
    page_url = PRICES_URL
    status = (
        "parser tested on an excerpt of the real page saved by getcomputable/gpu-index on 2026-08-22 (its escaped "
        "price tables); no live call made"
    )
    expectations = Expectations(frozenset({"h200-sxm-141gb", "b200-180gb", "l40s-48gb"}), min_offers=7)
    offline = gpu_index_page_copy(PRICES_URL)

    def parse_page(self, text: str, index: int) -> list[Offer]:
        tables = []
        for block in table_blocks(text, self.id):
            table = block.get("table") if isinstance(block, dict) else None
            content = table.get("content") if isinstance(table, dict) else None
            if not isinstance(content, list) or not content or not isinstance(content[0], list) or not content[0]:
                raise ParseError(f"{self.id}: a price table block has no table.content rows")
            if any(str(column).endswith(GPU_HOUR) for column in content[0]):
                tables.append((str(block.get("title") or ""), content))
        if not tables:
            raise ParseError(f"{self.id}: no price table with '{GPU_HOUR}' columns: page changed")
        offers = []
        for title, content in tables:
            offers.extend(self._table(title, content, index))
        if not offers:
            raise ParseError(f"{self.id}: the GPU price tables hold no price: page changed")
        return offers

    def _table(self, title: str, content: list, index: int) -> list[Offer]:
        header = [str(column) for column in content[0]]
        if header[0] != "Item":
            raise ParseError(f"{self.id}: table {title!r} starts with {header[0]!r}, not 'Item'")
        tiers = {}
        for position, column in enumerate(header):
            if column.endswith(GPU_HOUR):
                tier = column.removesuffix(GPU_HOUR)
                if tier not in TIERS:
                    raise ParseError(f"{self.id}: table {title!r} has a price column {column!r} of an unknown tier")
                tiers[position] = TIERS[tier]
        offers = []
        for row in content[1:]:
            if not isinstance(row, list) or len(row) != len(header) or not all(isinstance(c, str) for c in row):
                raise ParseError(f"{self.id}: table {title!r} row {row!r:.200} is not {len(header)} text cells")
            item = row[0].strip()
            if not item:
                raise ParseError(f"{self.id}: table {title!r} has a row without an Item")
            raw_name = gpu_raw_name(item)
            for position, pricing_type in tiers.items():
                cell = row[position].strip()
                if not any(character.isdigit() for character in cell):
                    continue  # "––" or "[Contact us](...)": no published price
                match = _PRICE.match(cell)
                if match is None:
                    raise ParseError(f"{self.id}: {item} {header[position]} {cell!r} is not a dollar price")
                amount = cell.removeprefix("from ").removeprefix("$").replace(",", "")
                price = money(amount, f"{item} {header[position]}", self.id)
                if price is None or price <= 0:
                    continue  # a price of zero is no rental price
                offers.append(Offer(
                    source=self.id, channel="cloud", provider=self.provider, offer_id=item,
                    title=f"{item} (from: smallest size)" if match.group(1) else item, raw_gpu_name=raw_name,
                    gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(1), pricing_type=pricing_type,
                    price=price, currency="USD", price_unit="gpu_hour", instance_type=item,
                    interconnect=interconnect_of(raw_name), document_index=index,
                ))
        return offers
