"""`gpuprices sql`: a read-only query on the warehouse (files only with --allow-files)."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

from config.settings import data_home
from flows.cli.common import one_line, print_json_line, print_table, unique_names
from warehouse.store import db


def cmd_sql(args) -> int:
    if not args.query.strip():
        print('gpuprices sql: no query given: gpuprices sql "select ..."', file=sys.stderr)
        return 2
    with db.connect(read_only=True) as connection:
        if not args.allow_files:
            # read-only means the warehouse only: no COPY TO a path, no read_text('/etc/...'), and no SET to undo it
            connection.execute("SET enable_external_access = false")
            connection.execute("SET lock_configuration = true")
        else:
            connection.execute(f"SET file_search_path = '{file_search_path()}'")
        try:
            result = connection.execute(args.query)
            if result is None:  # only comments: DuckDB runs nothing and returns no result
                print("gpuprices sql: the query holds no SQL statement", file=sys.stderr)
                return 2
            columns = [c[0] for c in result.description] if result.description else []
            rows = result.fetchall() if columns else []
        except duckdb.Error as error:
            print(f"gpuprices sql: {one_line(error)}", file=sys.stderr)
            return 1
    if args.json:
        keys = unique_names(columns)  # `select 1 as a, 2 as a`: both columns, as a and a_1
        for row in rows:
            print_json_line(dict(zip(keys, row, strict=True)))
        return 0
    print_table(columns, rows)
    return 0


def file_search_path() -> str:
    """Where `sql --allow-files` looks for a file named by a relative path (DuckDB's file_search_path): the current
    directory, then the data home, so `'export/<mart>/*/*.parquet'` reads the Parquet export from anywhere. A glob
    matches in both (a directory named like the export in the current directory adds its files too). Writes (COPY
    TO) stay relative to the current directory. A path with a comma cannot be listed and is left out."""
    folders = dict.fromkeys(str(folder) for folder in (Path.cwd(), data_home()))
    return ",".join(folder for folder in folders if "," not in folder).replace("'", "''")


def register(commands) -> None:
    sql = commands.add_parser("sql", help="run a read-only SQL query on the warehouse")
    sql.add_argument("query")
    sql.add_argument("--json", action="store_true", help="print JSON lines")
    sql.add_argument("--allow-files", action="store_true",
                     help="let the query read and write files (read_csv, COPY TO...); a relative path is also looked "
                          "for in the data home ('export/<mart>/*/*.parquet'); off by default")
    sql.set_defaults(func=cmd_sql)
