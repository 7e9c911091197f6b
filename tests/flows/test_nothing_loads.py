"""A day on which nothing comes in, with credentials configured: the daily run on a new data home, every request
sent to a proxy that does not answer (no network). The command exits non-zero with one clear line, the site says
"no data yet" and why, the report has each source's error and each stage's duration, and no credential reaches a
file, a table, the site or the console, although one of them travels in a query string."""

from __future__ import annotations

import json
import socket

import pytest
from conftest import everything_left_behind, gpuprices

pytestmark = pytest.mark.slow  # a Prefect flow and a dbt build

FAKE_KEYS = {"BESTBUY_API_KEY": "FAKEbbQUERYkey123", "GCP_API_KEY": "FAKEgcpHEADERkey456",
             "LAMBDA_API_KEY": "FAKElambdaBEARER789", "EBAY_CLIENT_ID": "FAKEebayID111",
             "EBAY_CLIENT_SECRET": "FAKEebaySECRET222"}
SOURCES = ["bestbuy-api", "gcp", "lambda", "ebay", "aws"]


@pytest.fixture(scope="module")
def dead_day(tmp_path_factory):
    with socket.socket() as probe:  # a port where nothing listens: every connection is refused at once
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    home = tmp_path_factory.mktemp("dead-day")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {**FAKE_KEYS, "HTTPS_PROXY": dead, "HTTP_PROXY": dead, "NO_PROXY": "127.0.0.1,localhost",
                            "GPUPRICES_HTTP_MAX_ATTEMPTS": "2", "GPUPRICES_HTTP_BACKOFF_CAP_S": "0.1",
                            "GPUPRICES_SOURCE_RETRIES": "0"}.items():
            patch.setenv(name, value)
        result = gpuprices(home, "run", "--sources", ",".join(SOURCES), check=False)
    return home, result


def test_the_run_exits_non_zero_with_one_line_and_no_traceback(dead_day):
    _, result = dead_day
    assert result.returncode == 1, (result.stdout[-2000:], result.stderr[-2000:])
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: nothing loaded: all 5 source-runs failed or were skipped"], result.stderr[-2000:]


def test_the_site_says_no_data_yet_and_why(dead_day):
    home, _ = dead_day
    index = (home / "site" / "index.html").read_text()
    assert "No data yet" in index
    for source in SOURCES:
        assert f"<td>{source}</td>" in index, source
    assert "ConnectError" in index  # the reason, not just the fact


def test_the_report_has_each_sources_error_and_each_stages_duration(dead_day):
    home, _ = dead_day
    report = json.loads(next((home / "reports").glob("run-*.json")).read_text())
    assert sorted(s["source"] for s in report["sources"]) == sorted(SOURCES)
    assert all(s["status"] in ("failed", "skipped") and s["error"] and "\n" not in s["error"] for s in report["sources"])
    assert {"collect", "build", "dashboard"} <= set(report["stage_seconds"])


def test_no_credential_reaches_a_file_a_table_the_site_or_the_console(dead_day):
    home, result = dead_day
    texts = everything_left_behind(home, result.stdout + result.stderr)
    assert any(name.startswith(str(home / "site")) for name in texts)  # the site was built and is searched
    leaks = [(where, secret) for where, text in texts.items() for secret in FAKE_KEYS.values()
             if secret.encode() in text]
    assert not leaks, leaks[:10]
    # the Best Buy error still names the request, with the key replaced
    (error,) = [s["error"] for s in json.loads(next((home / "reports").glob("run-*.json")).read_text())["sources"]
                if s["source"] == "bestbuy-api"]
    assert "apiKey=REDACTED" in error and "ConnectError" in error, error
