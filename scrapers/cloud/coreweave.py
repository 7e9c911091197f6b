"""CoreWeave public pricing page (no key): on-demand and spot prices of every GPU instance, per region table.

Facts (the page as getcomputable/gpu-index saved it on 2026-08-22, its coreweave collector and tests;
tests/fixtures/coreweave/):
- `GET https://www.coreweave.com/pricing` -> a server-rendered Webflow page. The GPU prices sit in the `<section>`
  headed `<h2>On-demand GPU instances</h2>`: one `div.table-v2` per region, each under a `<strong class="eyebrow">
  REGION: NORTH AMERICA</strong>` heading (NORTH AMERICA and EUROPE on 2026-08-22). The CPU section below reuses
  the same row markup, the same `h3.table-model-name` and a second "REGION: NORTH AMERICA" heading: only the GPU
  section is read.
- One row per instance, `div[role=listitem]`. Its model (`h3.table-model-name`, with `data-product`) is printed
  twice (desktop grid and mobile column); the labelled mobile cells (`div.table-meta-value` + a label div) give
  "GPU Count", "VRAM" (GB per GPU), "vCPUs", "System RAM", "Local Storage (TB)".
- Prices come only from the self-labelled spans `span.instance-price` ("On-Demand Price: <span class=item-value>
  $68.80</span> / Hour") and `span.spot-price` ("Spot Price: ..."): USD per INSTANCE-hour (the header says "Per
  Hour"; 8 x B200 $68.80 = $8.60 per GPU). The desktop grid repeats the figures in unlabelled cells, never read.
  `span.inference-price` ("Inference Single CPU Price", footnote 2: per GPU, CoreWeave inference platform customers
  only) is another product and is never an offer.
- An empty or "N/A" item-value is the page's own "not offered" (its script hides those spans): no offer for that
  tier; a row with neither price (GB300 NVL72, "Contact sales") gives no offer. A price span of another kind or a
  value that is not a plain dollar figure is a ParseError, never a guess.
- GB200/GB300 NVL72 rows print "GPU Count" as "4^1" (footnote 1: an instance is 2 Grace-Blackwell superchips x 2
  GPUs): the leading integer is the count.
- "HGX" is NVIDIA's SXM baseboard: an HGX row is named "<model> SXM <VRAM>GB" (interconnect sxm); NVL72 rows are
  NVLink (interconnect nvlink); rows that name no form factor ("NVIDIA A100", 80 GB) stay unstated, never guessed.
- The host answered the default python User-Agent with 403 (gpu-index): the client sends its own User-Agent.
- The page states no availability: in_stock is left unknown.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import gpu_raw_name, interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://www.coreweave.com/pricing"
GPU_SECTION_TITLE = "On-demand GPU instances"
# labelled price span class -> (pricing type, the label its text starts with)
PRICE_SPANS = {"instance-price": ("on_demand", "On-Demand Price:"), "spot-price": ("spot", "Spot Price:")}
EXCLUDED_SPANS = ("inference-price",)  # per-GPU inference platform price: another product
_NOT_OFFERED = ("", "N/A")
_DOLLARS = re.compile(r"^\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?$")
_COUNT = re.compile(r"^(\d+)(?:\^\d+)?$")  # "8", or "4^1" (a footnote mark)
_REGION = re.compile(r"^REGION:\s*(.+)$")


def _ancestor(node, tag: str):
    while node is not None and node.tag != tag:
        node = node.parent
    return node


def _slug(region: str) -> str:
    return "-".join(region.lower().split())


class CoreWeave(PricingPage):
    id = "coreweave"
    provider = "coreweave"
    description = "CoreWeave public pricing page: GPU instances by region (USD per instance-hour)"
    pricing_types = ("on_demand", "spot")
    hosts = ("www.coreweave.com", "coreweave.com")
    page_url = PRICING_URL
    status = (
        "parser tested on the real page saved by getcomputable/gpu-index on 2026-08-22 (the GPU and CPU sections); "
        "no live call made"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb"}), min_offers=16)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        tree = LexborHTMLParser(html)
        headings = [node for node in tree.css("h2") if node_text(node, " ") == GPU_SECTION_TITLE]
        if len(headings) != 1:
            raise ParseError(f"{self.id}: {len(headings)} '{GPU_SECTION_TITLE}' headings (need 1): page changed")
        section = _ancestor(headings[0], "section")
        tables = section.css("div.table-v2") if section is not None else []
        if not tables:
            raise ParseError(f"{self.id}: no price table under '{GPU_SECTION_TITLE}': page changed")
        offers = []
        for table in tables:
            offers.extend(self._table(table, index))
        if not offers:
            raise ParseError(f"{self.id}: the GPU price tables hold no price: page changed")
        return offers

    def _table(self, table, index: int) -> list[Offer]:
        heading = table.parent.css_first("strong.eyebrow") if table.parent is not None else None
        match = _REGION.match(node_text(heading, " ")) if heading is not None else None
        if match is None:
            raise ParseError(f"{self.id}: a GPU price table without its 'REGION:' heading")
        region = match.group(1)
        header = " | ".join(node_text(cell, " ") for cell in table.css("div.table-header-text"))
        for column in ("GPU Model", "GPU Count", "On-Demand Price (Per Hour)", "Spot Price (Per Hour)"):
            if column not in header:
                raise ParseError(f"{self.id}: REGION {region} table has no '{column}' column ({header})")
        rows = table.css('div[role="listitem"]')
        if not rows:
            raise ParseError(f"{self.id}: REGION {region} table has no rows")
        offers = []
        for row in rows:
            offers.extend(self._row(row, region, index))
        return offers

    def _row(self, row, region: str, index: int) -> list[Offer]:
        models = {(node.attributes.get("data-product") or "", node_text(node, " "))
                  for node in row.css("h3.table-model-name")}
        if len(models) != 1:
            raise ParseError(f"{self.id}: REGION {region} row names {len(models)} models {sorted(models)}")
        product, model = models.pop()
        where = f"REGION {region} {model}"
        cells = {}
        for block in row.css("div.table-meta-text-right"):
            value = block.css_first("div.table-meta-value")
            labels = [node_text(node, " ") for node in block.css("div") if node.attributes.get("class") is None]
            if value is not None and len(labels) == 1:
                cells[labels[0]] = node_text(value, " ")
        count = _COUNT.match(cells.get("GPU Count", ""))
        if count is None or int(count.group(1)) <= 0:
            raise ParseError(f"{self.id}: {where} GPU Count {cells.get('GPU Count')!r} is not a count")
        memory = cells.get("VRAM", "")
        raw_name = gpu_raw_name(model, int(memory) if memory.isdigit() else None)
        offers = []
        for pricing_type, price in self._prices(row, where):
            offers.append(Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{product or model}|{_slug(region)}",
                title=model, raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.id),
                gpu_count=Fraction(int(count.group(1))), pricing_type=pricing_type, price=price, currency="USD",
                price_unit="instance_hour", region=_slug(region), instance_type=product or model,
                interconnect=interconnect_of(raw_name), document_index=index,
            ))
        return offers

    def _prices(self, row, where: str) -> list[tuple[str, Decimal]]:
        """(pricing type, USD per instance-hour) of each tier the row prices, from its labelled spans only."""
        values = row.css("span.item-value")
        known = sum(len(row.css(f"span.{name} span.item-value")) for name in (*PRICE_SPANS, *EXCLUDED_SPANS))
        if len(values) != known:
            raise ParseError(f"{self.id}: {where} has a price span of an unknown kind ({len(values)} values, "
                             f"{known} known): a new tier or a renamed label")
        prices = []
        seen = 0
        for name, (pricing_type, label) in PRICE_SPANS.items():
            spans = row.css(f"span.{name}")
            seen += len(spans)
            if len(spans) > 1:
                raise ParseError(f"{self.id}: {where} has {len(spans)} '{label}' spans")
            if not spans:
                continue
            text = node_text(spans[0], " ")
            if not text.startswith(label) or not text.endswith("/ Hour"):
                raise ParseError(f"{self.id}: {where} price span reads {text!r}, not '{label} ... / Hour'")
            value_node = spans[0].css_first("span.item-value")
            if value_node is None:
                raise ParseError(f"{self.id}: {where} {label} span has no item-value")
            value = node_text(value_node, " ")
            if value in _NOT_OFFERED:
                continue  # the page's own "not offered" (its script hides the span)
            if not _DOLLARS.match(value):
                raise ParseError(f"{self.id}: {where} {label} {value!r} is not a dollar figure")
            price = money(value[1:].replace(",", ""), f"{where} {label}", self.id)
            if price is None or price <= 0:
                raise ParseError(f"{self.id}: {where} {label} {value!r} is not a price")
            prices.append((pricing_type, price))
        if not seen:
            raise ParseError(f"{self.id}: {where} has no On-Demand or Spot price span")
        return prices
