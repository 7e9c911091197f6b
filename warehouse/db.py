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
