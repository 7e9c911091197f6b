"""Civo GPU instances (public pricing page, no key): on-demand and 12/36-month commitment prices of every NVIDIA
GPU instance size.

Facts (gpu-index's real capture of civo.com/pricing, 2026-08-22, and that project's collector notes;
tests/fixtures/civo/):
- `GET https://www.civo.com/pricing`: a server-rendered HTML page, no JSON. The GPU prices sit in ONE
  `<section class="pricing-product" id="nvidia-gpus">`; ~23 lookalike `table.pricing-table` tables for CPU
  instances, Kubernetes nodes, databases and object storage sit outside it and are never read. `id="nvidia-gpus"`
  is on the section AND on a bare `<div>` just inside it: the section element is the fence.
- One table per chip, `<caption>NVIDIA {label} GPU pricing</caption>` (L40S 48GB, A100 40GB, A100 80GB,
  H100 SXM, H200 SXM, B200), columns Size | RAM | vCPU | Storage | Data Transfer | On-demand | Commitment.
- Each row states its own GPU count and model: `<div class="product-detail">8 x NVIDIA H200 - 141GB HBM3e</div>`.
  Prices are USD per INSTANCE-hour (all its GPUs: L40S 8x $10.32 = 8 x $1.29); gpu_count is that stated count.
- Each price cell holds an hourly print (`data-option="hourly"`, `$D.DD<span>per hour</span>`) and a hidden
  monthly one (not read). The commitment cell has one `<div id="{6,12,24,36}_months">` block per term, all in the
  bytes (CSS shows 36 months by default). The page is dollar-only: any other symbol is a ParseError.
- 12 months -> reserved_1y, 36 months -> reserved_3y; the 6- and 24-month terms -> `reserved` (term_months says
  which; in no market, only marts.gpu_term_prices_daily). Every term is billed per hour of the term (the page
  prints the hourly rate of each).
- "N/A" is a price the page does not offer: B200 is commitment-only (on-demand and 6-month N/A; its headline
  $3.79/GPU is the 36-MONTH price), so an N/A is skipped, never a zero and never relabelled on-demand.
- The row's model must match its table's caption (A100 40GB vs 80GB lookalikes), else ParseError. The raw GPU
  name is the caption label plus the row's memory when the caption states none ("H100 SXM" + "80GB"); "SXM" in the
  caption sets interconnect sxm. A100 tables say no form factor and stay "A100 40GB"/"A100 80GB" (unstated).
- The page names no region or stock.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.base import Expectations, Offer, PricingPage, term_pricing_type
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money, node_text

PRICING_URL = "https://www.civo.com/pricing"
# commitment term (months) -> pricing type; another term (6, 24 months) is `reserved` with its term_months
_CAPTION = re.compile(r"^NVIDIA (.+?) GPU pricing$")
_DETAIL = re.compile(r"^(\d+) x NVIDIA (.+)$")
_HOURLY = re.compile(r"^(N/A|\$([\d,]+\.\d{2}))$")
_MEMORY = re.compile(r"\b(\d+)\s*GB\b", re.IGNORECASE)
_TERM_ID = re.compile(r"^(\d+)_months$")


def raw_gpu_name(label: str, model: str) -> str:
    """Caption "H100 SXM" + row model "H100 - 80GB" -> "H100 SXM 80GB"; a caption stating its memory is kept."""
    if _MEMORY.search(label):
        return label
    memory = _MEMORY.search(model)
    return f"{label} {memory.group(1)}GB" if memory else label


class Civo(PricingPage):
    id = "civo"
    provider = "civo"
    description = "Civo GPU instances from the public pricing page (USD per instance-hour, on-demand and 6/12/24/36-month commitments)"
    pricing_types = ("on_demand", "reserved_1y", "reserved_3y", "reserved")
    parser_version = 2  # 2: the 6- and 24-month commitments loaded as `reserved`
    hosts = ("www.civo.com", "civo.com")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"l40s-48gb", "h100-sxm5-80gb", "h200-sxm-141gb"}), min_offers=20)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        sections = LexborHTMLParser(html).css("section#nvidia-gpus")
        if len(sections) != 1:
            raise ParseError(f"{self.id}: {len(sections)} <section id=nvidia-gpus> on the page (need 1): reshaped")
        tables = [(table, _CAPTION.match(node_text(table.css_first("caption")))) for table in sections[0].css("table")]
        tables = [(table, match.group(1)) for table, match in tables if match]
        if not tables:
            raise ParseError(f"{self.id}: no 'NVIDIA ... GPU pricing' table in the GPU section: price table gone")
        offers = []
        for table, label in tables:
            offers.extend(self._table(table, label, index))
        if not offers:
            raise ParseError(f"{self.id}: {len(tables)} GPU tables but no price in them")
        return offers

    def _table(self, table: LexborNode, label: str, index: int) -> list[Offer]:
        headers = [node_text(th) for th in table.css("thead th")]
        if "On-demand" not in headers or "Commitment" not in headers:
            raise ParseError(f"{self.id}: table {label!r} has columns {headers}, not On-demand and Commitment")
        priced_cells = len(table.css("td.on-demand-pricing")) + len(table.css("td.commitment-pricing"))
        rows = table.css("tbody tr")
        if priced_cells != 2 * len(rows):
            raise ParseError(f"{self.id}: table {label!r}: {priced_cells} price cells for {len(rows)} rows")
        offers = []
        for row in rows:
            offers.extend(self._row(row, label, index))
        return offers

    def _row(self, row: LexborNode, label: str, index: int) -> list[Offer]:
        details = row.css("div.product-detail")
        if len(details) != 1:
            raise ParseError(f"{self.id}: table {label!r}: a row with {len(details)} 'N x NVIDIA ...' details")
        detail = node_text(details[0])
        match = _DETAIL.match(detail)
        if not match or int(match.group(1)) < 1:
            raise ParseError(f"{self.id}: table {label!r}: row detail {detail!r} is not 'N x NVIDIA <model>'")
        count, model = int(match.group(1)), match.group(2)
        caption_memory = _MEMORY.findall(label)
        if model.split()[0] != label.split()[0] or any(f"{size}GB" not in model for size in caption_memory):
            raise ParseError(f"{self.id}: row model {model!r} does not match its table {label!r}")
        size_cell = row.css_first('td[data-title="Size"]')
        size = node_text(size_cell).removesuffix(detail).strip() if size_cell is not None else ""
        on_demand = row.css_first("td.on-demand-pricing")
        commitment = row.css_first("td.commitment-pricing")
        if on_demand is None or commitment is None:
            raise ParseError(f"{self.id}: table {label!r} row {size!r} lost its on-demand or commitment cell")
        where = f"table {label!r} row {size or detail!r}"
        prices: list[tuple[str, int | None, Decimal]] = []
        price = self._hourly(on_demand, f"{where} on-demand")
        if price is not None:
            prices.append(("on_demand", None, price))
        terms = [(block, _TERM_ID.match(block.attributes.get("id") or "")) for block in commitment.css("div[id]")]
        terms = [(block, int(term.group(1))) for block, term in terms if term]
        if not terms:
            raise ParseError(f"{self.id}: {where}: the commitment cell holds no N_months term block")
        if len(commitment.css('div[data-option="hourly"]')) != len(terms):
            raise ParseError(f"{self.id}: {where}: an hourly price outside the commitment term blocks")
        for block, months in terms:
            price = self._hourly(block, f"{where} {months}-month commitment")
            if price is not None:
                prices.append((term_pricing_type(months), months, price))
        raw_name = raw_gpu_name(label, model)
        instance_type = f"{label} {size}".strip()
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider,
                offer_id=f"{instance_type}|{pricing_type}" + (f"|{months}m" if pricing_type == "reserved" else ""), title=f"{instance_type} ({detail})",
                raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.id), gpu_count=Fraction(count),
                pricing_type=pricing_type, term_months=months, price=amount, currency="USD",
                price_unit="instance_hour", instance_type=instance_type, url=PRICING_URL, document_index=index,
                interconnect=interconnect_of(label),
            )
            for pricing_type, months, amount in prices
        ]

    def _hourly(self, cell: LexborNode, where: str) -> Decimal | None:
        """The cell's one hourly print: a Decimal, or None for N/A. Anything else is a ParseError."""
        prints = cell.css('div[data-option="hourly"]')
        if len(prints) != 1:
            raise ParseError(f"{self.id}: {where}: {len(prints)} hourly prices (need 1)")
        unit = node_text(prints[0].css_first("span"))
        value = " ".join((prints[0].text(deep=False) or "").split())
        match = _HOURLY.match(value)
        if unit != "per hour" or not match:
            raise ParseError(f"{self.id}: {where}: hourly price {value!r} {unit!r} is not '$D.DD per hour' or N/A")
        if match.group(1) == "N/A":
            return None
        amount = money(match.group(2).replace(",", ""), where, self.id)
        if amount is None or amount <= 0:
            raise ParseError(f"{self.id}: {where}: price {value!r} is not positive")
        return amount
