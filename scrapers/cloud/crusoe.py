"""Crusoe Cloud public pricing page (no key): on-demand (and, when printed, spot) price of each GPU, per GPU-hour.

Facts (the page as getcomputable/gpu-index saved it on 2026-08-22, its crusoe collector and tests;
tests/fixtures/crusoe/):
- `GET https://www.crusoe.ai/cloud/pricing` (the bare domain and trailing-slash URLs 301 to it) -> a server-rendered
  Webflow page. The GPU prices sit in the `div.pricing-dd` headed `<h3 class="pricing-col-heading">GPU instances
  pricing</h3>`; its column captions (`div.pricing-heading`) read "GPU model | On-demand | Current spot" and bind
  the two price cells of each row, in that order (the second column is SPOT; reserved capacity is "contact us" prose).
- The same row class (`div[role=listitem].prixing-item`: "prixing" is the site's own spelling) and price-cell class
  (`div.pricing-rich`) are reused by the CPU ($/vCPU-hr), storage, serverless fine-tuning and inference ($ per M
  tokens) tables, and by "Self-Serve Deployments" rows with the same "NVIDIA H100"/"NVIDIA H200" headings priced
  bare ($5.50, a managed endpoint per hour): only the GPU-instances section is read.
- One row per GPU: `h4.pricing-item-heading` ("NVIDIA H100"), two `div.pricing-tag` (memory "80GB"; form factor
  "HGX", "SXM", "PCIe", "NVL72", or empty), two `div.pricing-rich` cells. A price cell reads exactly
  "$4.29/GPU-hr": USD per GPU-HOUR (one offer per GPU, gpu_count 1). A cell without a digit ("Contact sales": GB200,
  B200, MI355X and every "Current spot" cell on 2026-08-22) is no price; any other figure (a new unit, a currency, a
  qualifier after the price) is a ParseError, never a guess.
- The two A100 rows share a heading: the form-factor tag tells them apart (SXM vs PCIe). "HGX" is NVIDIA's SXM
  baseboard: an HGX row is named "<model> SXM <memory>" (interconnect sxm); NVL72 is NVLink (interconnect nvlink).
- The page names no region and no availability: region and in_stock are left empty.
"""

from __future__ import annotations

import re
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import gpu_raw_name, interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://www.crusoe.ai/cloud/pricing"
GPU_SECTION_TITLE = "GPU instances pricing"
COLUMNS = ("GPU model", "On-demand", "Current spot")
PRICING_TYPES = ("on_demand", "spot")  # the two price columns, in order
_PRICE = re.compile(r"^\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?/GPU-hr$")
_MEMORY = re.compile(r"^\d+GB$")


class Crusoe(PricingPage):
    id = "crusoe"
    provider = "crusoe"
    description = "Crusoe Cloud public pricing page: GPU instances (USD per GPU-hour)"
    pricing_types = ("on_demand", "spot")
    hosts = ("www.crusoe.ai", "crusoe.ai")
    page_url = PRICING_URL
    status = (
        "parser tested on the real page saved by getcomputable/gpu-index on 2026-08-22 (GPU section and every "
        "lookalike table below it); no live call made"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "h200-sxm-141gb", "a100-sxm4-80gb"}), min_offers=4)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        tree = LexborHTMLParser(html)
        headings = [node for node in tree.css("h3.pricing-col-heading") if node_text(node, " ") == GPU_SECTION_TITLE]
        if len(headings) != 1:
            raise ParseError(f"{self.id}: {len(headings)} '{GPU_SECTION_TITLE}' headings (need 1): page changed")
        section = headings[0].parent
        while section is not None and "pricing-dd" not in (section.attributes.get("class") or "").split():
            section = section.parent
        if section is None:
            raise ParseError(f"{self.id}: '{GPU_SECTION_TITLE}' is not inside a pricing section: page changed")
        columns = tuple(node_text(node, " ") for node in section.css("div.pricing-heading"))
        if columns != COLUMNS:
            raise ParseError(f"{self.id}: GPU table columns {columns} are not {COLUMNS}: tiers cannot be bound")
        rows = section.css('div[role="listitem"]')
        if not rows:
            raise ParseError(f"{self.id}: the GPU instances table has no rows: page changed")
        offers = []
        for row in rows:
            offers.extend(self._row(row, index))
        if not offers:
            raise ParseError(f"{self.id}: no GPU row carries a price: page changed")
        return offers

    def _row(self, row, index: int) -> list[Offer]:
        headings = [node_text(node, " ") for node in row.css("h4.pricing-item-heading")]
        if len(headings) != 1:
            raise ParseError(f"{self.id}: a GPU row with {len(headings)} headings {headings}")
        heading = headings[0]
        tags = [node_text(node, " ") for node in row.css("div.pricing-tag")]
        if len(tags) != 2 or not _MEMORY.match(tags[0]):
            raise ParseError(f"{self.id}: {heading} tags {tags} are not (memory, form factor)")
        memory, form_factor = tags
        cells = row.css("div.pricing-rich")
        if len(cells) != len(PRICING_TYPES):
            raise ParseError(f"{self.id}: {heading} has {len(cells)} price cells, not {len(PRICING_TYPES)}")
        raw_name = gpu_raw_name(f"{heading} {form_factor}", int(memory.removesuffix("GB")))
        label = " ".join(part for part in (heading, memory, form_factor) if part)
        offers = []
        for cell, pricing_type in zip(cells, PRICING_TYPES, strict=True):
            text = node_text(cell, " ")
            if not any(character.isdigit() for character in text):
                continue  # "Contact sales": no published price
            match = _PRICE.match(text)
            if match is None:
                raise ParseError(f"{self.id}: {label} {pricing_type} cell {text!r} is not '$X.XX/GPU-hr'")
            price = money(text[1:].removesuffix("/GPU-hr").replace(",", ""), f"{label} {pricing_type}", self.id)
            if price is None or price <= 0:
                raise ParseError(f"{self.id}: {label} {pricing_type} cell {text!r} is not a price")
            offers.append(Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=label, title=label,
                raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(1),
                pricing_type=pricing_type, price=price, currency="USD", price_unit="gpu_hour", instance_type=label,
                interconnect=interconnect_of(raw_name), document_index=index,
            ))
        return offers
