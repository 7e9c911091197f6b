"""Together AI GPU Clusters (public pricing page, no key): the on-demand price of each GPU, per GPU-hour.

Facts (gpu-index's real capture of www.together.ai/pricing, 2026-08-22, trimmed by that project to the Dedicated
Inference -> Sandbox sections, and its together collector notes; recordings/together-gpus/):
- `GET https://www.together.ai/pricing`: a server-rendered (Webflow) HTML page. Its sections are accordions
  `<div class="position-relative">` that each open with an empty anchor `<div id="{name}" class="section-anchor">`
  and an `<h2>` title. The GPU rental prices sit in the "GPU Clusters" section only (anchor `gpu-clusters`): the
  section element is the anchor's parent, and it must hold that one anchor and that one title.
- Lookalikes that are never read: the "Dedicated Inference" section just before it has a near-identical table
  (`NVIDIA HGX B200` $8.99, same `is-right-border` price cell; single-tenant inference deployments, not a GPU
  rental) and the per-token model price tables elsewhere on the page. Inside "GPU Clusters", a hidden
  (`<div class="hide">`) Hardware | Hourly table repeats the on-demand prices byte for byte: only the one visible
  table is read, else every price would count twice.
- The visible table is headed "On-demand hourly rates and reserved capacity" and says "All prices are per GPU per
  hour." (checked: another unit is a ParseError). Header: Hardware | ON-Demand (Pay as you go) | Reserved over four
  columns "7-30 days", "31-90 days", "91-180 days", "181+ days"; the caption sequence is pinned, since which price
  is which rides on column order.
- One row per hardware label ("NVIDIA HGX H100"); the ON-Demand cell is the second cell (`is-right-border`).
  "$D.DD" (the page prints some with a leading space, " $3.45") is USD per GPU-hour: gpu_count 1, price_unit
  gpu_hour. An em-dash (GB200/GB300 NVL72, HGX B300 on 2026-08-22) or "Contact us" is no published price, never a
  zero; any other figure is a ParseError (a currency or format change is never guessed into USD).
- The reserved prices are short terms, per GPU-hour like the on-demand ones: "7-30 days", "31-90 days", "91-180
  days" are loaded as pricing type `reserved` with term_months the tier's longest reservation in whole months (30
  days -> 1, 90 -> 3, 180 -> 6: the rate of a reservation of up to that long; the tier stays in the title and the
  offer id); "181+ days" is "Contact us" (no price). The row's cells must cover exactly the four reserved columns
  (a "Contact us" cell spans all four for unpriced chips), else ParseError.
- The labels state no GPU memory. "HGX" is NVIDIA's SXM baseboard: "NVIDIA HGX H100" is read as "H100 SXM"
  (interconnect sxm), as the other HGX price pages here; a model sold in several memory sizes (H100) then stays
  unresolved rather than guessed. NVL72 rows would be interconnect nvlink. The page says nothing of the network
  between nodes (no InfiniBand), any region or stock: cluster_network, region and in_stock stay empty.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import gpu_raw_name, interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://www.together.ai/pricing"
SECTION_ANCHOR = "gpu-clusters"
SECTION_TITLE = "GPU Clusters"
UNIT_NOTE = "All prices are per GPU per hour."
RESERVED_TERMS = ("7-30 days", "31-90 days", "91-180 days", "181+ days")
# a reserved tier -> its longest reservation in whole months (term_months); 181+ days has no published price
TIER_MONTHS = {"7-30 days": 1, "31-90 days": 3, "91-180 days": 6}
HEADER = ("Hardware", "ON-Demand", "Reserved", "Pay as you go", *RESERVED_TERMS)
EM_DASH = "\u2014"
_PRICE = re.compile(r"^\$(\d+\.\d{2})$")


def _hidden(node: LexborNode) -> bool:
    """Whether the node sits inside an element of class `hide` (not shown on the page)."""
    parent = node.parent
    while parent is not None:
        if "hide" in (parent.attributes.get("class") or "").split():
            return True
        parent = parent.parent
    return False


class TogetherGpus(PricingPage):
    id = "together-gpus"
    provider = "together"
    description = ("Together AI GPU Clusters from the public pricing page (USD per GPU-hour, on-demand and reserved "
                   "1-, 3- and 6-month tiers)")
    pricing_types = ("on_demand", "reserved")
    parser_version = 2  # 2: the reserved tiers (7-30, 31-90, 91-180 days) loaded as `reserved`
    hosts = ("www.together.ai", "together.ai")
    page_url = PRICING_URL
    status = (
        "parser tested on gpu-index's real capture of the pricing page (2026-08-22, trimmed by that project to the "
        "GPU sections); no live call made"
    )
    expectations = Expectations(frozenset({"h200-sxm-141gb", "b200-180gb"}), min_offers=3)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        section = self._section(LexborHTMLParser(html))
        if UNIT_NOTE not in [node_text(node) for node in section.css("p")]:
            raise ParseError(f"{self.id}: the GPU Clusters section no longer says {UNIT_NOTE!r}: unit unknown")
        tables = [table for table in section.css("table") if not _hidden(table)]
        if len(tables) != 1:
            raise ParseError(f"{self.id}: {len(tables)} visible tables in the GPU Clusters section (need 1)")
        table = tables[0]
        header = tuple(node_text(th) for th in table.css("thead th"))
        if header != HEADER:
            raise ParseError(f"{self.id}: GPU Clusters table header {header} is not {HEADER}: columns changed")
        rows = table.css("tbody tr")
        if not rows:
            raise ParseError(f"{self.id}: the GPU Clusters table has no rows")
        offers = [offer for row in rows for offer in self._row(row, index)]
        if not offers:
            raise ParseError(f"{self.id}: {len(rows)} GPU Clusters rows but no price in them")
        return offers

    def _section(self, tree: LexborHTMLParser) -> LexborNode:
        anchors = tree.css(f"#{SECTION_ANCHOR}")
        if len(anchors) != 1 or anchors[0].parent is None:
            raise ParseError(f"{self.id}: {len(anchors)} id={SECTION_ANCHOR} anchors on the page (need 1): reshaped")
        section = anchors[0].parent
        titles = [node_text(h2) for h2 in section.css("h2")]
        if titles != [SECTION_TITLE] or len(section.css("div.section-anchor")) != 1:
            raise ParseError(f"{self.id}: the {SECTION_ANCHOR} anchor's section holds titles {titles} and "
                             f"{len(section.css('div.section-anchor'))} anchors (need only {SECTION_TITLE!r})")
        return section

    def _row(self, row: LexborNode, index: int) -> list[Offer]:
        cells = row.css("td")
        label = node_text(cells[0]) if cells else ""
        if len(cells) < 3 or not label:
            raise ParseError(f"{self.id}: GPU Clusters row {node_text(row)[:80]!r} is not label, on-demand, reserved")
        if "is-right-border" not in (cells[1].attributes.get("class") or "").split():
            raise ParseError(f"{self.id}: row {label!r}: the on-demand cell lost its is-right-border marker")
        covered = 0
        for cell in cells[2:]:
            span = cell.attributes.get("colspan") or "1"
            if not span.isdigit():
                raise ParseError(f"{self.id}: row {label!r}: reserved cell colspan {span!r}")
            covered += int(span)
        if covered != len(RESERVED_TERMS):
            raise ParseError(f"{self.id}: row {label!r}: reserved cells cover {covered} columns, not "
                             f"{len(RESERVED_TERMS)}: table reshaped")
        prices = [("on_demand", None, "on-demand", self._price(node_text(cells[1]), f"row {label!r} on-demand"))]
        if covered == len(cells) - 2:  # one cell per tier (a spanning "Contact us" prices none)
            prices += [("reserved", TIER_MONTHS.get(tier), tier, self._price(node_text(cell), f"row {label!r} {tier}"))
                       for tier, cell in zip(RESERVED_TERMS, cells[2:], strict=True)]
        raw_name = gpu_raw_name(label)
        offers = []
        for pricing_type, months, tier, price in prices:
            if price is None:
                continue
            if months is None and pricing_type == "reserved":
                raise ParseError(f"{self.id}: row {label!r}: a price {price} in the {tier!r} tier, which had none")
            offers.append(Offer(
                source=self.id, channel="cloud", provider=self.provider,
                offer_id=f"{label}|{pricing_type}" + (f"|{tier}" if months else ""),
                title=f"{label} (GPU Clusters, {tier})", raw_gpu_name=raw_name,
                gpu_id=resolve_gpu_id(raw_name, self.provider), gpu_count=Fraction(1), pricing_type=pricing_type,
                term_months=months, price=price, currency="USD", price_unit="gpu_hour", instance_type=label,
                url=PRICING_URL, interconnect=interconnect_of(raw_name), document_index=index,
            ))
        return offers

    def _price(self, text: str, where: str) -> Decimal | None:
        """"$D.DD" -> a Decimal; an em-dash or digit-free text ("Contact us") -> None; anything else ParseError."""
        match = _PRICE.match(text)
        if match is None:
            if text == EM_DASH or not any(character.isdigit() for character in text):
                return None
            raise ParseError(f"{self.id}: {where}: {text!r} is not a '$D.DD' price")
        price = money(match.group(1), where, self.id)
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: {where}: price {text!r} is not positive")
        return price
