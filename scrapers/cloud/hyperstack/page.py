"""Hyperstack GPU VMs (public pricing page, no key): the on-demand and spot price of each GPU, per GPU-hour.

Facts (gpu-index's real capture of www.hyperstack.cloud/gpu-pricing, 2026-08-22, trimmed by that project of
script/style/svg bodies and comments only, and its hyperstack collector notes; recordings/hyperstack-page/):
- `GET https://www.hyperstack.cloud/gpu-pricing`: a server-rendered (HubSpot) page, no JSON price list. The prices
  sit in `<div id="cloud-pricing">` ("AI Cloud Pricing"), one `div.page-price_card` per table, titled by its
  `<h3>`: "On-Demand GPU Pricing", "Reservation Pricing", "Spot VM Pricing", "On-Demand CPU Pricing", "Storage
  Pricing", "Other Services". The table is a div grid: header cells `.page-price_card_head_item`, rows
  `.page-price_card_row_item`, cells `.page-price_card_row_item_col`, one per header cell.
- Read: the on-demand GPU card (GPU Model | VRAM (GB) | Max pCPUs per GPU | Max RAM (GB) per GPU | Pricing Per
  Hour) and the spot card (GPU Model | Spot VM). Each row is one GPU model with its per-GPU share of CPUs and RAM:
  the price is USD per GPU-HOUR (gpu_count 1), as gpu-index reads it and as Hyperstack's pricebook API prices GPUs.
  Both header rows are pinned (which cell is the price rides on it); each card must be there exactly once (a second
  render would count every price twice).
- Not loaded: the reservation card's "Starting from" prices (a floor for a reservation whose term the page never
  states: no reserved_1y/3y to give them). Lookalikes never read: the CPU flavours ("Pricing Per Hour" too), storage
  and other services, the AI Studio per-token and fine-tuning prices (`#studio-pricing`), and the priceless GPU names
  of the nav and footer (GB200 NVL72, GB300 NVL72, HGX B200).
- Cells: "$3.99", some printed "&nbsp;$1.40" or " $0.80". Any other figure or currency is a ParseError (never a
  guess); "Contact us", "Coming soon" or a dash is no published price (the row is skipped, never a zero).
- Names: the page labels the GPU ("NVIDIA H100 SXM", "NVIDIA H100 NVLink", "NVIDIA H100", "NVIDIA A6000"). The raw
  name is the label without the vendor plus, in the on-demand table, the row's VRAM (GB) cell ("H100 SXM 80GB");
  the spot table states no memory and gets none. "SXM" -> interconnect sxm, "PCIe" -> pcie, "NVLink" (form factor
  not said) -> nvlink; a bare "H100"/"A100" says neither and stays unresolved or "-unstated", never guessed.
- The top banner of 2026-08-22 says "NVIDIA B300s are coming to Hyperstack - On-Demand in August" while the B300 row
  is priced ($7.40): it is loaded as printed (possibly forward-listed). The page names no region or stock.
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
from scrapers.parsing import dollar_cell, node_text

PRICING_URL = "https://www.hyperstack.cloud/gpu-pricing"
SECTION = "div#cloud-pricing"
ON_DEMAND_CARD = "On-Demand GPU Pricing"
SPOT_CARD = "Spot VM Pricing"
ON_DEMAND_HEADER = ("GPU Model", "VRAM (GB)", "Max pCPUs per GPU", "Max RAM (GB) per GPU", "Pricing Per Hour")
SPOT_HEADER = ("GPU Model", "Spot VM")
# card title -> (pricing type, the header it must have)
CARDS = {ON_DEMAND_CARD: ("on_demand", ON_DEMAND_HEADER), SPOT_CARD: ("spot", SPOT_HEADER)}
NO_PRICE = {"contact us", "coming soon", "-", "\u2013", "\u2014"}
_NUMBER = re.compile(r"^\d+$")
_VENDORS = ("NVIDIA", "AMD")


class HyperstackPage(PricingPage):
    id = "hyperstack-page"
    provider = "hyperstack"
    description = "Hyperstack GPU VMs from the public pricing page (USD per GPU-hour, on-demand and spot)"
    pricing_types = ("on_demand", "spot")
    hosts = ("www.hyperstack.cloud", "hyperstack.cloud")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"h200-sxm-141gb", "h100-sxm5-80gb", "l40-48gb"}), min_offers=15)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        sections = LexborHTMLParser(html).css(SECTION)
        if len(sections) != 1:
            raise ParseError(f"{self.id}: {len(sections)} <{SECTION}> on the page (need 1): reshaped")
        cards: dict[str, list[LexborNode]] = {}
        for card in sections[0].css("div.page-price_card"):
            cards.setdefault(node_text(card.css_first(".page-price_card_top_content h3")), []).append(card)
        offers = []
        for title, (pricing_type, header) in CARDS.items():
            found = cards.get(title, [])
            if len(found) != 1:
                raise ParseError(f"{self.id}: {len(found)} {title!r} tables in the AI Cloud section (need 1)")
            offers.extend(self._card(found[0], title, pricing_type, header, index))
        return offers

    def _card(self, card: LexborNode, title: str, pricing_type: str, header: tuple[str, ...],
              index: int) -> list[Offer]:
        columns = tuple(node_text(cell) for cell in card.css(".page-price_card_head_item"))
        if columns != header:
            raise ParseError(f"{self.id}: table {title!r} has columns {list(columns)}, not {list(header)}")
        offers = []
        for row in card.css(".page-price_card_row_item"):
            cells = [node_text(cell) for cell in row.css(".page-price_card_row_item_col")]
            if not cells:
                continue  # the page's template leaves empty rows in some tables: nothing printed
            if len(cells) != len(header):
                raise ParseError(f"{self.id}: table {title!r}: row {cells} has {len(cells)} cells for "
                                 f"{len(header)} columns")
            offer = self._row(cells, title, pricing_type, index)
            if offer is not None:
                offers.append(offer)
        if not offers:
            raise ParseError(f"{self.id}: table {title!r} holds no priced GPU row")
        return offers

    def _row(self, cells: list[str], title: str, pricing_type: str, index: int) -> Offer | None:
        label, printed = cells[0], cells[-1]
        vendor, _, model = label.partition(" ")
        if vendor not in _VENDORS or not model:
            raise ParseError(f"{self.id}: table {title!r}: GPU model {label!r} is not '<vendor> <model>'")
        where = f"table {title!r} row {label!r}"
        if printed.lower() in NO_PRICE:
            return None
        price = dollar_cell(printed, where, self.id)
        raw_name, title_text = model, f"{label} ({title})"
        if pricing_type == "on_demand":
            vram, cpus, ram = cells[1:4]
            if not all(_NUMBER.match(value) for value in (vram, cpus, ram)):
                raise ParseError(f"{self.id}: {where}: VRAM/pCPUs/RAM {cells[1:4]} are not whole numbers")
            raw_name = f"{model} {vram}GB"
            title_text = f"{label}, {vram} GB, up to {cpus} pCPUs and {ram} GB RAM per GPU ({title})"
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=f"{label}|{pricing_type}",
            title=title_text, raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.provider),
            gpu_count=Fraction(1), pricing_type=pricing_type, price=price, currency="USD", price_unit="gpu_hour",
            url=PRICING_URL, document_index=index, interconnect=interconnect_of(model),
        )
