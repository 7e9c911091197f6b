"""What a careless user types or feeds in ends in one clear line on stderr and a non-zero exit, never a Python
traceback: huge CSV fields, absurd prices and times, deeply nested JSON, a file that is not UTF-8 text, an empty
query, an impossible date, a port that is taken, an estimate of zero GPUs. And every `--json` output is JSON a
strict reader takes: no NaN, no Infinity, no column lost to another of the same name.

The commands run in-process (flows.cli.main.main, as the console script runs it): an exception that escapes is
the traceback a user would see, and fails the test."""

from __future__ import annotations

import json
import os
import socket
import sys

import duckdb
import pytest

from conftest import ROOT
from flows.cli.main import main
from warehouse.store import db

FIFTY_MB = 50 * 1024 * 1024
HEADER = "observed_at,gpu,market,price,currency,title\n"
QUOTES_HEADER = "date,gpu,low,high,currency,source_note\n"


def run(capsys, *args: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `gpuprices ARGS`."""
    try:
        code = main(list(args))
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(result: tuple[int, str, str], *expected: str, code: int | None = None) -> str:
    status, _, err = result
    assert status != 0 if code is None else status == code, (status, err[:2000])
    assert "Traceback" not in err, err[:2000]
    assert len(err.strip().splitlines()) == 1, err[:2000]
    assert len(err) < 4000, f"{len(err)} characters of stderr"  # a 50 MB field is not quoted whole
    for text in expected:
        assert text in err, (text, err[:2000])
    return err


@pytest.fixture
def empty_warehouse(home):
    with db.connect():  # the warehouse file with its raw schema, nothing loaded
        pass
    return home


def strict_json(text: str):
    """JSON as a strict reader (jq, JavaScript's JSON.parse) reads it: NaN and Infinity are errors."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


# -- import prices ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["extra field", "header", "gpu column"])
def test_a_50_mb_csv_field_is_one_line(home, tmp_path, capsys, where):
    field = "x" * FIFTY_MB
    text = {"extra field": HEADER + f"2025-03-01,RTX 4090,retail_new,1599,USD,t,{field}\n",
            "header": field + "\n2025-03-01\n",
            "gpu column": HEADER + f"2025-03-01,{field},retail_new,1599,USD,t\n"}[where]
    history = tmp_path / "history.csv"
    history.write_text(text)
    del text, field
    err = one_line_error(run(capsys, "import", "prices", str(history), "--source", "shop-history", "--no-build"),
                         "history.csv", code=2)
    if where == "gpu column":  # the bad line is named, its 50 MB never read whole (GPUPRICES_IMPORT_MAX_LINE_BYTES)
        assert "line 2: longer than 1,048,576 bytes" in err


@pytest.mark.parametrize("price", ["1e20", "1e308"])
def test_an_absurd_price_is_one_line(home, tmp_path, capsys, price):
    history = tmp_path / "history.csv"
    history.write_text(HEADER + f"2025-03-01,RTX 4090,retail_new,{price},USD,t\n")
    one_line_error(run(capsys, "import", "prices", str(history), "--source", "shop-history", "--no-build"),
                   f"line 2: price '{price}'", code=2)
    assert not (home / "gpuprices.duckdb").exists()  # nothing written


@pytest.mark.parametrize("observed_at", ["0001-01-01T00:00:00+05:00", "0001-01-01T00:30:00-01:00",
                                         "9999-12-31T23:59:59-05:00", "9999-12-31T20:00:00+01:00"])
def test_a_time_at_the_edge_of_what_python_holds_is_one_line(home, tmp_path, capsys, observed_at):
    history = tmp_path / "history.csv"
    history.write_text(HEADER + f"{observed_at},RTX 4090,retail_new,1599,USD,t\n")
    one_line_error(run(capsys, "import", "prices", str(history), "--source", "shop-history", "--no-build"),
                   f"line 2: observed_at '{observed_at}'", code=2)


@pytest.mark.parametrize("document", [
    "[" * 100_000 + "]" * 100_000,
    '{"gpu_name": "RTX 4090", "prices": {"2025-01-01T00:00:00Z": ' + "[" * 100_000 + "]" * 100_000 + "}}",
])
def test_deeply_nested_keepa_json_is_one_line(home, tmp_path, capsys, document):
    export = tmp_path / "keepa.json"
    export.write_text(document)
    one_line_error(run(capsys, "import", "prices", str(export), "--source", "keepa-amazon", "--format", "keepa",
                       "--no-build"), "keepa.json", "nested too deeply", code=2)


# -- quotes ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    (QUOTES_HEADER + "2026-01-05,A100 80GB SXM,100k,200k,CNY,broker café\n").encode("latin-1"),
    bytes(range(256)) * 8,
])
def test_a_quotes_file_that_is_not_utf8_is_one_line(home, tmp_path, capsys, body):
    quotes = tmp_path / "quotes.csv"
    quotes.write_bytes(body)
    one_line_error(run(capsys, "quotes", "load", str(quotes), "--no-build"), "quotes.csv", "not UTF-8", code=2)


@pytest.mark.parametrize("amount", ["9" * 21, "9" * 29, "1" + "0" * 30 + "万"])
def test_a_huge_quote_is_one_line_and_loads_nothing(home, tmp_path, capsys, amount):
    quotes = tmp_path / "quotes.csv"
    quotes.write_text(QUOTES_HEADER + f"2026-01-05,A100 80GB SXM,{amount},{amount},CNY,broker\n")
    one_line_error(run(capsys, "quotes", "load", str(quotes), "--no-build"), "quotes.csv", code=2)
    if (home / "gpuprices.duckdb").exists():
        with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
            assert connection.execute("select count(*) from raw.quotes").fetchone()[0] == 0


def test_a_50_mb_field_in_a_quotes_file_is_one_line(home, tmp_path, capsys):
    quotes = tmp_path / "quotes.csv"
    quotes.write_text(QUOTES_HEADER + "2026-01-05,A100 80GB SXM,100k,200k,CNY," + "x" * FIFTY_MB + "\n")
    one_line_error(run(capsys, "quotes", "load", str(quotes), "--no-build"), "quotes.csv", code=2)


# -- sql -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "-- only a comment"])
def test_sql_without_a_statement_is_one_line(empty_warehouse, capsys, query):
    one_line_error(run(capsys, "sql", query), "gpuprices sql:", code=2)


def test_sql_json_keeps_repeated_column_names_apart(empty_warehouse, capsys):
    code, out, _ = run(capsys, "sql", "--json", "select 1 as a, 2 as a, 3 as a_1, 4 as a")
    assert code == 0
    assert strict_json(out) == {"a": 1, "a_2": 2, "a_1": 3, "a_3": 4}  # DuckDB's own way: the first free _N


def test_sql_json_never_prints_nan_or_infinity(empty_warehouse, capsys):
    code, out, _ = run(capsys, "sql", "--json", "select 'nan'::double as n, 'inf'::double as i, -'inf'::double as m, "
                                                "[1.5, 'nan'::double] as l, {'x': 'inf'::float} as s, 2.5 as ok")
    assert code == 0
    assert strict_json(out) == {"n": None, "i": None, "m": None, "l": [1.5, None], "s": {"x": None}, "ok": "2.5"}


# -- alerts, build, dashboard ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("day", ["2026-13-45", "2026-02-30", "tomorrow"])
def test_alerts_check_on_an_impossible_date_is_one_line(home, capsys, day):
    one_line_error(run(capsys, "alerts", "check", "--date", day), day, code=2)


@pytest.mark.parametrize("variables", ["notamapping", "[1, 2]", "{mfu: 0.35", "42"])
def test_build_vars_that_are_not_a_mapping_is_one_line(home, capsys, variables):
    one_line_error(run(capsys, "build", "--vars", variables), "--vars", code=2)
    assert not (home / "gpuprices.duckdb").exists()  # refused before the build opened anything


@pytest.fixture
def site(home):
    (home / "site").mkdir(parents=True)
    (home / "site" / "index.html").write_text("<html></html>")
    return home / "site"


def test_dashboard_serve_on_a_taken_port_is_one_line(site, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line_error(run(capsys, "dashboard", "serve", "--port", str(port)), f"127.0.0.1:{port}", code=1)


@pytest.mark.parametrize("port", ["65536", "99999", "-1", "http"])
def test_dashboard_serve_on_an_invalid_port_is_one_line(site, capsys, port):
    one_line_error(run(capsys, "dashboard", "serve", "--port", port), "--port", code=2)


# -- explain ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arguments, named", [
    (["price", "h100", "--date", "2026-02-30"], "2026-02-30"),
    (["price", "h100", "--market", "rental"], "unknown market 'rental'"),
    (["index", "h100", "--days", "0"], "'0' is not a number of days"),
    (["index", "h100", "--market", "spot", "--date", "tomorrow"], "tomorrow"),
    (["training"], "model"),
])
def test_explain_refuses_what_it_cannot_explain_in_one_line(empty_warehouse, capsys, arguments, named):
    one_line_error(run(capsys, "explain", *arguments), named, code=2)


@pytest.mark.parametrize("what", [["price", "h100"], ["index", "h100"], ["training", "llama-3.1-70b"]])
def test_explain_before_any_build_is_one_line(empty_warehouse, capsys, what):
    one_line_error(run(capsys, "explain", *what), "no built marts yet", code=2)


def test_explain_without_a_warehouse_is_one_line(home, capsys):
    one_line_error(run(capsys, "explain", "price", "h100"), "no warehouse", code=2)


# -- estimate --------------------------------------------------------------------------------------------------------


def test_estimate_validate_on_a_binary_file_is_one_line(home, tmp_path, capsys):
    binary = tmp_path / "runs.csv"
    binary.write_bytes(bytes(range(256)) * 64)
    one_line_error(run(capsys, "estimate", "--validate", str(binary)), "runs.csv", "not UTF-8", code=2)


def test_estimate_validate_refuses_a_reported_figure_that_is_not_finite(home, tmp_path, capsys):
    runs = tmp_path / "runs.csv"
    runs.write_text("model,gpu_type,params_total_b,training_tokens_t,gpu_hours_reported\n"
                    "Llama 3.1 8B,H100-80GB,8,15,nan\n")
    one_line_error(run(capsys, "estimate", "--validate", str(runs), "--json"), "not a finite number", code=2)


@pytest.mark.parametrize("arguments", [
    ["--mfu", "0"], ["--mfu", "1.5"], ["--mfu", "-0.3"], ["--mfu", "nan"], ["--mfu", "inf"],
    ["--gpus", "0"], ["--gpus=-8"], ["--tokens-per-second", "0"], ["--tokens-per-second=-5"],
    ["--tokens-per-second", "nan"], ["--tokens-per-second", "inf"], ["--prompt-tokens", "0"],
    ["--output-tokens=-1"], ["--sequence-length", "0"], ["--layers=-2"],
    ["--tokens", "0T"], ["--tokens", "1e400"], ["--params", "0B"], ["--params", "1e999T"],
    # past what the formulas' SQL types hold: a traceback (a cast of 2e20 GPU-hours to BIGINT) on a built warehouse
    ["--params", "1e30"], ["--tokens", "1e30"], ["--params", "2000T"],
])
def test_estimate_refuses_what_no_run_can_be(home, capsys, arguments):
    base = ["estimate", "--params", "7B", "--tokens", "1T", "--gpu", "H100-80GB"]
    replaced = {argument.split("=")[0] for argument in arguments if argument.startswith("--")}
    kept = [value for index, value in enumerate(base)
            if not (value in replaced or (index and base[index - 1] in replaced))]
    option = arguments[0].split("=")[0]
    one_line_error(run(capsys, *kept, *arguments, "--json"), option, code=2)  # named: not "no warehouse"
    assert not (home / "gpuprices.duckdb").exists()  # refused before the warehouse was read


# -- ranges and paths that name nothing ------------------------------------------------------------------------------


@pytest.mark.parametrize(("arguments", "expected"), [
    (["--since", "2026-05-01", "--until", "2026-04-01"], "--since 2026-05-01 is after --until 2026-04-01"),
    (["--since", "2027-05-01"], "after the last bundled day"),
    (["--until", "2020-01-01"], "before the first bundled day"),
])
def test_an_offline_run_over_no_bundled_day_is_one_line(home, capsys, arguments, expected):
    one_line_error(run(capsys, "run", "--offline", *arguments), expected, code=2)
    assert not (home / "gpuprices.duckdb").exists()  # refused before anything ran


def test_backfill_from_a_folder_that_is_no_clone_is_one_line(home, tmp_path, capsys):
    one_line_error(run(capsys, "backfill", "skypilot", "--repo", "/nonexistent"), "no such folder", code=2)
    one_line_error(run(capsys, "backfill", "skypilot", "--repo", str(tmp_path)), "not a git repository", code=2)


@pytest.mark.parametrize("kept_bytes", [0, 100, 5000])
@pytest.mark.parametrize("command", [["status", "--check"], ["status"], ["sql", "select 1"], ["build"]])
def test_a_cut_short_warehouse_file_is_one_line(empty_warehouse, capsys, command, kept_bytes):
    database = empty_warehouse / "gpuprices.duckdb"
    database.write_bytes(database.read_bytes()[:kept_bytes] if kept_bytes else b"")
    one_line_error(run(capsys, *command), "gpuprices.duckdb cannot be read", code=1)


@pytest.mark.parametrize("manifest", ["[]", "null", "{}", '{"partitions": [], "files": []}'])
def test_an_export_manifest_of_another_shape_is_no_traceback(empty_warehouse, capsys, monkeypatch, manifest):
    from warehouse.store import export

    monkeypatch.setattr(export, "EXPORTED_MARTS", ("gpu_prices_daily",))
    with db.connect() as connection:
        connection.execute("CREATE TABLE marts.gpu_prices_daily AS SELECT DATE '2026-04-01' AS price_date, 1 AS x")
    assert run(capsys, "export")[0] == 0
    current = (empty_warehouse / "export" / "gpu_prices_daily").resolve()
    (current.parent / f".{current.name}.json").write_text(manifest)
    status, out, err = run(capsys, "export")
    assert status == 0 and "Traceback" not in err and out.strip().endswith("gpu_prices_daily"), (status, err)


# -- --json everywhere -----------------------------------------------------------------------------------------------


def test_json_output_has_no_nan_or_infinity():
    from flows.cli.common import json_text

    value = {"a": float("nan"), "b": [float("inf"), -float("inf"), 1.0], "c": ({"d": float("nan")},)}
    assert strict_json(json_text(value)) == {"a": None, "b": [None, None, 1.0], "c": [{"d": None}]}


def test_a_reader_that_goes_away_is_no_traceback(tmp_path):
    """`gpuprices sql ... | head`: the pipe closes early; the command ends quietly (status 1), no traceback."""
    import subprocess

    command = ("import sys; from flows.cli.main import main; from warehouse.store import db\n"
               "with db.connect():\n    pass\n"  # an empty warehouse to query
               "sys.exit(main(['sql', 'select range from range(100000)']))")
    child = subprocess.Popen([sys.executable, "-c", command], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={**os.environ, "GPUPRICES_HOME": str(tmp_path)})
    child.stdout.readline()
    child.stdout.close()  # the reader goes away
    stderr = child.stderr.read().decode()
    assert child.wait() == 1
    assert "Traceback" not in stderr
