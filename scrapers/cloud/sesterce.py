"""Sesterce GPU cloud (public homepage, no key): the lowest on-demand price per GPU-hour of each GPU model, from the
live-offers table on www.sesterce.com.

Facts (gpu-index's real capture of the homepage, 2026-08-22, trimmed there to the CLI section, the pricing section
and part of the page's flight payload; that project's collector notes; recordings/sesterce/):
- `GET https://www.sesterce.com/`: a Next.js page, re-rendered every ~5 minutes ("CACHED 5M"). Its only public
  price list is the `<section id="pricing">` table of live offers from the cloud.sesterce.com console
  (cloud.sesterce.com/pricing is a console route; no public pricing API is documented). Columns:
  Model | From / GPU / hr | Available now | Listed GPUs | Live regions | Action.
- The table's footer reads "LIVE OFFERS · CLOUD.SESTERCE.COM · USD · ON-DEMAND · CACHED 5M": the currency and the
  pricing type. Without that footer (another currency, another tier) the page is a ParseError, never assumed USD.
  Price cells read `$D.DD`; anything else is a ParseError.
- "From / GPU / hr" is a FLOOR: the lowest price across the model's configurations and regions, per GPU-hour,
  not one specific instance (gpu_count 1, price_unit gpu_hour; the title says "from-price").
- Each model cell has a vendor line naming the form factor ("NVIDIA Hopper · SXM5"). H100 ("SXM5 / PCIe") and
  A100 ("SXM4 / PCIe") put BOTH form factors under one price: their raw name is the bare model ("H100", "A100"),
  never given SXM or PCIe, and no interconnect. A single form factor is kept in the name without its generation
  ("H200 SXM", which the GPU names resolve; "SXM5" would not) and sets interconnect sxm or pcie.
- Not read: the scrolling ticker above the table (every price twice, bare `$8.48` text), the page's flight payload
  (the whole table again, `$$8.48`), and the CLI section's static capacity strip ("$1.66 / gpu / hr", marketing
  figures that disagree with the live table). Only rows of the table in the pricing section are read.
- "Available now" is "N GPUs" or "Limited"; N > 0 sets in_stock, "Limited" leaves it unknown. No region: the
  price is the floor over all of them.
"""

from __future__ import annotations

import re
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

HOMEPAGE_URL = "https://www.sesterce.com/"
HEADER = ("Model", "From / GPU / hr", "Available now", "Listed GPUs", "Live regions", "Action")
FOOTER = "LIVE OFFERS \u00b7 CLOUD.SESTERCE.COM \u00b7 USD \u00b7 ON-DEMAND"
_PRICE = re.compile(r"^\$(\d+\.\d{2})$")
_AVAILABLE = re.compile(r"^(\d+) GPUs$")
_FORM_FACTOR = re.compile(r"^(SXM|PCIe)\d*$")


def form_factors(vendor: str) -> list[str]:
    """ "NVIDIA Hopper · SXM5 / PCIe" -> ["SXM", "PCIe"]; a line naming none -> []."""
    tail = vendor.rsplit("\u00b7", 1)[-1] if "\u00b7" in vendor else ""
    found = [_FORM_FACTOR.match(part.strip()) for part in tail.split("/")]
    return [match.group(1) for match in found if match]


class Sesterce(PricingPage):
    id = "sesterce"
    provider = "sesterce"
    description = "Sesterce lowest on-demand price of each GPU model from its homepage's live offers (USD/GPU-hour)"
    pricing_types = ("on_demand",)
    hosts = ("www.sesterce.com", "sesterce.com")
    page_url = HOMEPAGE_URL
    status = "parser tested on gpu-index's real capture of the homepage (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"h200-sxm-141gb", "l40s-48gb"}), min_offers=4)
    offline = gpu_index_page_copy(HOMEPAGE_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        sections = LexborHTMLParser(html).css("section#pricing")
        if len(sections) != 1:
            raise ParseError(f"{self.id}: {len(sections)} <section id=pricing> on the page (need 1): reshaped")
        tables = [table for table in sections[0].css("table")
                  if tuple(node_text(th) for th in table.css("thead th")) == HEADER]
        if len(tables) != 1:
            raise ParseError(f"{self.id}: {len(tables)} tables headed {' | '.join(HEADER)} in the pricing section")
        if FOOTER not in node_text(sections[0]):
            raise ParseError(f"{self.id}: the footer {FOOTER!r} is gone: currency and pricing type unknown")
        offers = []
        for row in tables[0].css("tbody tr"):
            offer = self._row(row, index)
            if offer is not None:
                offers.append(offer)
        if not offers:
            raise ParseError(f"{self.id}: the live-offers table holds no price")
        return offers

    def _row(self, row: LexborNode, index: int) -> Offer | None:
        models, vendors, prices = row.css("div.bbg-model"), row.css("div.bbg-vendor"), row.css("span.bbg-price")
        cells = row.css("td")
        if len(models) != 1 or len(vendors) > 1 or len(prices) > 1 or len(cells) != len(HEADER) - 1:
            raise ParseError(f"{self.id}: a table row has {len(models)} models, {len(prices)} prices and "
                             f"{len(cells)} cells: reshaped")
        model, vendor = node_text(models[0]), node_text(vendors[0]) if vendors else ""
        if not model:
            raise ParseError(f"{self.id}: a priced row names no model")
        if not prices:
            return None  # no price cell: nothing on offer
        cell = node_text(prices[0])
        match = _PRICE.match(cell)
        if not match:
            raise ParseError(f"{self.id}: {model!r} price {cell!r} is not '$D.DD'")
        price = money(match.group(1), f"{model} price", self.id)
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: {model!r} price {cell!r} is not positive")
        kinds = form_factors(vendor)
        # one price over SXM and PCIe (H100, A100): the bare model, never a form factor
        raw_name = f"{model} {kinds[0]}" if len(kinds) == 1 else model
        available = _AVAILABLE.match(node_text(cells[1]))
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=model,
            title=f"{model} ({vendor}), from-price", raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.id),
            gpu_count=Fraction(1), pricing_type="on_demand", price=price, currency="USD", price_unit="gpu_hour",
            instance_type=model, url=HOMEPAGE_URL, document_index=index,
            in_stock=True if available and int(available.group(1)) > 0 else None,
            interconnect=interconnect_of(raw_name),
        )
