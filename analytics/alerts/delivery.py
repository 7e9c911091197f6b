"""Alert delivery: a generic webhook (JSON body whose `text` Slack-style incoming webhooks accept) and email over
SMTP. Settings come from the environment, read by config/settings.py (secrets never live in the rules file):

- GPUPRICES_ALERT_WEBHOOK_URL (or `webhook_url` under [delivery] in the rules file, for a URL that is not secret);
- GPUPRICES_SMTP_HOST, GPUPRICES_SMTP_PORT (default 587), GPUPRICES_SMTP_USER, GPUPRICES_SMTP_PASSWORD,
  GPUPRICES_SMTP_STARTTLS (1 by default when a user is set), GPUPRICES_SMTP_SSL (SMTPS), GPUPRICES_SMTP_FROM,
  and the recipients in
  GPUPRICES_ALERT_EMAIL_TO or `email_to` under [delivery] (comma-separated).

A delivery is tried up to ATTEMPTS times with a growing pause; a failure is logged in `alerts.deliveries` and the
run report, and never fails the daily run.

The same channels carry the operator's notices (send_notices): a source incident opened or recovered
(warehouse/incidents.py), with a subject of its own, logged in `alerts.deliveries` under `incident:<id>:<what>`.
"""

from __future__ import annotations

import json
import smtplib
import ssl
import time
from decimal import Decimal
from email.message import EmailMessage

import httpx

from analytics.alerts.engine import record_delivery
from analytics.alerts.rules import load_config
from config import settings
from config.redact import redact

ATTEMPTS = 3


def _jsonable(value):
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _webhook(url: str, event: dict) -> None:
    body = {"text": event["message"], "event": {k: _jsonable(v) for k, v in event.items()}}
    response = httpx.post(url, content=json.dumps(body), headers={"Content-Type": "application/json"}, timeout=10)
    response.raise_for_status()


def _email(settings: dict, recipients: list[str], event: dict) -> None:
    message = EmailMessage()
    message["Subject"] = event.get("subject") or f"[gpuprices] {event['rule_description']}"
    message["From"] = settings["from"]
    message["To"] = ", ".join(recipients)
    message.set_content(event["message"] + "\n\n" + json.dumps({k: _jsonable(v) for k, v in event.items()}, indent=1))
    # STARTTLS and SMTPS verify the server's certificate and host name (the login password goes over that channel)
    context = ssl.create_default_context()
    if settings["ssl"]:
        connection = smtplib.SMTP_SSL(settings["host"], settings["port"], timeout=10, context=context)
    else:
        connection = smtplib.SMTP(settings["host"], settings["port"], timeout=10)
    with connection as smtp:
        if settings["starttls"] and not settings["ssl"]:
            smtp.starttls(context=context)
        if settings["user"]:
            smtp.login(settings["user"], settings["password"])
        smtp.send_message(message)


def _with_retries(send, pause_s: float, secrets: tuple[str, ...] = ()) -> tuple[int, str | None]:
    error = None
    for attempt in range(1, ATTEMPTS + 1):
        try:
            send()
            return attempt, None
        except Exception as failure:  # noqa: BLE001 - any failure is retried, then logged; never raised
            # httpx puts the webhook URL (its token) into its error text, in its own spelling (host lower-cased,
            # path percent-encoded): redacted by the URL's parts, wherever the URL was configured
            error = redact(f"{type(failure).__name__}: {failure}", also=secrets)
            if attempt < ATTEMPTS:
                time.sleep(pause_s * attempt)
    return ATTEMPTS, error


def deliver(events: list[dict], delivery: dict) -> list[dict]:
    """Send each event to every configured channel. Returns one record per (event, channel)."""
    return _send(events, delivery)


def send_notices(notices: list[dict], delivery: dict | None = None) -> list[dict]:
    """Send each operator notice (`event_id`, `subject`, `message` and its fields) to every configured channel, as
    alerts are: the rules file's [delivery] unless given, the environment first. One record per (notice, channel);
    none when no channel is configured. A rules file that does not read leaves its [delivery] out."""
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
    channels = []
    if webhook_url:
        channels.append(("webhook", lambda event: _webhook(webhook_url, event), (webhook_url,)))
    if recipients and smtp["host"]:
        password = (smtp["password"],) if smtp["password"] else ()
        channels.append(("email", lambda event: _email(smtp, recipients, event), password))
    results = []
    for event in events:
        for channel, send, secrets in channels:
            attempts, error = _with_retries(lambda send=send, event=event: send(event), environment.retry_pause_s,
                                            secrets)
            status = "failed" if error else "delivered"
            record_delivery(event["event_id"], channel, status, attempts, error)
            results.append({"event_id": event["event_id"], "channel": channel, "status": status,
                            "attempts": attempts, "error": error})
    return results
