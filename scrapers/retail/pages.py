"""What every retail source shares: reading a price string with the site's currency, telling a blocked page from an
empty one, deciding whether a listing is a GPU card at all (and which), and reading the structured product data
shops embed (JSON-LD, OpenGraph product meta, microdata). Scraped text is untrusted: nothing here evaluates it.

Traps (seen in the saved pages in tests/fixtures/retail/, origins in tests/fixtures/PROVENANCE.md): a currency
written in the price ("EUR 399,99" on eBay.de, "US $5") wins over the site's; `¥` depends on the site (CNY on JD,
JPY on a Japanese site), `万` multiplies by 10,000, screen-reader text duplicates a price ("$59.99$59.99"),
ranges ("EUR 2,99 bis EUR 7,99"), financing ("About $0.50/mo.") and teasers ("1 New from $29.99") are not prices,
and a captcha page is no observation (never price 0)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from price_parser import Price
from selectolax.lexbor import LexborHTMLParser

from scrapers.base import Expectations, Offer, Source
from scrapers.errors import BlockedError, NothingToWatch, ParseError
from scrapers.gpu_names import alias_gpu_id, find_in_catalogue, resolve_gpu_id
from scrapers.http import RawDocument

# -- prices ---------------------------------------------------------------------------------------------------------
_NOT_A_PRICE = re.compile(r"/\s*mo\b|per month|/\s*kg\b|\bnew from\b|\bused from\b|%|人付款|领券|立减|满\d+元", re.I)
_WAN = re.compile(r"(\d+(?:\.\d+)?)\s*万")


def parse_price(text: str | None, currency: str, decimal_separator: str | None = None) -> Decimal | None:
    """The first price in a price string, as an exact Decimal (its currency: written_currency). None for empty
    text, financing, unit prices, teasers, coupons and sales counts."""
    if text is None:
        return None
    text = " ".join(str(text).split())
    if not text or _NOT_A_PRICE.search(text):
        return None
    labelled = re.split(r"our price|sale price|now:", text, flags=re.I)
    if len(labelled) > 1:  # "Original price$349.99Save $50.00Our price$299.99": the labelled one is the price
        text = labelled[-1]
    wan = _WAN.search(text)
    if wan:  # 23.5万 = 235,000
        return (Decimal(wan.group(1)) * 10000).quantize(Decimal("0.01"))
    parsed = Price.fromstring(text, decimal_separator=decimal_separator)
    if parsed.amount is None:
        return None
    amount = Decimal(str(parsed.amount))
    return amount if amount > 0 else None


# A currency written in a price string wins over the site's. "$" and "¥" alone are ambiguous: the site's currency
# when it is a dollar (resp. yen/yuan) one, else USD (resp. CNY).
ISO_CURRENCIES = frozenset({
    "USD", "EUR", "GBP", "CNY", "JPY", "CAD", "AUD", "NZD", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "RON",
    "BGN", "ISK", "TRY", "HKD", "SGD", "TWD", "KRW", "INR", "BRL", "MXN", "ZAR", "ILS", "THB", "MYR", "IDR", "PHP"})
_DOLLAR_PREFIX = re.compile(r"(?<![A-Za-z])(US|USD|C|CA|CAD|CDN|AU|AUD|A|NZ|NZD|HK|HKD|S|SG|SGD|NT|MX|R)\s?\$")
_DOLLAR_PREFIXES = {"US": "USD", "USD": "USD", "C": "CAD", "CA": "CAD", "CAD": "CAD", "CDN": "CAD", "AU": "AUD",
                    "AUD": "AUD", "A": "AUD", "NZ": "NZD", "NZD": "NZD", "HK": "HKD", "HKD": "HKD", "S": "SGD",
                    "SG": "SGD", "SGD": "SGD", "NT": "TWD", "MX": "MXN", "R": "BRL"}
_SYMBOLS = {"€": "EUR", "£": "GBP", "₹": "INR", "₩": "KRW", "zł": "PLN", "RMB": "CNY", "元": "CNY", "人民币": "CNY",
            "円": "JPY", "Fr.": "CHF", "Kč": "CZK", "₺": "TRY", "₪": "ILS", "฿": "THB"}
_DOLLARS = frozenset({"USD", "CAD", "AUD", "NZD", "HKD", "SGD", "TWD", "MXN"})


def written_currency(text: str | None, site_currency: str | None) -> str | None:
    """The ISO currency a price string shows ("EUR 399,99", "12,99 €", "US $5", "C $20", "£5", "¥1999"), else the
    site's (None when neither says: the caller records nothing rather than guess USD)."""
    text = " ".join(str(text or "").split())
    prefix = _DOLLAR_PREFIX.search(text)
    if prefix:
        return _DOLLAR_PREFIXES[prefix.group(1)]
    shown = Price.fromstring(text).currency if text else None
    if shown is None:
        return site_currency
    shown = shown.strip()
    if shown.upper() in ISO_CURRENCIES:
        return shown.upper()
    if shown in _SYMBOLS:
        return _SYMBOLS[shown]
    if "$" in shown:
        return site_currency if site_currency in _DOLLARS else "USD"
    if shown in ("¥", "￥"):
        return site_currency if site_currency in ("CNY", "JPY") else "CNY"
    if shown.lower() == "kr":
        return site_currency if site_currency in ("SEK", "NOK", "DKK", "ISK") else None
    return site_currency


def parse_priced(text: str | None, site_currency: str | None) -> tuple[Decimal, str] | None:
    """A price string's amount (the low end of a range) and the currency it is written in (written_currency)."""
    low_high = parse_range(text, site_currency or "")
    amount = low_high[0] if low_high else parse_price(text, site_currency or "")
    currency = written_currency(text, site_currency)
    return (amount, currency) if amount is not None and currency is not None else None


def parse_range(text: str | None, currency: str, decimal_separator: str | None = None) -> tuple[Decimal, Decimal] | None:
    """A "low to high" price range ("$X to $Y", "EUR 2,99 bis EUR 7,99", "$2,199.99 – $2,399.99"), else None."""
    if not text:
        return None
    parts = re.split(r"\s+(?:to|bis|-|–|—)\s+", " ".join(text.split()))
    if len(parts) != 2:
        return None
    low, high = (parse_price(part, currency, decimal_separator) for part in parts)
    return (low, high) if low is not None and high is not None and low <= high else None


# -- blocked pages ----------------------------------------------------------------------------------------------------
BLOCK_MARKERS = (
    ("enter the characters you see below", "Amazon captcha"),
    ("pardon our interruption", "eBay bot challenge"),
    ("are you a human?", "Newegg captcha"),
    ("checking your browser", "browser check interstitial"),
    ("pdos_captcha", "JD captcha"),
    ("passport.jd.com", "JD login redirect"),
    ("to discuss automated access to amazon data", "Amazon robot page"),
)


def raise_if_blocked(body: bytes | str, url: str = "") -> None:
    """A captcha, bot challenge or login page: a BlockedError (status `blocked`, no observation recorded)."""
    head = (body if isinstance(body, str) else body[:300_000].decode("utf-8", "replace")).lower()
    for marker, what in BLOCK_MARKERS:
        if marker in head or marker in url.lower():
            raise BlockedError(f"{what} ({marker!r}) instead of the page")


# -- is it a GPU card, and which? -----------------------------------------------------------------------------------
NOT_A_CARD = (
    (r"\b(gaming|desktop) (pc|computer)\b|\bprebuilt\b|\bpre-built\b|\btower\b.*\b(i[3579]|ryzen)\b|\bdesktop\b",
     "prebuilt PC"),
    (r"\blaptop\b|\bnotebook\b", "laptop"),
    (r"\bcombo\b|\bbundle\b|\+\s*\d+\s*gb\s*(ddr|ram)|\bw/\s*(ram|memory)", "bundle"),
    (r"\bbox only\b|\bempty box\b|\bno card\b|\bno gpu\b", "box only"),
    (r"water\s*block|waterblock|\bbackplate\b|\bbracket\b|\briser\b|\bshroud\b|\bfan\b.*\breplacement\b|"
     r"\bcooler\b.*\breplacement\b|\bthermal pad", "part or accessory"),
    (r"for parts|not working|\bbroken\b|\bdefective\b|\bas[- ]is\b", "for parts"),
    (r"mining rig|\brig\b.*\bgpus?\b|\blot of\b|\d+\s*x\s*(rtx|gtx)", "lot or rig"),
    (r"\bpicture of\b|\bphoto of\b|read description", "not the item"),
)
_GPU_BRAND = re.compile(r"\b(?:nvidia|geforce|quadro|tesla|radeon|amd|intel\s+arc|arc\s+[ab]\d{3})", re.I)
_SELLS_A_CARD = re.compile(r"\b(?:video|graphics) card\b")
_FOR_A_CARD = re.compile(r"\b(?:for|fits|compatible with)\b.*\b(?:rtx|gtx|radeon|geforce)\b")
_GPU_MODEL = re.compile(
    r"\b(?:rtx|gtx)\s*(?:pro\s*)?a?\d{3,4}\s*(?:ti\s*super|ti|super|ada)?(?:\s*\d+\s*gb?\b)?"
    r"|\b(?:rtx\s+)?a\d{4}\b(?:\s*\d+\s*gb?\b)?"
    r"|\b[ahlvt]\d{1,3}s?\b(?:\s*(?:sxm\d?|pcie|nvl))?(?:\s*\d+\s*gb?\b)?(?:\s*(?:sxm\d?|pcie|nvl)\b)?"
    r"|\bmi\d{3}x?\b|\bradeon\s+(?:rx|pro)\s*\w+",
    re.I,
)


@dataclass(frozen=True)
class Classification:
    is_card: bool
    reason: str | None        # why it is not a card
    raw_gpu_name: str | None  # the model text the GPU id was resolved from
    gpu_id: str | None


def classify_listing(title: str, scope: str = "") -> Classification:
    """Is this listing one GPU card (not a PC, bundle, box, part or lot), and which canonical GPU? `scope` is the
    provider: dbt resolves the stored raw name again with the same scope."""
    text = " ".join(title.split())
    lowered = text.lower()
    for pattern, reason in NOT_A_CARD:
        if re.search(pattern, lowered):
            if reason == "part or accessory" and _SELLS_A_CARD.search(lowered) and not _FOR_A_CARD.search(lowered):
                continue  # "... Video Card, ... Metal Backplate": a card that has the part, not the part alone
            return Classification(False, reason, None, None)
    candidates = [m.group(0).strip() for m in _GPU_MODEL.finditer(text)]
    # The provider's own aliases first; then the catalogue's reading of the whole title, which keeps a memory size
    # said apart from the model ("RTX 3080 GAMING OC 12G"); then the global aliases (they never contradict the
    # catalogue where it reads a name, tests/scrapers/test_gpu_catalogue.py: they add what it cannot read).
    for candidate in candidates:
        if scope and (gpu_id := alias_gpu_id(candidate, scope)) != alias_gpu_id(candidate):
            return Classification(True, None, candidate, gpu_id)
    found = find_in_catalogue(text) if candidates or _GPU_BRAND.search(text) else None
    if found and (gpu_id := resolve_gpu_id(found[0], scope)):
        return Classification(True, None, found[0], gpu_id)
    for candidate in candidates:
        if gpu_id := alias_gpu_id(candidate, scope):
            return Classification(True, None, candidate, gpu_id)
    if candidates:
        return Classification(True, None, candidates[0], None)  # a GPU we have no alias for: kept, unmatched
    return Classification(False, "no GPU model in the title", None, None)


CONDITIONS = {  # eBay conditionId -> our condition (key on the id, not the text)
    "1000": "new", "1500": "open_box", "1750": "new", "2000": "refurbished", "2010": "refurbished",
    "2020": "refurbished", "2030": "refurbished", "2500": "refurbished", "2750": "used", "3000": "used",
    "4000": "used", "5000": "used", "6000": "used", "7000": "for_parts",
}


def condition_from_text(text: str | None) -> str | None:
    if not text:
        return None
    lowered = text.lower()
    for needle, condition in (("for parts", "for_parts"), ("open box", "open_box"), ("refurb", "refurbished"),
                              ("renewed", "refurbished"), ("pre-owned", "used"), ("used", "used"),
                              ("gebraucht", "used"), ("brand new", "new"), ("neu", "new"), ("new", "new")):
        if needle in lowered:
            return condition
    return None


def availability_in_stock(value: str | None) -> bool | None:
    """schema.org availability in any spelling: http(s)://schema.org/InStock, bare "InStock", SoldOut..."""
    if not value:
        return None
    suffix = str(value).rstrip("/").rsplit("/", 1)[-1].lower()
    if suffix in ("instock", "limitedavailability", "onlineonly", "instoreonly", "preorder", "presale"):
        return True
    if suffix in ("outofstock", "soldout", "discontinued"):
        return False
    return None


# -- structured product data ----------------------------------------------------------------------------------------
@dataclass
class StructuredOffer:
    title: str | None
    price: Decimal | None
    high_price: Decimal | None  # AggregateOffer highPrice
    currency: str | None
    in_stock: bool | None
    condition: str | None
    url: str | None
    origin: str                  # json-ld | opengraph | microdata


def _lenient_json(text: str):
    """JSON-LD as shops write it: control characters inside strings, `//` comments."""
    cleaned = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return json.loads(cleaned, strict=False)


def _products(node) -> list[dict]:
    """Top-level Product objects (also inside @graph / lists), not Products nested in reviews."""
    if isinstance(node, list):
        return [p for item in node for p in _products(item)]
    if not isinstance(node, dict):
        return []
    if "@graph" in node:
        return _products(node["@graph"])
    types = node.get("@type")
    types = types if isinstance(types, list) else [types]
    return [node] if "Product" in types else []


def _decimal(value) -> Decimal | None:
    if value is None or isinstance(value, dict | list) or value == "":
        return None
    try:
        amount = Decimal(str(value).replace(",", ".")) if re.fullmatch(r"\d+,\d{1,2}", str(value)) \
            else Decimal(str(value).replace(",", ""))
    except InvalidOperation:
        return None
    return amount if amount > 0 else None


def structured_offers(html: str) -> list[StructuredOffer]:
    """Every product offer a page declares, JSON-LD first, then OpenGraph product meta, then microdata."""
    tree = LexborHTMLParser(html)
    found: list[StructuredOffer] = []
    for script in tree.css('script[type="application/ld+json"]'):
        try:
            data = _lenient_json(script.text() or "")
        except ValueError:
            continue  # one bad block never kills the page
        for product in _products(data):
            offers = product.get("offers")
            for offer in offers if isinstance(offers, list) else [offers] if isinstance(offers, dict) else []:
                low = _decimal(offer.get("price") if offer.get("price") is not None else offer.get("lowPrice"))
                found.append(StructuredOffer(
                    title=product.get("name"), price=low, high_price=_decimal(offer.get("highPrice")),
                    currency=offer.get("priceCurrency"), in_stock=availability_in_stock(offer.get("availability")),
                    condition=condition_from_text(str(offer.get("itemCondition") or "").rsplit("/", 1)[-1]
                                                  .replace("Condition", "")),
                    url=offer.get("url") or product.get("url"), origin="json-ld"))

    def meta(*names: str) -> str | None:
        for name in names:
            node = tree.css_first(f'meta[property="{name}"]') or tree.css_first(f'meta[name="{name}"]')
            if node is not None and node.attributes.get("content"):
                return node.attributes["content"].strip()
        return None

    og_price = meta("product:price:amount", "og:price:amount")
    if og_price:
        found.append(StructuredOffer(
            title=meta("og:title"), price=_decimal(og_price), high_price=None,
            currency=meta("product:price:currency", "og:price:currency"),
            in_stock=availability_in_stock(meta("product:availability", "og:availability")),
            condition=condition_from_text(meta("product:condition")), url=meta("og:url"), origin="opengraph"))
    for scope in tree.css('[itemtype*="schema.org/Product"]'):
        price_node = scope.css_first('[itemprop="price"]')
        if price_node is None:
            continue
        content = price_node.attributes.get("content") or price_node.text()
        currency_node = scope.css_first('[itemprop="priceCurrency"]')
        name_node = scope.css_first('[itemprop="name"]')
        availability = scope.css_first('[itemprop="availability"]')
        found.append(StructuredOffer(
            title=(name_node.text().strip() if name_node else None),
            price=_decimal(content) if content and re.fullmatch(r"[\d.,]+", content.strip()) else
            parse_price(content, ""),
            high_price=None,
            currency=(currency_node.attributes.get("content") or currency_node.text().strip()) if currency_node else None,
            in_stock=availability_in_stock(availability.attributes.get("href") or availability.attributes.get("content"))
            if availability else None,
            condition=None, url=None, origin="microdata"))
    return found


def json_answer(document: RawDocument, what: str, key: str):
    """A retail API's JSON answer, which must be an object with `key`: else a ParseError naming `what`."""
    try:
        payload = json.loads(document.body)
    except ValueError as error:
        raise ParseError(f"{what} answer is not JSON: {error}") from error
    if not isinstance(payload, dict) or key not in payload:
        raise ParseError(f"{what} answer without {key}: {str(payload)[:200]}")
    return payload


# -- the shape every retail source shares -------------------------------------------------------------------------
class RetailSource(Source):
    """A retail source: card prices bought outright. Subclasses read one page into offers (`parse_page`); the
    loop here refuses blocked pages and counts a listing seen on two pages once."""

    kind = "retail"
    pricing_types = ("purchase",)
    expectations = Expectations(frozenset(), min_offers=1)
    watch_fields: tuple[str, ...] = ("products", "queries")  # the watch-list settings this source fetches

    def require_watch_list(self) -> None:
        if not any(getattr(self, name, None) for name in self.watch_fields):
            raise NothingToWatch(f"{self.id}: skipped, the watch list names nothing for it "
                                 f"(set {' or '.join(self.watch_fields)} under [{self.provider}] in config/watchlist.toml)")

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: dict[str, Offer] = {}
        for index, document in enumerate(documents):
            html = document.body.decode("utf-8", "replace")
            raise_if_blocked(html, document.url)
            for offer in self.parse_page(html, document.url, index):
                offers.setdefault(offer.offer_id, offer)
        return list(offers.values())

    def parse_page(self, html: str, url: str, index: int) -> list[Offer]:
        raise NotImplementedError

    def card_offer(
        self, *, offer_id: str, title: str | None, price: Decimal, currency: str, url: str | None, index: int,
        provider: str | None = None, region: str | None = None, condition: str = "new",
        seller_type: str = "retailer", in_stock: bool | None = None, role: str = "selling",
        not_a_card: str | None = None, reject: str | None = None, reject_prefix: str = "",
        raw_name_fallback: str | None = None,
    ) -> Offer:
        """One card listing, classified from its title: its GPU, or why it is set aside (`reject` overrides;
        `not_a_card` is the source's own reason for a title that reads like a card, e.g. a non-GPU category)."""
        provider = provider or self.provider
        listing = classify_listing(title or "", scope=provider)
        if reject is None:
            reject = reject_prefix + listing.reason if not listing.is_card else not_a_card
        return Offer(
            source=self.id, channel="retail", provider=provider, offer_id=offer_id,
            raw_gpu_name=listing.raw_gpu_name or raw_name_fallback or (title or "")[:120], gpu_id=listing.gpu_id,
            gpu_count=1, pricing_type="purchase", price=price, currency=currency, price_unit="card", region=region,
            title=title, includes_host_vm=False, condition=condition, seller_type=seller_type, in_stock=in_stock, url=url,
            document_index=index, price_role=role, reject_reason=reject,
        )
