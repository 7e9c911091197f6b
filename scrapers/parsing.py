"""Small helpers every JSON source shares: load a body, read a money figure exactly, fail with a clear reason."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from scrapers.errors import ParseError
from scrapers.http import RawDocument


def load_json(document: RawDocument, source_id: str) -> Any:
    try:
        return json.loads(document.body)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ParseError(f"{source_id}: {document.url} is not JSON ({error})") from None


def money(value: object, what: str, source_id: str) -> Decimal | None:
    """An exact Decimal from a JSON number or decimal string ("1.70", 1.7, 170). None/"" -> None (no price).

    JSON floats go through their shortest repr (`str(1.7)` == "1.7"), so 1.7 never becomes 1.69999...
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ParseError(f"{source_id}: {what} = {value!r} is not a price")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise ParseError(f"{source_id}: {what} = {value!r} is not a number") from None
    if not amount.is_finite():
        raise ParseError(f"{source_id}: {what} = {value!r} is not a finite number")
    return amount


_DOLLAR_CELL = re.compile(r"^\$(\d+\.\d{2})$")


def dollar_cell(printed: str, where: str, source_id: str) -> Decimal:
    """A price page's "$D.DD" cell as a positive exact Decimal (USD); any other text is a ParseError naming `where`
    (a currency or format change is never guessed). The caller has already set aside its no-price marks."""
    match = _DOLLAR_CELL.match(printed)
    if not match:
        raise ParseError(f"{source_id}: {where}: price {printed!r} is not '$D.DD' or a no-price mark")
    price = money(match.group(1), where, source_id)
    if price is None or price <= 0:
        raise ParseError(f"{source_id}: {where}: price {printed!r} is not positive")
    return price


def field(mapping: dict, key: str, source_id: str, where: str = "") -> Any:
    """mapping[key], or a ParseError naming the missing field (a changed payload, not a crash)."""
    if not isinstance(mapping, dict) or key not in mapping:
        raise ParseError(f"{source_id}: missing field {key!r}{' in ' + where if where else ''}")
    return mapping[key]


def as_list(value: object, what: str, source_id: str) -> list:
    if not isinstance(value, list):
        raise ParseError(f"{source_id}: {what} is {type(value).__name__}, expected a list")
    return value


def list_field(mapping: dict, key: str, source_id: str, where: str = "") -> list:
    """mapping[key] that must be a list: the envelope of most JSON catalogs (`{offers: [...]}`)."""
    return as_list(field(mapping, key, source_id, where), key, source_id)


def node_text(node, separator: str = "") -> str:
    """A parsed HTML node's text with its whitespace collapsed ("" for no node). `separator` goes between the
    node's text pieces: " " keeps words of neighbouring elements apart ("<b>H100</b><i>SXM</i>" -> "H100 SXM")."""
    return " ".join((node.text(deep=True, separator=separator) if node is not None else "").split())
