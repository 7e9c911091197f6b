"""DuckDB connections to the warehouse file."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import duckdb

from warehouse.paths import database_path
from warehouse.schema import create_raw_schema


@contextlib.contextmanager
def connect(read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    path = database_path()
    if read_only and not path.exists():
        raise FileNotFoundError(f"no warehouse at {path}: run `gpuprices run --offline` (or `gpuprices run`) first")
    connection = duckdb.connect(str(path), read_only=read_only)
    try:
        if not read_only:
            create_raw_schema(connection)
        yield connection
    finally:
        connection.close()


def fetch_dicts(connection: duckdb.DuckDBPyConnection, sql: str, parameters=None) -> list[dict]:
    """Run a query and return its rows as dicts keyed by column name."""
    cursor = connection.execute(sql, parameters) if parameters is not None else connection.execute(sql)
    columns = [column[0] for column in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
