"""Source incidents (warehouse/store/incidents.py): the operator hears when a source breaks, once, and once when it loads
normally again. Runs are raw.ingest_runs rows as a daily run writes them; messages go to a webhook on 127.0.0.1
through the real alert delivery (analytics/alerts/delivery.send_notices)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import serve_in_background

from analytics.alerts.delivery import send_notices
from flows.cli.main import main
from flows.cli.pipeline import print_incidents
from warehouse.store import db, incidents
from warehouse.ingest.load import IngestRecord, record_without_landing
from warehouse.ingest.report import RunReport

DAY0 = datetime(2026, 5, 1, 6, 0, tzinfo=UTC)
SOURCE = "vast"


class Clock:
    """The next day's observation time, one call at a time."""

    def __init__(self):
        self.day = 0

    def next(self) -> datetime:
        self.day += 1
        return DAY0 + timedelta(days=self.day)


def run(source: str, status: str, observed_at: datetime, rows: int = 0, error: str | None = None,
        trigger: str = "daily") -> str:
    """One raw.ingest_runs row, as the daily run writes it. Returns its run id."""
    run_id = f"{source}-{observed_at:%Y%m%dT%H%M%SZ}-{status}"
    record = IngestRecord(
        run_id=run_id, parser_version=1, source=source, status=status, observed_at=observed_at,
        started_at=observed_at, finished_at=observed_at + timedelta(minutes=1),
        rows_loaded=rows if status == "loaded" else 0, error=error, trigger=trigger)
    with db.connect() as connection:
        record_without_landing(connection, record)
    return run_id


@pytest.fixture
def webhook(monkeypatch):
    """A webhook on 127.0.0.1 that records each message; `answer` = the HTTP status it replies with."""

    class Hook:
        messages: list[dict] = []
        answer = 200

    hook = Hook()
    hook.messages = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            if hook.answer == 200:
                hook.messages.append(body)
            self.send_response(hook.answer)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_background(httpd)
    hook.url = f"http://127.0.0.1:{httpd.server_address[1]}/services/T1/B2/HOOKTOKEN4242"
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", hook.url)
    monkeypatch.setenv("GPUPRICES_ALERT_RETRY_PAUSE_S", "0")
    yield hook
    httpd.shutdown()
    httpd.server_close()


def judge(sources=(SOURCE,)) -> dict:
    """The evaluation a daily run makes after its load, with the real delivery."""
    return incidents.evaluate(list(sources), send=send_notices)


def rows() -> list[dict]:
    return incidents.listed(open_only=False)


def good_history(clock: Clock, count: int = 4, offers: int = 100) -> list[str]:
    return [run(SOURCE, "loaded", clock.next(), offers) for _ in range(count)]


def test_two_failures_in_a_row_open_one_incident_with_one_message_and_a_third_sends_none(home, webhook):
    clock = Clock()
    good = good_history(clock)
    judge()
    run(SOURCE, "failed", clock.next(), error="FetchError: HTTP 503 from https://console.vast.ai/api")
    outcome = judge()
    assert outcome["opened"] == [] and webhook.messages == [] and rows() == []  # one failure: not yet
    run(SOURCE, "blocked", clock.next(), error="BlockedError: a captcha page")
    outcome = judge()
    (incident,) = outcome["opened"]
    assert incident["kind"] == "repeated_failure" and incident["last_good_run"] == good[-1]
    assert incident["detail"] == "2 runs in a row did not load (failed, blocked); last error: BlockedError: a captcha page"
    assert len(webhook.messages) == 1 and [m["status"] for m in outcome["messages"]] == ["delivered"]
    assert rows()[0]["notified_at"] is not None
    run(SOURCE, "failed", clock.next(), error="FetchError: HTTP 503")
    outcome = judge()
    assert outcome["opened"] == [] and outcome["messages"] == [] and len(webhook.messages) == 1
    assert [i["incident_id"] for i in outcome["open"]] == ["vast#1"] and len(rows()) == 1


def test_a_parse_error_opens_an_incident_at_once(home, webhook):
    clock = Clock()
    good = good_history(clock, count=1)
    run(SOURCE, "parse_error", clock.next(), error="ParseError: no offers table in the page (layout changed?)")
    (incident,) = judge()["opened"]
    assert incident["kind"] == "parse_error" and incident["last_good_run"] == good[0]
    assert len(webhook.messages) == 1 and "parse_error" in webhook.messages[0]["text"]


def test_under_half_of_the_usual_offers_opens_one_incident(home, webhook):
    clock = Clock()
    run(SOURCE, "loaded", clock.next(), 100)
    run(SOURCE, "loaded", clock.next(), 100)
    run(SOURCE, "loaded", clock.next(), 10)
    assert judge()["opened"] == []  # two loaded runs before it: no usual yet
    run(SOURCE, "loaded", clock.next(), 100)
    run(SOURCE, "loaded", clock.next(), 50)  # exactly half of the usual (median of 100, 100, 10, 100): not under
    assert judge()["opened"] == []
    last_good = run(SOURCE, "loaded", clock.next(), 120)
    run(SOURCE, "loaded", clock.next(), 49)  # usual: median of 100, 100, 10, 100, 50, 120 = 100
    (incident,) = judge()["opened"]
    assert incident["kind"] == "low_offers" and incident["usual_offers"] == 100
    assert incident["detail"] == "loaded 49 offers, under 50% of its usual 100 (the median of its last 6 loaded runs)"
    assert incident["last_good_run"] == last_good
    assert len(webhook.messages) == 1
    run(SOURCE, "loaded", clock.next(), 45)  # still low: the same incident, no message
    assert judge()["opened"] == [] and len(webhook.messages) == 1 and len(rows()) == 1


def test_recovery_sends_one_message_and_closes_the_incident(home, webhook):
    clock = Clock()
    good_history(clock)
    run(SOURCE, "failed", clock.next(), error="FetchError: HTTP 503")
    run(SOURCE, "failed", clock.next(), error="FetchError: HTTP 503")
    judge()
    assert len(webhook.messages) == 1
    back = run(SOURCE, "loaded", clock.next(), 98)
    outcome = judge()
    (closed,) = outcome["closed"]
    assert closed["close_reason"] == "recovered" and closed["closed_run_id"] == back and outcome["open"] == []
    assert len(webhook.messages) == 2
    text = webhook.messages[1]["text"]
    assert text.startswith("gpuprices: source vast recovered: run " + back) and "loaded 98 offers" in text
    assert webhook.messages[1]["event"]["what"] == "recovered"
    (row,) = rows()
    assert row["closed_at"] is not None and row["recovery_notified_at"] is not None
    run(SOURCE, "loaded", clock.next(), 101)
    assert judge() == {"opened": [], "closed": [], "open": [], "messages": [], "notes": []}
    assert len(webhook.messages) == 2


def test_a_lasting_drop_becomes_the_new_usual_and_says_so(home, webhook):
    clock = Clock()
    good_history(clock, count=7)
    for day in range(4):  # judged against the 7 loaded runs before each: 100 is their median while 4 are at 100
        run(SOURCE, "loaded", clock.next(), 40)
        outcome = judge()
        assert [i["kind"] for i in outcome["open"]] == ["low_offers"], day
    run(SOURCE, "loaded", clock.next(), 40)  # the 5th run at 40: 4 of the 7 loaded runs before it are at 40
    (closed,) = judge()["closed"]
    assert closed["close_reason"] == "new_usual"
    assert "now its usual" in webhook.messages[-1]["text"] and "the usual was 100 when it opened" in \
        webhook.messages[-1]["text"]
    assert len(webhook.messages) == 2


def test_the_message_names_source_kind_and_last_good_run_and_no_secret(home, webhook, monkeypatch):
    monkeypatch.setenv("LAMBDA_API_KEY", "sk-lambda-SECRET-31337")
    clock = Clock()
    good = good_history(clock, count=2)
    # an error as an old run stored it, before errors were redacted on the way in: a key, the webhook URL itself
    with db.connect() as connection:
        for status in ("failed", "failed"):
            observed = clock.next()
            connection.execute(
                "INSERT INTO raw.ingest_runs (run_id, parser_version, source, status, observed_at, started_at, "
                "finished_at, duration_s, documents_fetched, bytes_fetched, rows_parsed, rows_loaded, rows_rejected, "
                "error, is_synthetic, trigger) VALUES (?, 1, ?, ?, ?, ?, ?, 60, 0, 0, 0, 0, 0, ?, false, 'daily')",
                [f"vast-{observed:%Y%m%d}", SOURCE, status, observed, observed, observed + timedelta(minutes=1),
                 f"FetchError: HTTP 401 from https://console.vast.ai/api?api_key=sk-lambda-SECRET-31337 "
                 f"(told {webhook.url})"])
    judge()
    (message,) = webhook.messages
    text = message["text"]
    assert text.startswith("gpuprices: source vast is broken (repeated_failure): 2 runs in a row did not load "
                           "(failed, failed); last error: FetchError: HTTP 401 from https://console.vast.ai/api?")
    assert f"Last good run: {good[-1]} (observed {DAY0 + timedelta(days=2):%Y-%m-%d %H:%M} UTC)" in text
    assert "Incident vast#1 opened" in text
    everything = json.dumps(message) + json.dumps(rows(), default=str)
    assert "SECRET-31337" not in everything and "HOOKTOKEN4242" not in everything and "REDACTED" in text


def test_a_failed_delivery_is_one_line_never_fails_the_run_and_is_tried_again(home, webhook, capsys):
    webhook.answer = 500
    clock = Clock()
    good_history(clock, count=1)
    run(SOURCE, "parse_error", clock.next(), error="ParseError: changed")
    report = RunReport(observed_at=clock.next())
    from flows.daily import incidents_stage

    incidents_stage(report, [SOURCE])
    assert report.incidents_error is None
    (failed,) = report.incidents["messages"]
    assert failed["status"] == "failed" and failed["attempts"] == 3 and "500" in failed["error"]
    assert "HOOKTOKEN4242" not in failed["error"]
    print_incidents(report.as_dict())
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if "message failed" in line] == [
        f"incident message failed (vast#1, webhook, 3 attempts): {' '.join(failed['error'].split())}"]
    assert rows()[0]["notified_at"] is None
    webhook.answer = 200  # the channel is back: the next run sends the opening message, once
    judge()
    judge()
    assert len(webhook.messages) == 1 and rows()[0]["notified_at"] is not None


def test_no_delivery_sends_nothing_and_says_so(home, monkeypatch):
    monkeypatch.delenv("GPUPRICES_ALERT_WEBHOOK_URL", raising=False)
    monkeypatch.delenv("GPUPRICES_ALERT_EMAIL_TO", raising=False)
    clock = Clock()
    run(SOURCE, "parse_error", clock.next(), error="ParseError: changed")
    outcome = judge()
    assert [i["incident_id"] for i in outcome["opened"]] == ["vast#1"] and outcome["messages"] == []
    assert outcome["notes"] == [incidents.NO_DELIVERY_NOTE] and "no alert delivery configured" in outcome["notes"][0]
    assert rows()[0]["notified_at"] is None
    report = RunReport(observed_at=clock.next())  # an offline replay adds up its days: the note once
    report.add_incidents(outcome)
    report.add_incidents(judge())
    assert report.incidents["notes"] == [incidents.NO_DELIVERY_NOTE] and len(report.incidents["opened"]) == 1
    assert [i["incident_id"] for i in report.incidents["open"]] == ["vast#1"]


def test_a_skipped_run_and_imports_judge_nothing(home, webhook):
    clock = Clock()
    run(SOURCE, "failed", clock.next(), error="FetchError: reset")
    run(SOURCE, "skipped", clock.next(), error="no key")
    assert judge()["opened"] == []  # the newest run was skipped
    run(SOURCE, "failed", clock.next(), error="FetchError: reset")  # the second failure in a row, skips aside
    assert [i["kind"] for i in judge()["opened"]] == ["repeated_failure"]
    run("keepa-amazon", "quarantined", clock.next(), trigger="import")
    run("keepa-amazon", "quarantined", clock.next(), trigger="import")
    assert judge(["keepa-amazon"])["opened"] == []


def test_status_lists_open_incidents_and_check_fails_on_them(home, webhook, capsys):
    clock = Clock()
    good_history(clock)
    observed = clock.next()
    run(SOURCE, "loaded", observed, 100)
    run("lambda", "loaded", observed, 20)
    judge([SOURCE, "lambda"])
    assert main(["status", "--check", "--max-age", "100000h"]) == 0
    capsys.readouterr()
    low = clock.next()
    run(SOURCE, "loaded", low, 30)  # loaded, so `last run` is fine: only the incident tells
    run("lambda", "loaded", low, 20)
    judge([SOURCE, "lambda"])
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    section = out.split("Open incidents", 1)[1].split("\n\n", 1)[0]
    assert "vast#1" in section and "low_offers" in section and "lambda" not in section
    assert main(["status", "--check", "--max-age", "100000h"]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("vast: open incident vast#1 (low_offers) since ") and "loaded 30 offers" in line
    # closed by hand: no message, gone from status, not reopened by the runs it was closed over
    assert main(["incidents", "close", SOURCE, "--reason", "provider retired its small GPUs"]) == 0
    assert capsys.readouterr().out.startswith("closed vast#1 (low_offers): by hand: provider retired")
    judge([SOURCE, "lambda"])
    assert main(["status", "--check", "--max-age", "100000h"]) == 0
    assert len(webhook.messages) == 1  # the opening one only
    assert main(["incidents", "close", SOURCE, "--reason", "again"]) == 1
    capsys.readouterr()
    run(SOURCE, "loaded", clock.next(), 30)  # a newer run, still under half: the next incident
    assert [i["incident_id"] for i in judge()["opened"]] == ["vast#2"]
    assert main(["incidents", "list", "--all", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(i["incident_id"], i["closed_at"] is None) for i in listed] == [("vast#2", True), ("vast#1", False)]
