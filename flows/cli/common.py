"""What every command group shares: source-list arguments and JSON output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from datetime import date, datetime, timedelta
from decimal import Decimal

import duckdb
import yaml

from warehouse.store import db


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
    from scrapers.registry import all_sources  # every source module: imported only by the commands that take sources

    unknown = sorted(set(wanted) - set(all_sources()))
    if unknown:
        raise UsageError(f"unknown source(s): {', '.join(unknown)}; known: {', '.join(sorted(all_sources()))}")
    return wanted


DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
LONGEST_DURATION_S = 100 * 365 * 86400  # past this a duration is a typo (and soon past what timedelta holds)


def duration(text: str) -> timedelta:
    """`26h`, `90m`, `30s`, `2d`, `1.5h` -> a timedelta (argparse type: a bad value is one usage line)."""
    value = text.strip().lower()
    try:
        seconds = float(value[:-1]) * DURATION_UNITS[value[-1:]]
    except (KeyError, ValueError):
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= LONGEST_DURATION_S):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 30s, 15m, 26h or 2d")
    return timedelta(seconds=seconds)


def json_default(value):
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else None
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def finite(value):
    """The value with every float that is not a finite number (NaN, Infinity) as None, in dicts, lists and tuples
    too: JSON has no NaN or Infinity, and a reader (jq, JavaScript, a strict parser) refuses them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def json_text(value, indent: int | None = None) -> str:
    """Every command's --json output: standard JSON (a non-finite number is null; allow_nan=False guards it)."""
    return json.dumps(finite(value), default=json_default, ensure_ascii=False, indent=indent, allow_nan=False)


def print_json_line(row: dict) -> None:
    print(json_text(row))


def unique_names(names: list[str]) -> list[str]:
    """Column names each once, as DuckDB names a subquery's: a repeated name takes the first free `_1`, `_2`...
    (`select 1 as a, 2 as a` -> a, a_1), so a JSON object keeps every column."""
    taken, unique = set(names), []
    for name in names:
        if name in unique:
            number = 1
            while f"{name}_{number}" in taken:
                number += 1
            name = f"{name}_{number}"
            taken.add(name)
        unique.append(name)
    return unique


def positive(kind: type, what: str, at_most: float | None = None):
    """An argparse type: a finite number above 0 (and at most `at_most`); anything else is one usage line."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0 and (at_most is None or value <= at_most)):
            bound = f"in (0, {at_most:g}]" if at_most is not None else "above 0"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} {bound}")
        return value
    return parse


def yaml_mapping(text: str) -> str:
    """An argparse type: YAML that reads as a mapping ('{mfu: 0.35, pue: 1.2}'), returned as written."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not YAML ({one_line(error)})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{text!r} is not a YAML mapping; write e.g. '{{mfu: 0.35, pue: 1.2}}'")
    return text


LONGEST_PART = 300  # characters of one part of an error message (a 50 MB CSV field is quoted in full otherwise)


def clipped(text: str, limit: int = LONGEST_PART) -> str:
    """A long part of a message, its middle left out (the start names the line, the end the reason)."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 3
    return f"{text[:head]}...[{len(text) - head - tail} characters left out]...{text[-tail:]}"


def listed_one_line(error: BaseException) -> str:
    """A file's error on one line: its heading ("nothing loaded; fix these lines:"), then the bad lines it lists
    below it, separated by '; ', each clipped."""
    heading, *listed = [clipped(line.strip()) for line in str(error).splitlines() if line.strip()] or [""]
    if not listed:
        return heading
    return f"{heading}{'' if heading.endswith(':') else ':'} {'; '.join(listed)}"


def read_backtest(read, source: str | None, scored: str) -> tuple[dict | None, int]:
    """A `gpuprices backtest` report from the warehouse, read by read(connection): (report, 0), or (None, status)
    after one line: 2 when the marts are not built yet, 1 when no series is long enough (`scored`: what it is
    long enough for)."""
    try:
        with db.connect(read_only=True) as connection:
            report = read(connection)
    except duckdb.CatalogException as error:
        print(f"gpuprices backtest: the warehouse has no built marts yet ({one_line(error)}); run "
              "`gpuprices run --offline` or `gpuprices build` first", file=sys.stderr)
        return None, 2
    if not report["series"]:
        where = f" from source {source}" if source else ""
        print(f"gpuprices backtest: no price series{where} long enough to {scored} "
              f"({len(report['skipped'])} too short)", file=sys.stderr)
        return None, 1
    return report, 0


def print_table(columns: list[str], rows: list[tuple]) -> None:
    cells = [[("" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
