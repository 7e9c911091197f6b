"""Price alerts: watch rules, their evaluation against a day's marts, and the events they fire.

Rules live in a TOML file (<home>/alerts.toml, or GPUPRICES_ALERTS; analytics/alerts/rules.py), edited by hand or with
`gpuprices alerts add/list/remove`. A rule names a GPU (canonical id or any alias), a market (rental `on_demand` or
`spot` per GPU-hour; `retail_new` or `retail_used` per card) and one condition:
- `below`: the day's cheapest price is at or below `price` in `currency` (converted at the ECB rate of that day);
- `good_deal`: the mart's good-deal flag (within 5% of the lowest price seen, series tracked at least 5 weeks);
- `drop`: at least `percent` % under the median of the previous 7 days;
- `new_low`: cheaper than every earlier day of the series.

A rule fires on the first day its condition holds, and not again until a day on which it does not hold (it
"cleared"). Each day is evaluated once per rule, with only that day's and earlier rows (point in time), so an
offline replay of 30 days fires what 30 daily runs would have fired. Events go to `alerts.alert_events` with the
offer that triggered them; a changed rule starts afresh.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import duckdb

from analytics.alerts.rules import (
    MAX_RATE_AGE_DAYS,
    Rule,
    RuleError,
    load_config,
)
from analytics.buy_signal import DECISION_RULE, RULES
from analytics.price_history import panel_series
from scrapers.gpu_names import resolve_typed
from warehouse.store import db
from warehouse.store.db import fetch_dicts
from warehouse.store.markets import MARKETS

# -- evaluation -----------------------------------------------------------------------------------------------------
SCHEMA_SQL = """
CREATE SCHEMA IF NOT EXISTS alerts;
CREATE TABLE IF NOT EXISTS alerts.alert_events (
    event_id           VARCHAR PRIMARY KEY,  -- rule name + day
    rule_name          VARCHAR NOT NULL,
    rule_fingerprint   VARCHAR NOT NULL,
    rule_description   VARCHAR NOT NULL,
    price_date         DATE NOT NULL,
    gpu_id             VARCHAR NOT NULL,
    market             VARCHAR NOT NULL,
    condition          VARCHAR NOT NULL,
    price_usd          DECIMAL(18, 6) NOT NULL,   -- the day's cheapest price (per GPU-hour or per card)
    price_per          VARCHAR NOT NULL,
    reference_usd      DECIMAL(18, 6),            -- the threshold, the 7-day median or the previous low, in USD
    provider           VARCHAR,                   -- the offer that set the day's price
    source             VARCHAR,
    offer_title        VARCHAR,
    offer_url          VARCHAR,
    offer_price        DECIMAL(24, 10),
    offer_currency     VARCHAR,
    is_synthetic       BOOLEAN NOT NULL,
    message            VARCHAR NOT NULL,
    fired_at           TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS alerts.rule_days (
    rule_name          VARCHAR NOT NULL,
    rule_fingerprint   VARCHAR NOT NULL,
    price_date         DATE NOT NULL,
    condition_holds    BOOLEAN,                   -- NULL: no price that day (neither fires nor clears)
    PRIMARY KEY (rule_name, rule_fingerprint, price_date)
);
CREATE TABLE IF NOT EXISTS alerts.deliveries (
    event_id           VARCHAR NOT NULL,
    delivery           VARCHAR NOT NULL,          -- webhook | email
    status             VARCHAR NOT NULL,          -- delivered | failed
    attempts           INTEGER NOT NULL,
    error              VARCHAR,
    finished_at        TIMESTAMPTZ NOT NULL
);
"""

# The series of one GPU and market up to a day, with what each condition needs, point in time.
SERIES_SQL = """
with series as (
    select
        price_date, gpu_id, price_usd, is_synthetic,
        price_usd / (1 + change_vs_previous_7d_median) as previous_7d_median_usd,
        min(price_usd) over (order by price_date rows between unbounded preceding and 1 preceding) as previous_low_usd
    from marts.buy_signals_daily
    where gpu_id = $gpu_id and market = $market and price_per = $price_per
      and price_date <= $day
)
select * from series where price_date = $day
"""

# A rule with include_suspect watches every provider's lowest price (suspect ones included), with the same figures.
SERIES_WITH_SUSPECT_SQL = """
with series as (
    select
        price_date, gpu_id, min_price_usd as price_usd, is_synthetic,
        median(min_price_usd) over (order by price_date range between interval 7 days preceding
                                                          and interval 1 day preceding) as previous_7d_median_usd,
        min(min_price_usd) over (order by price_date rows between unbounded preceding and 1 preceding) as previous_low_usd
    from marts.gpu_market_prices_daily
    where gpu_id = $gpu_id and market = $market and price_per = $price_per
      and price_date <= $day
)
select * from series where price_date = $day
"""

# `--available`: the day's cheapest credible offer its source said could be launched (gpu_cheapest_available_daily)
AVAILABLE_SQL = """
select price_date, gpu_id, cheapest_available_usd as price_usd, cheapest_available_provider as provider,
       cheapest_available_source as source, provider_count, available_provider_count, unknown_provider_count,
       is_synthetic
from marts.gpu_cheapest_available_daily
where gpu_id = $gpu_id and market = $market and price_date = $day
"""

PROVIDERS_SQL = """
select provider_count, credible_provider_count from marts.gpu_market_prices_daily
where price_date = $day and gpu_id = $gpu_id and market = $market
  and price_per = $price_per
"""

# The offer behind the day's price (marts.offer_decisions_daily, the rule each offer met): a credible one (counted),
# or, for a rule that counts suspect prices, any offer of the market figures (counted, or set aside as suspect, not
# credible, made up or an unverified host: the rules after the market's own choice of offers)
CHEAPEST_OFFER_SQL = """
select provider, source, title, url, price, currency, unit_price_usd, is_synthetic,
       data_origin = 'imported' as is_imported
from marts.offer_decisions_daily
where price_date = $day and gpu_id = $gpu_id and market = $market
  and price_per = $price_per and list_contains($rules, rule)
order by unit_price_usd, provider
limit 1
"""
CREDIBLE_RULES = ["counted"]
MARKET_RULES = ["counted", "suspect", "not_credible", "made_up", "unverified_host"]

USD_RATE_SQL = """
select usd_per_unit from marts.fx_rates_daily
where currency = $currency and rate_date <= $day and rate_date > $day - interval (%d) day
order by rate_date desc limit 1
""" % MAX_RATE_AGE_DAYS


def ensure_schema(connection: duckdb.DuckDBPyConnection) -> None:
    connection.execute(SCHEMA_SQL)
    # a deliveries table written before 2026-11-28 names its route `channel`: renamed in place, rows kept
    if connection.execute("""select 1 from information_schema.columns where table_schema = 'alerts'
                             and table_name = 'deliveries' and column_name = 'channel'""").fetchone():
        connection.execute("ALTER TABLE alerts.deliveries RENAME COLUMN channel TO delivery")


def resolve_rule_gpu(connection: duckdb.DuckDBPyConnection, gpu: str) -> str:
    """A canonical GPU id for the rule's GPU name (an id as is, or any alias the warehouse knows)."""
    known = {row[0] for row in connection.execute("select gpu_id from marts.gpus").fetchall()}
    resolved = resolve_typed(gpu, known)  # as the estimator reads it
    if resolved is None:
        raise RuleError(f"unknown GPU {gpu!r}: use a canonical id (see `gpuprices sql \"select gpu_id from marts.gpus\"`)"
                        " or a known alias")
    return resolved


def _first(connection: duckdb.DuckDBPyConnection, sql: str, parameters: dict) -> dict | None:
    return next(iter(fetch_dicts(connection, sql, parameters)), None)


def _condition(connection, rule: Rule, series: dict, day: date) -> tuple[bool | None, Decimal | None]:
    """Whether the rule's condition holds on the day, and the USD figure it was compared with."""
    price = series["price_usd"]
    if rule.condition == "below":
        if rule.currency == "USD":
            threshold = Decimal(rule.price)
        else:
            rate = _first(connection, USD_RATE_SQL, {"currency": rule.currency, "day": day})
            if rate is None:
                return None, None  # no rate for that day: unknown, never a guess
            threshold = Decimal(rule.price) * Decimal(str(rate["usd_per_unit"]))
        return price <= threshold, threshold
    if rule.condition == "good_deal":  # the backtested buy signal (analytics/buy_signal.py) on the day
        return signal_fires_on(connection, series["gpu_id"], rule.market, day), None
    if rule.condition == "drop":
        median = series["previous_7d_median_usd"]
        if median is None:
            return False, None
        median = Decimal(str(median))
        return price <= median * (1 - Decimal(rule.percent) / 100), median
    previous_low = series["previous_low_usd"]  # new_low
    return (previous_low is not None and price < previous_low), previous_low


def _available_condition(connection, rule: Rule, keys: dict, day: date) -> tuple[dict | None, bool | None,
                                                                                 Decimal | None]:
    """`--available --below P`: holds when the day's cheapest available credible offer is at or under P. No
    available offer: False when every provider said so, None (unknown: neither fires nor clears) when some said
    nothing or the day has no price at all."""
    series = _first(connection, AVAILABLE_SQL, {key: keys[key] for key in ("gpu_id", "market", "day")})
    if series is None:
        return None, None, None
    if series["price_usd"] is None:
        return None, (None if series["unknown_provider_count"] else False), None
    holds, threshold = _condition(connection, rule, series, day)
    return series, holds, threshold


def signal_fires_on(connection, gpu_id: str, market: str, day: date) -> bool | None:
    """Whether the buy signal fires on `day` for the market's cheapest, from the prices up to that day, on the series
    that holds the day and never across a panel change (issue 40): the constant-panel segment of the market's
    cheapest, or where one provider alone priced the market that day, that provider's own series (None: no series
    observed that day)."""
    holding = [one for one in panel_series(connection, gpu_id=gpu_id, market=market)
               if one.days[0] <= day <= one.days[-1] and one.observed_flags()[(day - one.days[0]).days]]
    panels = [one for one in holding if one.kind == "panel"]
    found = panels[0] if panels else min(holding, key=lambda one: one.prices[(day - one.days[0]).days], default=None)
    if found is None:
        return None
    known = [price for observed, price in zip(found.days, found.prices, strict=True) if observed <= day]
    return bool(RULES[DECISION_RULE](known)[-1])


def resolve_rules(connection: duckdb.DuckDBPyConnection, rules: list[Rule]) -> dict[str, str]:
    """Each rule's canonical GPU id by rule name. A rule whose GPU no longer resolves is left out (and said so):
    one stale rule never silences the others."""
    gpu_ids = {}
    for rule in rules:
        try:
            gpu_ids[rule.name] = resolve_rule_gpu(connection, rule.gpu)
        except RuleError as error:
            print(f"alert rule {rule.name} skipped: {error}")
    return gpu_ids


def evaluate_day(connection: duckdb.DuckDBPyConnection, rules: list[Rule], day: date,
                 gpu_ids: dict[str, str] | None = None) -> list[dict]:
    """Evaluate every rule on one day (once: a day already evaluated for a rule is skipped). Returns new events.
    `gpu_ids` (from resolve_rules) saves resolving the rules' GPU names again for every day."""
    ensure_schema(connection)
    gpu_ids = resolve_rules(connection, rules) if gpu_ids is None else gpu_ids
    events = []
    for rule in rules:
        seen = connection.execute(
            "select 1 from alerts.rule_days where rule_name = ? and rule_fingerprint = ? and price_date = ?",
            [rule.name, rule.fingerprint, day]).fetchone()
        if seen or rule.name not in gpu_ids:
            continue
        gpu_id = gpu_ids[rule.name]
        price_per = MARKETS[rule.market].price_per
        keys = {"gpu_id": gpu_id, "market": rule.market, "price_per": price_per, "day": day}
        if rule.available:
            series, holds, reference = _available_condition(connection, rule, keys, day)
        else:
            series = _first(connection, SERIES_WITH_SUSPECT_SQL if rule.include_suspect else SERIES_SQL, keys)
            holds, reference = (None, None) if series is None else _condition(connection, rule, series, day)
        before = connection.execute(
            """select condition_holds from alerts.rule_days where rule_name = ? and rule_fingerprint = ?
               and price_date < ? and condition_holds is not null order by price_date desc limit 1""",
            [rule.name, rule.fingerprint, day]).fetchone()
        connection.execute("insert into alerts.rule_days values (?, ?, ?, ?)",
                           [rule.name, rule.fingerprint, day, holds])
        if not holds or (before is not None and before[0]):
            continue  # not holding, or still holding since it last fired (it has not cleared)
        rules = MARKET_RULES if rule.include_suspect else CREDIBLE_RULES
        offer = ({"provider": series["provider"], "source": series["source"]} if rule.available
                 else _first(connection, CHEAPEST_OFFER_SQL, {**keys, "rules": rules}) or {})
        unit = "per GPU-hour" if price_per == "gpu_hour" else "per card"
        synthetic = bool(series["is_synthetic"])
        providers = (_first(connection, PROVIDERS_SQL, keys) or {}).get(
            "provider_count" if rule.include_suspect else "credible_provider_count")
        message = (f"{rule.describe()} on {day}: ${series['price_usd']:,.2f} {unit}"
                   + (f" at {offer['provider']}" if offer.get("provider") else "")
                   + (f" (imported from a file, source {offer['source']})" if offer.get("is_imported") else "")
                   + (" (1 provider)" if providers == 1 else "")
                   + (f" ({offer['url']})" if offer.get("url") else "")
                   + (" [SYNTHETIC DATA, not a market price]" if synthetic else ""))
        event = {
            "event_id": f"{rule.name}@{day}", "rule_name": rule.name, "rule_fingerprint": rule.fingerprint,
            "rule_description": rule.describe(), "price_date": day, "gpu_id": gpu_id, "market": rule.market,
            "condition": rule.condition, "price_usd": series["price_usd"], "price_per": price_per,
            "reference_usd": reference, "provider": offer.get("provider"), "source": offer.get("source"),
            "offer_title": offer.get("title"), "offer_url": offer.get("url"), "offer_price": offer.get("price"),
            "offer_currency": offer.get("currency"), "is_synthetic": synthetic, "message": message,
            "fired_at": datetime.now(UTC),
        }
        columns = ", ".join(event)
        connection.execute(f"insert into alerts.alert_events ({columns}) values ({', '.join('?' * len(event))})",
                           list(event.values()))
        events.append(event)
    return events


def evaluate(days: list[date], rules: list[Rule] | None = None) -> list[dict]:
    """Evaluate the rules on each day in order (the days a run observed), in one transaction."""
    if rules is None:
        rules, _ = load_config(skip_invalid=True)
    events = []
    with db.connect() as connection:
        ensure_schema(connection)  # the alerts tables exist from the first run on, rules or not
        if not rules or not days:
            return []
        gpu_ids = resolve_rules(connection, rules)
        connection.execute("begin")
        try:
            for day in sorted(set(days)):
                events += evaluate_day(connection, rules, day, gpu_ids)
            connection.execute("commit")
        except Exception:
            connection.execute("rollback")
            raise
    return events


def record_delivery(event_id: str, delivery: str, status: str, attempts: int, error: str | None) -> None:
    with db.connect() as connection:
        ensure_schema(connection)
        connection.execute("insert into alerts.deliveries values (?, ?, ?, ?, ?, ?)",
                           [event_id, delivery, status, attempts, error, datetime.now(UTC)])


def latest_price_date() -> date | None:
    """The newest day in the marts: what `gpuprices alerts check` evaluates by default."""
    with db.connect(read_only=True) as connection:
        return connection.execute("select max(price_date) from marts.gpu_prices_daily").fetchone()[0]


def gpu_of(gpu: str) -> str:
    """A rule's GPU name as a canonical id, checked against the warehouse (RuleError when unknown)."""
    with db.connect(read_only=True) as connection:
        return resolve_rule_gpu(connection, gpu)


def fired_events() -> list[dict]:
    """Every event fired so far (none before the first evaluation created the alerts tables)."""
    with db.connect(read_only=True) as connection:
        exists = connection.execute("select count(*) from information_schema.tables where table_schema = 'alerts' "
                                    "and table_name = 'alert_events'").fetchone()[0]
        if not exists:
            return []
        return fetch_dicts(connection, "select price_date, rule_name, message from alerts.alert_events "
                                       "order by price_date, rule_name")
