"""Alert delivery: a generic webhook (JSON body whose `text` Slack-style incoming webhooks accept) and email over
SMTP. Settings come from the environment, read by config/settings.py (secrets never live in the rules file):

- GPUPRICES_ALERT_WEBHOOK_URL (or `webhook_url` under [delivery] in the rules file, for a URL that is not secret);
- GPUPRICES_SMTP_HOST, GPUPRICES_SMTP_PORT (default 587), GPUPRICES_SMTP_USER, GPUPRICES_SMTP_PASSWORD,
  GPUPRICES_SMTP_STARTTLS (1 by default when a user is set), GPUPRICES_SMTP_SSL (SMTPS), GPUPRICES_SMTP_FROM,
  and the recipients in
  GPUPRICES_ALERT_EMAIL_TO or `email_to` under [delivery] (comma-separated).

A delivery is tried up to ATTEMPTS times with a growing pause; a failure is logged in `alerts.deliveries` and the
run report, and never fails the daily run. Every delivery has an overall deadline: one message on one delivery (webhook or email), its
tries and pauses included, GPUPRICES_ALERT_MESSAGE_DEADLINE_S (default 30 s); all of a run's messages,
GPUPRICES_ALERT_RUN_DEADLINE_S (default 120 s), past which the rest are recorded as not sent without a try. Each try
is cut at the deadline whatever the endpoint does (a webhook that never answers, or sends a byte every few seconds
so that no per-read timeout ever trips; an SMTP server that does the same): the webhook's request is cancelled, the
SMTP connection shut down.

The same deliveries carry the operator's notices (send_notices): a source incident opened or recovered
(warehouse/store/incidents.py), with a subject of its own, logged in `alerts.deliveries` under `incident:<id>:<what>`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import smtplib
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from email.message import EmailMessage

import httpx

from analytics.alerts.engine import record_delivery
from analytics.alerts.rules import load_config
from config import settings
from config.redact import redact

ATTEMPTS = 3
SOCKET_TIMEOUT_S = 10  # one connect or read of a try; the try as a whole ends at the message's deadline


class DeliveryDeadline(TimeoutError):
    """A try cut at its message's or run's deadline."""


def _jsonable(value):
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _webhook(url: str, event: dict, deadline_s: float) -> None:
    """POST the event; cancelled at deadline_s whatever the server does (httpx's timeouts are per read: a server
    that sends a byte every few seconds never trips them). On an event loop of its own, in a thread of its own: the
    daily flow calls this from inside its loop."""
    body = {"text": event["message"], "event": {k: _jsonable(v) for k, v in event.items()}}

    async def post() -> None:
        async with httpx.AsyncClient(timeout=min(SOCKET_TIMEOUT_S, deadline_s)) as client:
            try:
                async with asyncio.timeout(deadline_s):
                    response = await client.post(url, content=json.dumps(body),
                                                 headers={"Content-Type": "application/json"})
            except TimeoutError:
                raise DeliveryDeadline(f"no complete answer within {deadline_s:g} s (the delivery deadline)") from None
            response.raise_for_status()

    with ThreadPoolExecutor(1, thread_name_prefix="webhook") as pool:
        pool.submit(asyncio.run, post()).result()


def _email(settings: dict, recipients: list[str], event: dict, deadline_s: float) -> None:
    message = EmailMessage()
    message["Subject"] = event.get("subject") or f"[gpuprices] {event['rule_description']}"
    message["From"] = settings["from"]
    message["To"] = ", ".join(recipients)
    message.set_content(event["message"] + "\n\n" + json.dumps({k: _jsonable(v) for k, v in event.items()}, indent=1))
    # STARTTLS and SMTPS verify the server's certificate and host name (the login password goes over that connection)
    context = ssl.create_default_context()
    timeout = min(SOCKET_TIMEOUT_S, deadline_s)
    # created unconnected, so that the deadline below can shut its socket down from the start (the greeting too)
    if settings["ssl"]:
        connection = smtplib.SMTP_SSL(timeout=timeout, context=context)
    else:
        connection = smtplib.SMTP(timeout=timeout)
    failure: list[BaseException] = []

    def send() -> None:
        try:
            connection.connect(settings["host"], settings["port"])
            with connection as smtp:
                if settings["starttls"] and not settings["ssl"]:
                    smtp.starttls(context=context)
                if settings["user"]:
                    smtp.login(settings["user"], settings["password"])
                smtp.send_message(message)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            failure.append(error)

    sender = threading.Thread(target=send, name="smtp", daemon=True)
    sender.start()
    sender.join(deadline_s)
    if sender.is_alive():  # a server that answers too slowly: its socket is shut down, which ends the blocked read
        with contextlib.suppress(OSError, AttributeError):
            connection.sock.shutdown(socket.SHUT_RDWR)
        sender.join(SOCKET_TIMEOUT_S)
        raise DeliveryDeadline(f"the SMTP exchange did not finish within {deadline_s:g} s (the delivery deadline)")
    if failure:
        raise failure[0]


def _with_retries(send, pause_s: float, secrets: tuple[str, ...] = (), deadline_s: float = 30.0
                  ) -> tuple[int, str | None]:
    """Up to ATTEMPTS tries of send(seconds left), with a growing pause, all within deadline_s."""
    error = None
    deadline = time.monotonic() + deadline_s
    attempts = 0
    for attempt in range(1, ATTEMPTS + 1):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        attempts = attempt
        try:
            send(left)
            return attempt, None
        except Exception as failure:  # noqa: BLE001 - any failure is retried, then logged; never raised
            # httpx puts the webhook URL (its token) into its error text, in its own spelling (host lower-cased,
            # path percent-encoded): redacted by the URL's parts, wherever the URL was configured
            error = redact(f"{type(failure).__name__}: {failure}", also=secrets)
            pause = min(pause_s * attempt, deadline - time.monotonic())
            if attempt < ATTEMPTS and pause > 0:
                time.sleep(pause)
    if not attempts:  # a deadline of 0: nothing was tried, nothing was delivered
        error = f"not sent: no time left within the delivery deadline ({deadline_s:g} s)"
    return attempts, error


def deliver(events: list[dict], delivery: dict) -> list[dict]:
    """Send each event to every configured delivery. Returns one record per (event, delivery)."""
    return _send(events, delivery)


def send_notices(notices: list[dict], delivery: dict | None = None) -> list[dict]:
    """Send each operator notice (`event_id`, `subject`, `message` and its fields) to every configured delivery, as
    alerts are: the rules file's [delivery] unless given, the environment first. One record per (notice, delivery);
    none when no delivery is configured. A rules file that does not read leaves its [delivery] out."""
    if delivery is None:
        try:
            _, delivery = load_config()
        except Exception:  # noqa: BLE001 - a broken rules file must not silence a broken source
            delivery = {}
    return _send(notices, delivery)


def _send(events: list[dict], delivery: dict) -> list[dict]:
    environment = settings.alert_delivery()
    webhook_url = environment.webhook_url or delivery.get("webhook_url")
    recipients = [r.strip() for r in (environment.email_to or delivery.get("email_to") or "").split(",") if r.strip()]
    smtp = {
        "host": environment.smtp_host, "port": environment.smtp_port, "user": environment.smtp_user,
        "password": environment.smtp_password, "starttls": environment.smtp_starttls,
        "ssl": environment.smtp_ssl, "from": environment.smtp_from,
    }
    routes = []  # each delivery the configuration names: webhook, email
    if webhook_url:
        routes.append(("webhook", lambda event, left: _webhook(webhook_url, event, left), (webhook_url,)))
    if recipients and smtp["host"]:
        password = (smtp["password"],) if smtp["password"] else ()
        routes.append(("email", lambda event, left: _email(smtp, recipients, event, left), password))
    limits = settings.alert_deadlines()
    run_deadline = time.monotonic() + limits.run_s
    results = []
    for event in events:
        for route, send, secrets in routes:
            left = run_deadline - time.monotonic()
            if left <= 0:  # the run's deliveries took their time: the rest are recorded, not tried
                attempts, error = 0, (f"not sent: the run's delivery deadline ({limits.run_s:g} s, "
                                      "GPUPRICES_ALERT_RUN_DEADLINE_S) had passed")
            else:
                attempts, error = _with_retries(lambda left, send=send, event=event: send(event, left),
                                                environment.retry_pause_s, secrets, min(limits.message_s, left))
            status = "failed" if error else "delivered"
            record_delivery(event["event_id"], route, status, attempts, error)
            results.append({"event_id": event["event_id"], "delivery": route, "status": status,
                            "attempts": attempts, "error": error})
    return results
