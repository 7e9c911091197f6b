"""Alert delivery on bad days: a webhook that fails must not leak its token, and email goes over a verified TLS
channel (STARTTLS or SMTPS) before the password is sent."""

from __future__ import annotations

import smtplib
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import serve_in_background

from analytics.alerts import delivery

EVENT = {"event_id": "cheap-4090@2026-05-01", "rule_description": "RTX 4090 below 1700 USD", "message": "RTX 4090 at 1649"}


@pytest.fixture
def recorded(monkeypatch):
    records = []
    monkeypatch.setattr(delivery, "record_delivery", lambda *row: records.append(row))
    monkeypatch.setenv("GPUPRICES_ALERT_RETRY_PAUSE_S", "0")
    return records


@pytest.fixture
def failing_webhook():
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_background(httpd)
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_failed_webhook_is_recorded_without_its_token(recorded, failing_webhook, monkeypatch):
    url = f"{failing_webhook}/services/T0001/B0002/HOOKSECRET98765"
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", url)
    (result,) = delivery.deliver([EVENT], {})
    assert result["status"] == "failed" and result["attempts"] == 3
    assert "500" in result["error"] and "REDACTED" in result["error"]  # httpx quoted the URL; it is redacted
    assert "HOOKSECRET98765" not in repr(recorded) + repr(result)


# The URL as configured, and how httpx writes it back in its error ("... for url 'http://...'"): a trailing space
# as %20, the host lower-cased, a non-ASCII path percent-encoded. Every token ends in 98765 (no port can: > 65535).
SPELLINGS = {
    "trailing space": "http://127.0.0.1:{port}/services/T0001/B0002/HOOKSECRET98765 ",
    "upper-case host": "http://LOCALHOST:{port}/services/T0001/B0002/HOOKSECRET98765",
    "upper-case scheme and host": "HTTP://LocalHost:{port}/services/T0001/B0002/HOOKSECRET98765",
    "non-ASCII path": "http://127.0.0.1:{port}/services/T0001/B0002/HOOKSÉCRET98765",
    "space in the path": "http://127.0.0.1:{port}/services/T0001/B0002/HOOK SECRET98765",
    "dot segments": "http://127.0.0.1:{port}/services/T0001/B0002/../B0002/HOOKSECRET98765",
    "non-ASCII query": "http://127.0.0.1:{port}/hook?id=ÀBC-SECRET-98765",
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_webhook_url_httpx_rewrites_never_shows_its_token(home, failing_webhook, monkeypatch, capsys, spelling):
    """`gpuprices alerts check` with a webhook that answers 500: the console and alerts.deliveries (and every file
    and table of the data home) say it failed with status 500, never with the token, however httpx spelled the URL."""
    from conftest import everything_left_behind

    from flows.cli import alerts as alerts_cli
    from flows.cli.main import main

    port = failing_webhook.rsplit(":", 1)[1]
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", SPELLINGS[spelling].format(port=port))
    monkeypatch.setenv("GPUPRICES_ALERT_RETRY_PAUSE_S", "0")
    monkeypatch.setattr(alerts_cli, "evaluate", lambda days, rules: [{**EVENT, "price_date": days[0]}])
    assert main(["alerts", "check", "--date", "2026-05-01"]) == 0
    console = capsys.readouterr()
    assert "webhook: failed after 3 attempt(s)" in console.out and "500" in console.out  # httpx's error, quoted
    texts = everything_left_behind(home, console.out + console.err)
    assert "500" in texts["alerts.deliveries.error"].decode()
    leaks = {where for where, text in texts.items() if b"98765" in text or "98765".encode("utf-16-le") in text}
    assert not leaks, {where: texts[where][:300] for where in leaks}


def test_a_secret_url_is_redacted_by_its_parts_in_any_spelling(monkeypatch):
    from config.redact import redact

    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", "https://Hooks.Example.test/services/T1/B2/TOKÉN-98765 ")
    for text in ("for url 'https://hooks.example.test/services/T1/B2/TOK%C3%89N-98765%20'",
                 "for url 'https://hooks.example.test:443/services/T1/B2/./TOK%c3%89N-98765'",
                 "POST /services/T1/B2/tok%C3%A9n-98765 answered 500",
                 "redirected to http://HOOKS.example.test/services/T1/B2/TOKÉN-98765/retry"):
        assert "98765" not in redact(text), text
    # the same host at another path, and other hosts, are left as they are
    assert redact("see https://hooks.example.test/status") == "see https://hooks.example.test/status"
    assert redact("https://example.test/services/T1/B2/x") == "https://example.test/services/T1/B2/x"


class FakeSmtp:
    """Stands in for smtplib.SMTP / SMTP_SSL: records how the channel was secured and refuses the login."""

    calls: list = []

    def __init__(self, host="", port=0, timeout=None, context=None):
        self.context = context

    def connect(self, host, port):
        FakeSmtp.calls.append(("connect", type(self).__name__, self.context))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def starttls(self, context=None):
        FakeSmtp.calls.append(("starttls", context))

    def login(self, user, password):
        raise smtplib.SMTPAuthenticationError(535, f"5.7.8 rejected {user}:{password}".encode())


class FakeSmtpSsl(FakeSmtp):
    pass


@pytest.mark.parametrize("smtps", [False, True])
def test_email_verifies_the_server_certificate_and_never_shows_the_password(recorded, monkeypatch, smtps):
    FakeSmtp.calls = []
    monkeypatch.setattr(delivery.smtplib, "SMTP", FakeSmtp)
    monkeypatch.setattr(delivery.smtplib, "SMTP_SSL", FakeSmtpSsl)
    for name, value in {"GPUPRICES_SMTP_HOST": "smtp.example.test", "GPUPRICES_SMTP_USER": "alerts",
                        "GPUPRICES_SMTP_PASSWORD": "SMTPSECRET55", "GPUPRICES_ALERT_EMAIL_TO": "buyer@example.test",
                        "GPUPRICES_SMTP_SSL": "1" if smtps else "0"}.items():
        monkeypatch.setenv(name, value)
    (result,) = delivery.deliver([EVENT], {})
    contexts = [call[-1] for call in FakeSmtp.calls if call[-1] is not None]
    assert contexts and all(c.verify_mode == ssl.CERT_REQUIRED and c.check_hostname for c in contexts)
    connected = {call[1] for call in FakeSmtp.calls if call[0] == "connect"}
    assert connected == ({"FakeSmtpSsl"} if smtps else {"FakeSmtp"})
    assert any(call[0] == "starttls" for call in FakeSmtp.calls) is not smtps  # SMTPS needs no STARTTLS
    assert result["status"] == "failed" and "SMTPAuthenticationError" in result["error"]
    assert "SMTPSECRET55" not in result["error"]


# -- deadlines -------------------------------------------------------------------------------------------------------
TRICKLE_FOR_S = 20  # how long the slow endpoints below keep a try going (a byte every 0.3 s), then give up


@pytest.fixture
def trickling_webhook():
    """Answers 200 with a body that comes one byte every 0.3 s for TRICKLE_FOR_S: no read ever waits 10 s."""
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", str(int(TRICKLE_FOR_S / 0.3)))
            self.end_headers()
            for _ in range(int(TRICKLE_FOR_S / 0.3)):
                try:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.3)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    serve_in_background(httpd)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/hook"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def trickling_smtp():
    """An SMTP server whose greeting comes one byte every 0.3 s for TRICKLE_FOR_S (never a line's end)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=greet, args=(client,), daemon=True).start()

    def greet(client):
        with client:
            for _ in range(int(TRICKLE_FOR_S / 0.3)):
                if stop.is_set():
                    return
                try:
                    client.sendall(b"2")
                except OSError:
                    return
                time.sleep(0.3)

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()


def test_a_webhook_that_trickles_is_cut_at_the_message_deadline(recorded, trickling_webhook, monkeypatch):
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", trickling_webhook)
    monkeypatch.setenv("GPUPRICES_ALERT_MESSAGE_DEADLINE_S", "1")
    started = time.monotonic()
    (result,) = delivery.deliver([EVENT], {})
    # cut at the deadline (one try takes it all), not after the endpoint's 20 s, nor 3 x 20 s
    assert time.monotonic() - started < 8
    assert result["status"] == "failed" and "delivery deadline" in result["error"], result


def test_an_smtp_server_that_trickles_is_cut_at_the_message_deadline(recorded, trickling_smtp, monkeypatch):
    for name, value in {"GPUPRICES_SMTP_HOST": "127.0.0.1", "GPUPRICES_SMTP_PORT": str(trickling_smtp),
                        "GPUPRICES_ALERT_EMAIL_TO": "buyer@example.test",
                        "GPUPRICES_ALERT_MESSAGE_DEADLINE_S": "1"}.items():
        monkeypatch.setenv(name, value)
    started = time.monotonic()
    (result,) = delivery.deliver([EVENT], {})
    assert time.monotonic() - started < 8
    assert result["status"] == "failed" and "delivery deadline" in result["error"], result


def test_a_run_of_many_events_is_held_no_longer_than_its_deadline(recorded, trickling_webhook, monkeypatch):
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", trickling_webhook)
    monkeypatch.setenv("GPUPRICES_ALERT_MESSAGE_DEADLINE_S", "1")
    monkeypatch.setenv("GPUPRICES_ALERT_RUN_DEADLINE_S", "2.5")
    events = [{**EVENT, "event_id": f"cheap-4090@2026-05-{day:02d}"} for day in range(1, 14)]  # the 13
    started = time.monotonic()
    results = delivery.deliver(events, {})
    assert time.monotonic() - started < 10  # 13 x 20 s (or 13 x 30 s of timeouts) before
    assert len(results) == 13 and all(result["status"] == "failed" for result in results)
    tried = [result for result in results if result["attempts"]]
    assert 2 <= len(tried) <= 4, results  # ~2.5 s of 1-s messages
    assert all("run's delivery deadline" in result["error"] for result in results[len(tried):])
    assert [row[0] for row in recorded] == [event["event_id"] for event in events]  # every one recorded


def test_a_deadline_that_leaves_no_time_sends_nothing_and_says_so(recorded, failing_webhook, monkeypatch):
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", failing_webhook)
    monkeypatch.setenv("GPUPRICES_ALERT_MESSAGE_DEADLINE_S", "0")
    (result,) = delivery.deliver([EVENT], {})
    assert (result["status"], result["attempts"]) == ("failed", 0) and "not sent" in result["error"], result


def test_a_deliveries_table_of_the_old_layout_keeps_its_rows_under_the_word_delivery():
    """`channel` is cloud | marketplace | retail only (issue 41 part 3): an alert's route is its `delivery`."""
    import duckdb

    from analytics.alerts.engine import ensure_schema

    with duckdb.connect() as connection:
        connection.execute("CREATE SCHEMA alerts; CREATE TABLE alerts.deliveries (event_id VARCHAR NOT NULL, "
                           "channel VARCHAR NOT NULL, status VARCHAR NOT NULL, attempts INTEGER NOT NULL, error VARCHAR, "
                           "finished_at TIMESTAMPTZ NOT NULL)")
        connection.execute("INSERT INTO alerts.deliveries VALUES ('e1', 'webhook', 'delivered', 1, NULL, now())")
        ensure_schema(connection)
        ensure_schema(connection)  # once renamed, again is nothing
        assert connection.execute("SELECT event_id, delivery FROM alerts.deliveries").fetchall() == [("e1", "webhook")]
        columns = {row[0] for row in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'deliveries'").fetchall()}
        assert "channel" not in columns
