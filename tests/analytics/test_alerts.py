"""Price alerts end to end: watch rules in a file, the offline replay of 30 days in which the (made-up, labelled)
Micro Center RTX 4090 price falls 1%/day for 9 days, rises 1.1%/day for 10, then falls 1.7%/day to a new low
(dev/recordings/retail_scenario.py), evaluated after the build, delivered to a webhook receiver and an SMTP server on
127.0.0.1. Which alerts fire, and on which day, follows from that scenario (derivations beside each assertion)."""

from __future__ import annotations

import json
import socket
from datetime import date, timedelta
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import gpuprices, serve_in_background

pytestmark = pytest.mark.slow  # an offline run, a browser or a Prefect flow: `pytest -m "not slow"` skips it


class Receiver:
    """A webhook receiver on 127.0.0.1 that keeps every JSON body it is sent."""

    def __init__(self):
        self.bodies: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length", 0))
                receiver.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        serve_in_background(self.server)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture
def smtp_server():
    from aiosmtpd.controller import Controller
    from aiosmtpd.handlers import Message

    class Keep(Message):
        def __init__(self):
            super().__init__()
            self.messages = []

        def handle_message(self, message):
            self.messages.append(message)

    with socket.socket() as probe:  # a free port (aiosmtpd's readiness check cannot use port 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    handler = Keep()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield port, handler
    controller.stop()


# The microcenter scenario is a made-up page (a documented-format recording): a made-up figure heads no answer
# (docs/analytics.md#market-prices), so the rules watch every provider's lowest price (include_suspect).
RULES = """
[[rules]]
name = "4090-under-1700"
gpu = "RTX 4090"
market = "retail_new"
include_suspect = true
condition = "below"
price = "1700"
currency = "USD"

[[rules]]
name = "4090-new-low"
gpu = "rtx-4090-24gb"
market = "retail_new"
include_suspect = true
condition = "new_low"

[[rules]]
name = "4090-drop-5"
gpu = "RTX 4090 24GB"
market = "retail_new"
include_suspect = true
condition = "drop"
percent = "5"

[[rules]]
name = "4090-under-1500-eur"
gpu = "RTX 4090"
market = "retail_new"
include_suspect = true
condition = "below"
price = "1500"
currency = "EUR"
"""
# A rule an older `alerts add` accepted (or a hand edit): before, its cast failed every `alerts check`, so no rule fired
BAD_RULE = """
[[rules]]
name = "4090-under-1e400"
gpu = "RTX 4090"
market = "retail_new"
condition = "below"
price = "1e400"
currency = "USD"
"""


def test_a_month_of_falling_rising_falling_prices_fires_each_alert_once_per_episode(home, monkeypatch, smtp_server):
    smtp_port, mailbox = smtp_server
    receiver = Receiver()
    home.mkdir(parents=True, exist_ok=True)
    rules = home / "alerts.toml"
    rules.write_text(RULES + BAD_RULE)
    monkeypatch.setenv("GPUPRICES_ALERTS", str(rules))
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", receiver.url)
    monkeypatch.setenv("GPUPRICES_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("GPUPRICES_SMTP_PORT", str(smtp_port))
    monkeypatch.setenv("GPUPRICES_SMTP_STARTTLS", "0")
    monkeypatch.setenv("GPUPRICES_ALERT_EMAIL_TO", "buyer@example.test")
    run = gpuprices(home, "run", "--offline", "--sources", "microcenter,ecb-fx", "--no-export")
    said = run.stdout + run.stderr
    assert "alert rule skipped" in said and "4090-under-1e400" in said and "out of range" in said

    events = [
        json.loads(line) for line in gpuprices(home, "sql", "--json", """
            select rule_name, cast(price_date as varchar) as day, price_usd, reference_usd, provider, offer_url,
                   is_synthetic from alerts.alert_events order by price_date, rule_name""").stdout.splitlines()]
    fired = {}
    for event in events:
        fired.setdefault(event["rule_name"], []).append(event["day"])
    # $1,799.99 x factor: under $1,700 from day 6 (0.94: $1,691.99), cleared on day 13 (0.954: $1,717.19),
    # under again on day 24 (0.935: $1,682.99)
    assert fired["4090-under-1700"] == ["2026-04-08", "2026-04-26"]
    # lower than every earlier day from day 1 to 9 (one episode), then again on day 26 (0.901 < 0.91 of day 9)
    assert fired["4090-new-low"] == ["2026-04-03", "2026-04-28"]
    # 1%/day never puts a day 5% under the median of the 7 before it; on day 24 the median of days 17-23 is 0.998
    # and 0.935 is 6.3% under it (day 23: 0.952 vs 0.998, 4.6%: not yet)
    assert fired["4090-drop-5"] == ["2026-04-26"]
    assert all(e["provider"] == "microcenter" and e["is_synthetic"] for e in events)
    assert all(e["offer_url"].startswith("https://www.microcenter.com/product/") for e in events)

    # the EUR threshold is converted at the ECB rate of each day (as-of: weekends use Friday's rate)
    eur_rows = [json.loads(line) for line in gpuprices(home, "sql", "--json", """
        select e.reference_usd, r.usd_per_unit from alerts.alert_events e
        join intermediate.int_fx_rates__daily r on r.currency = 'EUR' and r.rate_date = (
            select max(rate_date) from intermediate.int_fx_rates__daily where currency = 'EUR'
            and rate_date <= e.price_date)
        where e.rule_name = '4090-under-1500-eur'""").stdout.splitlines()]
    assert eur_rows
    for row in eur_rows:
        assert float(row["reference_usd"]) == pytest.approx(1500 * float(row["usd_per_unit"]))

    # every event reached the webhook (Slack-style `text`) and the mailbox, once
    assert sorted(b["event"]["event_id"] for b in receiver.bodies) == sorted(
        f"{e['rule_name']}@{e['day']}" for e in events)
    assert all(b["event"]["gpu_id"] == "rtx-4090-24gb" and "SYNTHETIC" in b["text"] for b in receiver.bodies)
    assert len(mailbox.messages) == len(events)
    assert {m["To"] for m in mailbox.messages} == {"buyer@example.test"}

    # evaluating a day again fires nothing new (each day is evaluated once per rule)
    assert "0 alert(s) fired on 2026-04-26" in gpuprices(home, "alerts", "check", "--date", "2026-04-26").stdout
    again = gpuprices(home, "sql", "--json", "select count(*) as n from alerts.alert_events").stdout
    assert json.loads(again)["n"] == len(events)
    assert len(receiver.bodies) == len(events)


def test_rules_cli_and_a_failed_delivery_that_is_retried_logged_and_never_fails_the_run(home, monkeypatch):
    home.mkdir(parents=True, exist_ok=True)
    rules = home / "alerts.toml"
    # the microcenter scenario is made up: the rule watches every provider's lowest (include_suspect)
    rules.write_text('[[rules]]\nname = "any-4090"\ngpu = "RTX 4090"\nmarket = "retail_new"\ninclude_suspect = true\n'
                     'condition = "below"\nprice = "100000"\ncurrency = "USD"\n')
    monkeypatch.setenv("GPUPRICES_ALERTS", str(rules))
    monkeypatch.setenv("GPUPRICES_ALERT_WEBHOOK_URL", "http://127.0.0.1:9/nothing-listens-here")
    result = gpuprices(home, "run", "--offline", "--sources", "microcenter", "--since", "2026-05-01", "--no-export")
    assert "alert delivery failed (webhook, 3 attempts)" in result.stdout  # and the run still exits 0
    deliveries = [json.loads(line) for line in gpuprices(home, "sql", "--json",
                  "select delivery, status, attempts, error from alerts.deliveries").stdout.splitlines()]
    assert deliveries and all(d["status"] == "failed" and d["attempts"] == 3 and d["error"] for d in deliveries)
    report = sorted((home / "reports").glob("run-*.json"))[-1]
    assert json.loads(report.read_text())["alert_deliveries"][0]["status"] == "failed"

    added = gpuprices(home, "alerts", "add", "h100", "--gpu", "H100-80GB", "--market", "on_demand", "--below", "2.5",
                      "--currency", "eur").stdout
    assert "h100-sxm5-80gb" in added  # the alias resolved as the estimator resolves it
    assert "h100" in gpuprices(home, "alerts", "list").stdout
    for bad, reason in ((["--gpu", "XYZ 9000", "--new-low"], "unknown GPU"),
                        (["--gpu", "RTX 4090", "--below", "-3"], "positive price"),
                        (["--gpu", "RTX 4090", "--drop", "150"], "percent"),
                        (["--gpu", "RTX 4090"], "say when")):
        result = gpuprices(home, "alerts", "add", "x", *bad, check=False)
        assert result.returncode == 2 and reason in result.stderr, (bad, result.stderr)
    gpuprices(home, "alerts", "remove", "h100")
    gpuprices(home, "alerts", "remove", "any-4090")
    assert "(0 rules" in gpuprices(home, "alerts", "list").stdout


def test_good_deal_rule_follows_the_buy_signal_and_fires_once_per_episode(tmp_path):
    """`--good-deal` is the backtested buy signal (analytics/buy_signal.py) on the series up to the day. The offline
    month is too short for it (120 days of a series first), so this runs evaluate_day on a small hand-made warehouse:
    200 days of a card at one price with two sales that last a few days. The rule fires on the first day of each episode
    in which the signal fires, and not again while it keeps firing."""
    import duckdb

    from analytics.alerts.engine import Rule, ensure_schema, evaluate_day
    from analytics.buy_signal import RULES, SIGNAL

    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("""
        create schema marts;
        create table marts.gpus as select 'rtx-4090-24gb' as gpu_id;
        create table marts.buy_signals_daily (price_date date, gpu_id varchar, channel varchar, market varchar,
            price_per varchar, price_usd decimal(18, 6), is_synthetic boolean, change_vs_previous_7d_median double);
        create table marts.gpu_prices_daily (price_date date, gpu_id varchar, channel varchar, market varchar,
            price_per varchar, min_price_usd decimal(18, 6), offer_count bigint, carried_forward_offer_count bigint,
            sources varchar, is_synthetic boolean);
        -- one shop, no suspect price: every offer is counted
        create table marts.offer_decisions_daily (price_date date, gpu_id varchar, channel varchar,
            market varchar, price_per varchar, provider varchar, source varchar, title varchar, url varchar,
            price decimal(24, 10), currency varchar, unit_price_usd decimal(18, 6), is_synthetic boolean,
            data_origin varchar, rule varchar);
        create table marts.fx_rates_daily (currency varchar, rate_date date, usd_per_unit double);
        create view marts.gpu_market_prices_daily as
            select price_date, gpu_id, channel, market, price_per, 1 as provider_count,
                   1 as credible_provider_count
            from marts.offer_decisions_daily;
        -- the series the signal reads (price_history.panel_series): the one shop's own, one panel throughout
        create view marts.gpu_provider_prices_daily as
            select price_date, gpu_id, channel, market, price_per, 'shop' as provider, sources as source,
                   min_price_usd as price_usd, null::decimal(18, 6) as others_median_usd, false as is_imported,
                   is_synthetic, false as is_carried_forward
            from marts.gpu_prices_daily;
        create view marts.gpu_price_panels as
            select gpu_id, channel, market, price_per, 'shop' as panel_id, 'shop' as panel_providers,
                   1 as provider_count, min(price_date) as panel_start, max(price_date) as panel_end
            from marts.gpu_prices_daily group by all;
    """)
    start = date(2026, 1, 1)
    prices = [Decimal("1800")] * 200
    for sale_start in (150, 175):  # two sales, 12% off for four days
        for day in range(sale_start, sale_start + 4):
            prices[day] = Decimal("1590")
    for day, price in enumerate(prices):
        when = start + timedelta(days=day)
        connection.execute("insert into marts.buy_signals_daily values (?, 'rtx-4090-24gb', 'retail', 'retail_new', "
                           "'card', ?, false, 0.0)", [when, price])
        connection.execute("insert into marts.gpu_prices_daily values (?, 'rtx-4090-24gb', 'retail', 'retail_new', "
                           "'card', ?, 1, 0, 'shop', false)", [when, price])
        connection.execute("insert into marts.offer_decisions_daily values (?, 'rtx-4090-24gb', "
                           "'retail', 'retail_new', 'card', 'shop', 'shop', 't', 'https://shop.test', ?, 'USD', ?, "
                           "false, 'captured', 'counted')", [when, price, price])
    ensure_schema(connection)
    fires = RULES[SIGNAL](prices)
    episodes = [start + timedelta(days=t) for t, fired in enumerate(fires) if fired and (t == 0 or not fires[t - 1])]
    assert len(episodes) == 2  # the signal fires on each sale (and waits out the first 120 days)
    rule = Rule(name="4090-deal", gpu="rtx-4090-24gb", market="retail_new", condition="good_deal").validate()
    fired = [event["price_date"] for day in range(200)
             for event in evaluate_day(connection, [rule], start + timedelta(days=day))]
    assert fired == episodes
    assert evaluate_day(connection, [rule], episodes[0]) == []  # a day is evaluated once
    assert connection.execute("select count(*) from alerts.alert_events where offer_url = 'https://shop.test'"
                              ).fetchone()[0] == 2


def test_available_rule_fires_when_the_gpu_becomes_available_at_or_under_the_price(tmp_path):
    """`alerts add --available --below P`: the cheapest credible offer its source said could be launched
    (marts.gpu_cheapest_available_daily). Listed cheap but out of stock does not fire; unknown stock neither fires
    nor clears; the first day it is available under P fires, once per episode."""
    import duckdb

    from analytics.alerts.engine import Rule, ensure_schema, evaluate_day

    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("""
        create schema marts;
        create table marts.gpus as select 'h100-sxm5-80gb' as gpu_id;
        create table marts.gpu_cheapest_available_daily (price_date date, gpu_id varchar, market varchar,
            cheapest_available_usd decimal(18, 6), cheapest_available_provider varchar,
            cheapest_available_source varchar, provider_count bigint, available_provider_count bigint,
            unknown_provider_count bigint, is_synthetic boolean);
        create table marts.gpu_market_prices_daily (price_date date, gpu_id varchar, market varchar,
            price_per varchar, provider_count bigint, credible_provider_count bigint);
    """)
    start = date(2026, 4, 2)
    days = [  # (cheapest available, providers available, unknown): listed at 1.80 all along
        (None, 0, 0),                # every provider said out of stock: does not hold
        (None, 0, 2),                # some said nothing: unknown, neither fires nor clears
        (Decimal("2.40"), 1, 1),     # available, over the price
        (Decimal("1.95"), 1, 1),     # available at or under 2.00: fires
        (Decimal("1.90"), 2, 0),     # still holding: no second event
        (None, 0, 0),                # out of stock again: clears
        (Decimal("2.00"), 1, 0),     # at the price: fires again
    ]
    for offset, (price, available, unknown) in enumerate(days):
        when = start + timedelta(days=offset)
        connection.execute("insert into marts.gpu_cheapest_available_daily values (?, 'h100-sxm5-80gb', "
                           "'on_demand', ?, ?, ?, 3, ?, ?, false)",
                           [when, price, "lambda" if price else None, "lambda" if price else None, available, unknown])
        connection.execute("insert into marts.gpu_market_prices_daily values (?, 'h100-sxm5-80gb', 'on_demand', "
                           "'gpu_hour', 3, 3)", [when])
    ensure_schema(connection)
    rule = Rule(name="h100-available", gpu="H100 SXM5 80GB", market="on_demand", condition="below", price="2.00",
                available=True).validate()
    fired = [event for offset in range(len(days))
             for event in evaluate_day(connection, [rule], start + timedelta(days=offset))]
    assert [event["price_date"] for event in fired] == [start + timedelta(days=3), start + timedelta(days=6)]
    assert fired[0]["provider"] == "lambda" and fired[0]["price_usd"] == Decimal("1.95")
    assert "available at or below 2.00 USD" in fired[0]["message"]
    holds = connection.execute("select condition_holds from alerts.rule_days order by price_date").fetchall()
    assert [row[0] for row in holds] == [False, None, False, True, True, False, True]
