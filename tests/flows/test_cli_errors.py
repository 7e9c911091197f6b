"""Bad input at the command line: one clear line on stderr and a non-zero exit, never a Python traceback; and
`gpuprices sql` cannot reach files unless the user says --allow-files."""

from __future__ import annotations

import pytest
from conftest import gpuprices

pytestmark = pytest.mark.slow  # on the session's offline warehouse


def one_line_error(result, code: int, message: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_sql_cannot_read_or_write_files_without_allow_files(warehouse, tmp_path):
    target = tmp_path / "copied.csv"
    for query in (f"COPY (SELECT 1 AS n) TO '{target}'", "SELECT * FROM read_text('/etc/hostname')",
                  "SET enable_external_access = true"):
        one_line_error(gpuprices(warehouse, "sql", query, check=False), 1, "gpuprices sql:")
    assert not target.exists()
    allowed = gpuprices(warehouse, "sql", "--allow-files", "SELECT count(*) AS n FROM read_text('/etc/hostname')")
    assert "1" in allowed.stdout


def test_a_bad_query_prints_duckdbs_message_on_one_line_and_exits_1(warehouse):
    result = gpuprices(warehouse, "sql", "SELECT * FROM marts.no_such_table", check=False)
    one_line_error(result, 1, "no_such_table")


def test_bad_arguments_end_with_one_clear_line_and_exit_2(warehouse, tmp_path):
    one_line_error(gpuprices(warehouse, "parse", "newegg", "/etc/hostname", check=False), 2, "newegg")
    one_line_error(gpuprices(warehouse, "parse", "newegg", str(tmp_path / "missing.html"), check=False), 2,
                   "missing.html")
    one_line_error(gpuprices(warehouse, "parse", "no-such-source", "/etc/hostname", check=False), 2,
                   "unknown source")
    one_line_error(gpuprices(warehouse, "run", "--sources", "aws,nope", "--no-build", check=False), 2,
                   "unknown source")
    one_line_error(gpuprices(warehouse, "load", "--since", "yesterday", check=False), 2, "yesterday")
    one_line_error(gpuprices(warehouse, "run", "--offline", "--since", "2026-13-01", check=False), 2, "2026-13-01")
    one_line_error(gpuprices(warehouse, "estimat", check=False), 2, "invalid choice")
    one_line_error(gpuprices(tmp_path / "empty-home", "sql", "SELECT 1", check=False), 2, "no warehouse")


def test_a_bad_import_column_map_is_one_line_and_exit_2(tmp_path):
    export = tmp_path / "idealo.csv"
    export.write_text("date,gpu_type,price_eur_lowest\n2025-11-01,RTX 4090,1899.00\n")
    home = tmp_path / "home"
    for columns, message in (("observed_at=date,price=price_eur_lowst,gpu=gpu_type", "price=price_eur_lowst"),
                             ("observed_at=date,prize=price_eur_lowest", "'prize' is not an import column"),
                             ("observed_at:date", "IMPORT_COLUMN=FILE_COLUMN")):
        one_line_error(gpuprices(home, "import", "prices", str(export), "--source", "idealo-history", "--market",
                                 "retail_new", "--currency", "EUR", "--columns", columns, "--no-build", check=False),
                       2, message)
    assert not home.exists()  # nothing written
