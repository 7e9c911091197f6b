"""What every command group shares: source-list arguments and JSON output."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal

from scrapers.registry import all_sources


def source_list(value: str | None) -> list[str] | None:
    """`a,b` -> ['a', 'b'], every id checked against the registry (an unknown one ends the command)."""
    if not value:
        return None
    wanted = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(wanted) - set(all_sources()))
    if unknown:
        raise SystemExit(f"unknown source(s): {', '.join(unknown)}; known: {', '.join(sorted(all_sources()))}")
    return wanted


def json_default(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def print_json_line(row: dict) -> None:
    print(json.dumps(row, default=json_default, ensure_ascii=False))
