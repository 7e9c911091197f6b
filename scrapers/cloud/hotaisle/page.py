"""Hot Aisle AMD GPU VMs (public pricing page, no key): the on-demand per-GPU-hour price of each MI300X VM size.

Facts (gpu-index's real capture of hotaisle.xyz/pricing, 2026-08-22, and that project's collector notes;
recordings/hotaisle-page/):
- `GET https://hotaisle.xyz/pricing`: a server-rendered (Astro) page, no JSON price list. gpu-index saw Cloudflare
  refuse python-urllib's default User-Agent (403).
- The prices sit in plan cards. Each card header holds, in order: a kicker `<p>` (the plan kind: "VM" or "Bare
  metal"), the plan `<h2>` (Small, Medium, Large), a `<div>` of two spans (the GPU counts, "1x" or "2x &amp; 4x",
  then the chip, printed "MI300x") and one `<p>` price print "$2.99/GPU/hr".
- Prices are USD per GPU-hour (the "/GPU/hr" beside the figure): price_unit gpu_hour, gpu_count = the VM's GPUs.
  A card naming several counts ("2x & 4x", the Medium card) gives one offer per count at the card's price.
- "VM" cards are the self-serve rate (the hero: "New customer rate. 1, 2, and 4x MI300X VMs, billed by the
  minute"): on_demand. The "Bare metal" card (8x MI300X, $3.39/GPU/hr) is "bare metal, one-month minimum": a term
  that is neither on-demand nor a 1y/3y reservation, so it is not loaded (and if that phrase goes, the card's term
  is unknown: ParseError). Any other kicker is a ParseError (a new kind of plan whose pricing type is not known).
- Lookalikes never read: the meta/og/twitter descriptions ("$2.99 hourly"), the hero summary boxes repeating both
  prices (kickers "Virtual machines" / "8x bare metal", no `<h2>`), the "grandfathered at $1.99/GPU/hr" rate of
  existing customers (not for sale to new ones), and MI355X in the nav, the JSON-LD OfferCatalog (offers without
  prices) and the footer (no price on this page).
- The page names no region, stock, interconnect or cluster network.
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

PRICING_URL = "https://hotaisle.xyz/pricing"
# card kicker -> pricing type; None: a known plan kind that has no pricing type here (bare metal, one-month minimum)
KICKERS = {"VM": "on_demand", "Bare metal": None}
COMMIT_PHRASE = "one-month minimum"
_COUNT = re.compile(r"^(\d+)x$")
_PRICE = re.compile(r"^\$(\d+\.\d{2})/GPU/hr$")
_PRICE_LIKE = re.compile(r"\$|\d\.\d{2}|/GPU")


def _children(node: LexborNode) -> list[LexborNode]:
    return list(node.iter(include_text=False))


class HotAislePage(PricingPage):
    id = "hotaisle-page"
    provider = "hotaisle"
    description = "Hot Aisle MI300X VMs from the public pricing page (USD per GPU-hour, on-demand)"
    pricing_types = ("on_demand",)
    hosts = ("hotaisle.xyz", "www.hotaisle.xyz")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"mi300x-192gb"}), min_offers=3)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        cards = [card for card in map(self._card_parts, LexborHTMLParser(html).css("h2")) if card is not None]
        if not cards:
            raise ParseError(f"{self.id}: no plan card (kicker, <h2>, GPU count and chip) on the page: cards gone")
        offers = []
        for kicker, plan, header, counts, chip in cards:
            offers.extend(self._card(kicker, plan, header, counts, chip, index))
        if not offers:
            raise ParseError(f"{self.id}: {len(cards)} plan cards but no VM card: no on-demand price left")
        return offers

    def _card_parts(self, h2: LexborNode) -> tuple[str, str, LexborNode, str, str] | None:
        """A plan card's kicker, plan, header node, counts and chip; None for an <h2> that heads no plan card."""
        header = h2.parent
        if header is None:
            return None
        siblings = _children(header)
        at = next(i for i, node in enumerate(siblings) if node.mem_id == h2.mem_id)
        if at == 0 or at + 1 >= len(siblings):
            return None
        kicker, gpus = siblings[at - 1], siblings[at + 1]
        spans = _children(gpus)
        if kicker.tag != "p" or gpus.tag != "div" or len(spans) != 2 or any(s.tag != "span" for s in spans):
            return None
        return node_text(kicker), node_text(h2), header, node_text(spans[0]), node_text(spans[1])

    def _card(self, kicker: str, plan: str, header: LexborNode, counts: str, chip: str, index: int) -> list[Offer]:
        where = f"plan card {kicker!r}/{plan!r}"
        if kicker not in KICKERS:
            raise ParseError(f"{self.id}: {where}: unknown plan kind (known: {sorted(KICKERS)})")
        numbers = [_COUNT.match(part.strip()) for part in counts.split("&")]
        if not all(numbers) or not chip:
            raise ParseError(f"{self.id}: {where}: GPUs {counts!r} {chip!r} are not 'Nx [& Mx] <chip>'")
        gpu_counts = [int(number.group(1)) for number in numbers]
        if min(gpu_counts) < 1 or len(set(gpu_counts)) != len(gpu_counts):
            raise ParseError(f"{self.id}: {where}: GPU counts {counts!r} are not distinct positive counts")
        prints = [p for p in header.css("p") if _PRICE_LIKE.search(node_text(p))]
        if len(prints) != 1:
            raise ParseError(f"{self.id}: {where}: {len(prints)} price prints (need 1)")
        value = " ".join((prints[0].text(deep=False) or "").split())
        match = _PRICE.match(value)
        if not match:
            raise ParseError(f"{self.id}: {where}: price {value!r} is not '$D.DD/GPU/hr'")
        price: Decimal | None = money(match.group(1), where, self.id)
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: {where}: price {value!r} is not positive")
        pricing_type = KICKERS[kicker]
        if pricing_type is None:
            if COMMIT_PHRASE not in node_text(header).lower():
                raise ParseError(f"{self.id}: {where}: the {COMMIT_PHRASE!r} term is gone: its term is unknown")
            return []  # bare metal, one-month minimum: no pricing type for that term
        return [
            Offer(
                source=self.id, channel="cloud", provider=self.provider, offer_id=f"{kicker} {plan} {count}x",
                title=f"{kicker} {plan}: {count}x {chip} ({value})", raw_gpu_name=chip,
                gpu_id=resolve_gpu_id(chip, self.provider), gpu_count=Fraction(count), pricing_type=pricing_type,
                price=price, currency="USD", price_unit="gpu_hour", instance_type=f"{kicker} {plan} {count}x",
                url=PRICING_URL, document_index=index,
            )
            for count in gpu_counts
        ]
