"""GMI Cloud GPU cards (public pricing page, no key): the "from $X.XX /GPU-hour" price of each NVIDIA GPU.

Facts (gpu-index's real capture of gmicloud.ai/en/pricing, 2026-08-22, and that project's collector notes;
tests/fixtures/gmicloud/):
- `GET https://www.gmicloud.ai/en/pricing`: a server-rendered Next.js page (~100 KB), no JSON price list (its
  JSON-LD holds only Organization/WebPage/Service/FAQPage). The bare /pricing redirects to a locale path, so the
  /en/ page is asked for. gpu-index saw the host refuse python-urllib's default User-Agent (403).
- One card per GPU: `<h3>NVIDIA H100 GPU</h3>` then `<span>from $2.00</span><span>/GPU-hour</span>`. The price is
  USD per GPU-hour (the unit span; the FAQ: "calculated per GPU-hour"): gpu_count 1, price_unit gpu_hour.
- "from $2.00/GPU/hr" also sits in the meta/og/twitter descriptions, the JSON-LD and the RSC payload: only the
  card's span pair is read, and every `/GPU-hour` span on the page must belong to one NVIDIA card (else
  ParseError, never a misattributed price).
- The price is a "from" figure (the lowest rate); the page says on-demand and committed rates differ but prices
  neither apart, so the figure is loaded as on_demand, noted as a floor in the title.
- A card whose price slot holds no figure ("Pre order" on the GB300 card) is not offered at a price: skipped. A
  slot with a figure that is not "from $D.DD" (another currency, another format) is a ParseError.
- The heading is the raw GPU name as written ("NVIDIA H100 GPU" names no form factor and stays unresolved;
  GB200/GB300 are Grace-Blackwell superchips, never B200). The badge above the heading ("AVAILABLE NOW" ->
  in stock; "Limited Availability" -> not said). No region.
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

PRICING_URL = "https://www.gmicloud.ai/en/pricing"
UNIT = "/GPU-hour"
_PRICE = re.compile(r"^from \$(\d[\d,]*\.\d{2})$")
_DIGIT = re.compile(r"\d")


class GmiCloud(PricingPage):
    id = "gmicloud"
    provider = "gmicloud"
    description = "GMI Cloud GPU cards from the public pricing page (USD 'from' price per GPU-hour)"
    pricing_types = ("on_demand",)
    hosts = ("www.gmicloud.ai", "gmicloud.ai")
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22); no live call made"
    expectations = Expectations(frozenset({"h200-sxm-141gb", "b200-180gb"}), min_offers=2)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        tree = LexborHTMLParser(html)
        cards = [h3 for h3 in tree.css("h3") if node_text(h3).startswith("NVIDIA ")]
        if not cards:
            raise ParseError(f"{self.id}: no 'NVIDIA <chip>' card heading on the page: price cards gone")
        unit_spans = [span for span in tree.css("span") if node_text(span) == UNIT]
        offers, attributed = [], 0
        for heading in cards:
            card = heading.parent
            spans = [span for span in (card.css("span") if card is not None else []) if node_text(span) == UNIT]
            if len(spans) > 1:
                raise ParseError(f"{self.id}: card {node_text(heading)!r} holds {len(spans)} '{UNIT}' prices")
            attributed += len(spans)
            if spans:
                offer = self._card(heading, spans[0], index)
                if offer is not None:
                    offers.append(offer)
        if attributed != len(unit_spans):
            raise ParseError(f"{self.id}: {len(unit_spans) - attributed} '{UNIT}' prices outside the NVIDIA cards")
        if not offers:
            raise ParseError(f"{self.id}: {len(cards)} NVIDIA cards but none priced")
        return offers

    def _card(self, heading: LexborNode, unit: LexborNode, index: int) -> Offer | None:
        name = node_text(heading)
        slot = unit.prev
        while slot is not None and slot.tag != "span":
            slot = slot.prev
        if slot is None:
            raise ParseError(f"{self.id}: card {name!r}: no price beside its '{UNIT}' unit")
        value = node_text(slot)
        if not _DIGIT.search(value):
            return None  # "Pre order", "Contact sales": no price offered
        match = _PRICE.match(value)
        if not match:
            raise ParseError(f"{self.id}: card {name!r}: price {value!r} is not 'from $D.DD'")
        price = money(match.group(1).replace(",", ""), f"{name} price", self.id)
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: card {name!r}: price {value!r} is not positive")
        badge = heading.prev
        while badge is not None and badge.tag != "div":
            badge = badge.prev
        badge_text = node_text(badge).upper() if badge is not None else ""
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=name, raw_gpu_name=name,
            title=f"{name} ({value}{UNIT}, the lowest rate)", gpu_id=resolve_gpu_id(name, self.id),
            gpu_count=Fraction(1), pricing_type="on_demand", price=price, currency="USD", price_unit="gpu_hour",
            in_stock=True if badge_text == "AVAILABLE NOW" else None, url=PRICING_URL, document_index=index,
        )
