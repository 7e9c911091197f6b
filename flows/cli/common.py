"""What every command group shares: source-list arguments and JSON output."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal

from scrapers.registry import all_sources


class UsageError(Exception):
    """A command asked for something that cannot be: printed as one line, exit status 2 (flows/cli/main.py)."""


def one_line(error: BaseException) -> str:
    """An error's message on one line (DuckDB's span several: the error, a hint, the query with a caret)."""
    return " ".join(line.strip() for line in str(error).splitlines() if line.strip())


def source_list(value: str | None) -> list[str] | None:
    """`a,b` -> ['a', 'b'], every id checked against the registry (an unknown one ends the command)."""
    if not value:
        return None
    wanted = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(wanted) - set(all_sources()))
    if unknown:
        raise UsageError(f"unknown source(s): {', '.join(unknown)}; known: {', '.join(sorted(all_sources()))}")
    return wanted


def json_default(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def print_json_line(row: dict) -> None:
    print(json.dumps(row, default=json_default, ensure_ascii=False))
