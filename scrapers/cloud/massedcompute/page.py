"""Massed Compute GPU VMs (public pricing page, no key): the on-demand price of each GPU VM size, per instance-hour.

Facts (gpu-index's real capture of vm.massedcompute.com/pricing, 2026-08-22, spliced by that project down to the
keyed row segments, and its massedcompute collector notes; recordings/massedcompute-page/):
- `GET https://vm.massedcompute.com/pricing`: a Next.js page whose table is not HTML but React Server Component
  data inside `self.__next_f.push([1,"..."])` script strings, escaped one level (`\\"`, `\\n`). The page has no
  public JSON API (gpu-index: /api/pricing redirects to sign-in). Read: the text unescaped once; every row is a
  React element keyed `"<label>-x <count>-<n>"` (desktop table row) or `"<label>-mobile-x <count>-<n>"` (mobile
  card) whose props object is decoded as JSON. Each row is rendered twice (card and table row).
- Desktop table columns (th keys, pinned): Qty | vCPU | RAM | Storage | Price | action. Qty is "×8"; the price
  cell is `["$$52.80", <small>/hr</small>]` (RSC writes a literal "$" as "$$"): USD per INSTANCE-hour for the row's
  GPUs (gpu-index: a node price; B300 ×8 $52.80 = $6.60 per GPU), so gpu_count = the row's Qty (checked against the
  key's count). The mobile card holds the same Qty and price print.
- RSC defers some cells to later chunks ("$L31": a reference to the chunk defined on a line `31:[...]`); references
  are resolved where the chunk is on the page, else that copy has no price. A row's priced copies must agree, else
  ParseError (never a guess). gpu-index's trap: a deferred chunk (`7d:` holding $23.36 of "H100 NVL (94GB) NVLink
  ×8") sits inside the text of the unpriced "H100 (80GB) ×8" row; decoding each row's own props never reads it.
- "Request" (a contact-us button, vCPU/RAM/Storage "—") is no published price: the row gives no offer, never a
  zero. Any other price print (another currency, another unit) is a ParseError.
- Names: the label as the API's descriptions write it ("H100 (80GB)", "H200 NVL (141GB) NVLink", "RTX A6000 (48GB)
  [Premium]"), read with the API source's rules (scrapers.cloud.massedcompute.api): memory in brackets, "[Spot]" is
  spot, other tags ([Premium], [ALT Config]) are other CPU/RAM sizes of the same GPUs (own instance type,
  on-demand); SXM -> sxm, NVL / NVLink on PCIe cards -> pcie_nvlink. The page names no region or stock.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction

from scrapers.base import Expectations, Offer, PricingPage
from scrapers.cloud.massedcompute.api import read_description
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.interconnect import interconnect_of
from scrapers.offline import gpu_index_page_copy
from scrapers.parsing import money

PRICING_URL = "https://vm.massedcompute.com/pricing"
COLUMNS = ("Qty", "vCPU", "RAM", "Storage", "Price", "action")
QTY_SIGN = "\u00d7"
REQUEST = "Request"
_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})')
_UNESCAPED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ROW_KEY = re.compile(r'"(?P<label>[^"\n]{1,120}?)(?P<mobile>-mobile)?-x ?(?P<count>\d+)-\d+",(?=\{)')
_CHUNK = re.compile(r'(?:^|\n|\[1,")(?P<id>[0-9a-f]+):(?=[\[{])')
_THEAD = re.compile(r'\["\$","thead",')
_REFERENCE = re.compile(r"^\$L?([0-9a-f]+)$")
_PRICE = re.compile(r"^\$(\d+\.\d{2})$")
_DECODER = json.JSONDecoder()


def unescape(text: str) -> str:
    """One level of the JS string escaping the RSC data travels in (`\\"` -> `"`, `\\n` -> newline)."""
    return _ESCAPE.sub(lambda m: _UNESCAPED.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), text)


def _element(value: object) -> tuple[str, dict] | None:
    """A React element `["$", type, key, props]` -> (type, props); None for anything else."""
    if isinstance(value, list) and len(value) == 4 and value[0] == "$" and isinstance(value[3], dict):
        return str(value[1]), value[3]
    return None


class MassedComputePage(PricingPage):
    id = "massedcompute-page"
    provider = "massedcompute"
    description = "Massed Compute GPU VMs from the public pricing page (USD per instance-hour, on-demand)"
    pricing_types = ("on_demand", "spot")
    hosts = ("vm.massedcompute.com",)
    page_url = PRICING_URL
    status = "parser tested on gpu-index's real capture of the pricing page (2026-08-22, an excerpt); no live call"
    expectations = Expectations(frozenset({"h200-nvl-141gb", "l40s-48gb", "rtx-a6000-48gb"}), min_offers=15)
    offline = gpu_index_page_copy(PRICING_URL)

    def parse_page(self, html: str, index: int) -> list[Offer]:
        text = unescape(html)
        chunks = self._chunks(text)
        self._check_columns(text, chunks)
        copies: dict[tuple[str, int], list[tuple[str, str | None]]] = {}
        for match in _ROW_KEY.finditer(text):
            label, count = match.group("label").strip(), int(match.group("count"))
            props = self._decode(text, match.end(), f"row {label!r} x{count}")
            mobile = bool(match.group("mobile"))
            state, price = self._row_price(props, mobile, count, label, chunks)
            copies.setdefault((label, count), []).append((state, price))
        if not copies:
            raise ParseError(f"{self.id}: no '<label>-x <count>-<n>' GPU row on the page: the price table is gone")
        offers = []
        for (label, count), seen in copies.items():
            prices = {price for state, price in seen if state == "priced"}
            if len(prices) > 1:
                raise ParseError(f"{self.id}: row {label!r} x{count}: its copies print different prices {prices}")
            if prices:
                offers.append(self._offer(label, count, prices.pop(), index))
        if not offers:
            raise ParseError(f"{self.id}: {len(copies)} GPU rows but not one price on the page")
        return offers

    def _decode(self, text: str, at: int, where: str) -> object:
        try:
            return _DECODER.raw_decode(text, at)[0]
        except json.JSONDecodeError as error:
            raise ParseError(f"{self.id}: {where}: not JSON where the RSC data should be ({error.msg})") from None

    def _chunks(self, text: str) -> dict[str, object]:
        """The RSC chunks defined on the page (`7d:[...]`), decoded; a line that does not decode is left out."""
        chunks = {}
        for match in _CHUNK.finditer(text):
            try:
                chunks[match.group("id")] = _DECODER.raw_decode(text, match.end())[0]
            except json.JSONDecodeError:
                continue
        return chunks

    def _resolve(self, value: object, chunks: dict[str, object]) -> object:
        """A "$L7d" reference -> the chunk it names (None when that chunk is not on the page); else the value."""
        if isinstance(value, str):
            reference = _REFERENCE.match(value)
            if reference:
                return chunks.get(reference.group(1))
        return value

    def _check_columns(self, text: str, chunks: dict[str, object]) -> None:
        """Every table header on the page must be Qty | vCPU | RAM | Storage | Price | action (at least one)."""
        headers = 0
        for match in _THEAD.finditer(text):
            head = _element(self._decode(text, match.start(), "table header"))
            row = _element(self._resolve(head[1].get("children"), chunks)) if head else None
            cells = [self._resolve(cell, chunks) for cell in (row[1].get("children") or [])] if row else []
            if not cells or any(_element(cell) is None for cell in cells):
                continue  # deferred to a chunk not on the page
            keys = tuple(str(cell[2]) if cell[1] == "th" else "" for cell in cells)
            if keys != COLUMNS:
                raise ParseError(f"{self.id}: a price table has columns {list(keys)}, not {list(COLUMNS)}")
            headers += 1
        if headers == 0:
            raise ParseError(f"{self.id}: no Qty/vCPU/RAM/Storage/Price table header on the page: reshaped")

    def _row_price(self, props: object, mobile: bool, count: int, label: str,
                   chunks: dict[str, object]) -> tuple[str, str | None]:
        """("priced", "52.80"), ("request", None) or ("deferred", None) for one copy of a row."""
        where = f"{'mobile card' if mobile else 'table row'} {label!r} x{count}"
        children = props.get("children") if isinstance(props, dict) else None
        if not isinstance(children, list):
            raise ParseError(f"{self.id}: {where}: no cells")
        if mobile:
            header = _element(self._resolve(children[0], chunks)) if children else None
            parts = header[1].get("children") if header else None
            if not isinstance(parts, list) or len(parts) != 2:
                return "deferred", None
            qty, price = (_element(self._resolve(part, chunks)) for part in parts)
        else:
            if len(children) != len(COLUMNS):
                raise ParseError(f"{self.id}: {where}: {len(children)} cells for {len(COLUMNS)} columns")
            qty, price = (_element(self._resolve(children[i], chunks)) for i in (0, COLUMNS.index("Price")))
            qty = _element(qty[1].get("children")) if qty and qty[0] == "td" else qty
        if qty is None or price is None:
            return "deferred", None
        if qty[1].get("children") != [QTY_SIGN, str(count)]:
            raise ParseError(f"{self.id}: {where}: Qty {qty[1].get('children')!r} is not {QTY_SIGN}{count}")
        return self._price(price[1].get("children"), where)

    def _price(self, value: object, where: str) -> tuple[str, str | None]:
        request = _element(value)
        if request is not None and request[1].get("children") == REQUEST:
            return "request", None
        if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
            unit = _element(value[1])
            match = _PRICE.match(value[0].removeprefix("$"))  # RSC writes a literal "$" as "$$"
            if value[0].startswith("$$") and match and unit and unit[1].get("children") == "/hr":
                return "priced", match.group(1)
        printed = json.dumps(value, ensure_ascii=False)[:100]
        raise ParseError(f"{self.id}: {where}: price {printed} is not '$D.DD /hr' or Request")

    def _offer(self, label: str, count: int, printed: str, index: int) -> Offer:
        read = read_description(f"{count}x {label}")
        if read is None or count < 1:
            raise ParseError(f"{self.id}: row {label!r} x{count} does not name a GPU model")
        _, raw_name, _, tag = read
        price: Decimal | None = money(printed, f"{label} x{count} price", self.id)
        if price is None or price <= 0:
            raise ParseError(f"{self.id}: row {label!r} x{count}: price {printed!r} is not positive")
        pricing_type = "spot" if (tag or "").strip().lower() == "spot" else "on_demand"
        instance_type = f"{label} x{count}"
        return Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=f"{instance_type}|{pricing_type}",
            title=f"{count}x {label}", raw_gpu_name=raw_name, gpu_id=resolve_gpu_id(raw_name, self.provider),
            gpu_count=Fraction(count), pricing_type=pricing_type, price=price, currency="USD",
            price_unit="instance_hour", instance_type=instance_type, url=PRICING_URL, document_index=index,
            interconnect=interconnect_of(label),
        )
