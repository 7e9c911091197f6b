"""`gpuprices explain`: a headline traced to what is behind it, and recomputed from it.

A headline is a figure a page or a command shows: a GPU x market x day's cheapest price and its medians (`price`),
a price index move (`index`), the cost of training a reference model (`training`). Its explanation lists every
offer of that GPU, market and day (marts.offer_decisions_daily): provider, source, capture time, the landed document
(path, SHA-256 from its manifest) and the parser version, the price as given with its unit, GPU count and ECB rate,
and the rule that counted it or set it aside, read from the models' columns (never restated here). Then it
recomputes each figure from those offers with exact Decimals and says whether the mart holds the same; for the
cheapest offer it can also hash the landed bytes again and re-parse them with the source's parser to find the offer
and its price (`verify`). Where everything matches the figure is checkable from raw bytes to page.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import statistics
from collections import Counter
from datetime import date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import duckdb

from config.settings import data_home
from scrapers.base import Offer
from scrapers.registry import SOURCE_IDS, source_by_id
from warehouse.store import db
from warehouse.store.freshness import age_of
from warehouse.store.landing import read_landed
from warehouse.store.markets import MARKETS
from warehouse.ingest.normalize import price_per_unit
from warehouse.ingest.pipeline import RECORD_KINDS

# A recomputed dollar figure matches the mart's within a micro-dollar: the marts keep 6 decimals (DuckDB rounds its
# DECIMAL casts, the medians of two middle offers interpolate), Python keeps the exact quotient.
MICRO = Decimal("0.000001")
# A recomputed index move or GPU-hour count (DOUBLE in the marts) matches within this relative difference.
RELATIVE = 1e-9
# The rules under which an offer is one of the market's offers (int_offers__market_daily): its provider's price is
# made from them, counted or not (marts.offer_decisions_daily.rule).
MARKET_RULES = ("counted", "suspect", "not_credible", "made_up", "unverified_host")
# an offer that may never head an answer (macros/market_offers.sql headline_gap): a provider whose price is one of
# them (it has no other offer) is set aside like a suspect one
HEADLINE_GAP_RULES = ("made_up", "unverified_host")
HASH_CHUNK = 1 << 20


class ExplainError(Exception):
    """Nothing to explain (no such series, day or model): one line, exit status 2."""


# -- offers ---------------------------------------------------------------------------------------------------------
def _offers_sql(days: list[date]) -> str:
    """The offers of the given days: the days as literals, so DuckDB reads only those days of the view's tables (a
    bound list or a subquery is not pushed through its window functions: 8 s against 2 s for eight days)."""
    listed = ", ".join(f"DATE {db.sql_literal(day.isoformat())}" for day in days)
    return f"""
    SELECT * FROM marts.offer_decisions_daily WHERE price_date IN ({listed})
    ORDER BY price_date, gpu_id, is_counted DESC, unit_price_usd NULLS LAST, provider, source, offer_id, pricing_type"""


def _close(published, recomputed, tolerance=MICRO) -> bool:
    if published is None or recomputed is None:
        return published is None and recomputed is None
    if isinstance(published, float) or isinstance(recomputed, float):
        a, b = float(published), float(recomputed)
        return math.isclose(a, b, rel_tol=RELATIVE, abs_tol=1e-12)
    return abs(Decimal(published) - Decimal(recomputed)) <= tolerance


def _raw_channel(offer: dict) -> str:
    """raw.offers' channel (a scraper's word): staging calls a marketplace's rentals `marketplace`."""
    return "retail" if offer["price_unit"] == "card" else "cloud"


def gpu_count_fraction(count: Decimal) -> Fraction:
    """The GPU count the parser gave, from the count raw.offers keeps to 6 decimals: a shared GPU's 1/3 is stored as
    0.333333, read back as the nearest fraction with a denominator up to 100 that rounds to it (1/3, 1/6, 1/8...)."""
    stored = Fraction(count)
    nearest = stored.limit_denominator(100)
    return nearest if abs(nearest - stored) <= Fraction(1, 2_000_000) else stored


def recomputed_per_unit(offer: dict) -> Decimal | None:
    """The price per GPU-hour or per card in the offer's currency, from the price as given, its unit and GPU count,
    by the load's own rule (warehouse/ingest/normalize.py price_per_unit)."""
    if offer["gpu_count"] is None:
        return None
    return price_per_unit(Offer(
        source=offer["source"], channel=_raw_channel(offer), provider=offer["provider"], offer_id=offer["offer_id"],
        raw_gpu_name="", gpu_id=offer["gpu_id"], gpu_count=gpu_count_fraction(offer["gpu_count"]),
        pricing_type=offer["pricing_type"], price=offer["price"], currency=offer["currency"],
        price_unit=offer["price_unit"], term_months=offer["term_months"]))


def recomputed_unit_usd(offer: dict) -> Decimal | None:
    """USD per GPU-hour or per card, from the price as given and the ECB rate (models/macros/fx.sql,
    unit_price.sql): a rental's per-GPU-hour price x the rate; a card's price x the rate / its GPU count."""
    rate = Decimal(1) if offer["currency"] == "USD" else offer["fx_usd_per_unit"]
    if rate is None:
        return None
    if offer["price_per"] == "card":
        return offer["price"] * rate / (offer["gpu_count"] or 1) if offer["gpu_count"] else None
    per_unit = offer["price_per_unit"]
    return None if per_unit is None else per_unit * rate


def _gpus(count) -> str:
    exact = gpu_count_fraction(count) if count is not None else None
    shown = _plain(count) if exact is None or exact.denominator == 1 or Fraction(count) == exact else str(exact)
    return f"{shown} GPU{'' if count == 1 else 's'}"


def conversion_words(offer: dict) -> str:
    """How the price as given became USD per unit, in one line."""
    price, currency, unit = offer["price"], offer["currency"], offer["price_unit"]
    count = offer["gpu_count"]
    given = f"{_plain(price)} {currency} per {unit.replace('_', '-')}"
    if offer["price_per"] == "card":
        steps = given + (f" / {_gpus(count)}" if count not in (None, 1) else "")
    elif unit == "gpu_hour":
        steps = given
    elif unit == "instance_hour":
        steps = given + f" / {_gpus(count)}"
    elif unit == "instance_term":
        steps = given + f" / ({offer['term_months']} months x 730 h) / {_gpus(count)}"
    else:
        steps = given
    if currency != "USD":
        rate = offer["fx_usd_per_unit"]
        steps += (f" x {_plain(rate)} USD/{currency} (ECB {offer['fx_rate_date']})" if rate is not None
                  else f" (no ECB rate for {currency} within 7 days)")
    unit_usd = offer["unit_price_usd"]
    per = "GPU-hour" if offer["price_per"] == "gpu_hour" else "card"
    return steps + (f" = {_plain(unit_usd)} USD per {per}" if unit_usd is not None else ": no USD price")


def _plain(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, Decimal):
        text = format(value.normalize(), "f")
        return text if "." in text or len(text) < 16 else text
    return str(value)


def _with_checks(offer: dict) -> dict:
    per_unit = recomputed_per_unit(offer)
    unit_usd = recomputed_unit_usd(offer)
    return {
        **offer,
        "conversion": conversion_words(offer),
        "recomputed_price_per_unit": per_unit,
        "recomputed_unit_price_usd": unit_usd,
        "conversion_matches": _close(offer["price_per_unit"], per_unit) and _close(offer["unit_price_usd"], unit_usd),
    }


# -- the landed document --------------------------------------------------------------------------------------------
def _sha256_of_gzip(path: Path) -> str:
    digest = hashlib.sha256()
    with gzip.open(path, "rb") as body:
        while chunk := body.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify_offer(offer: dict) -> dict:
    """The offer's landed document checked against its manifest (SHA-256 of the body, hashed again), and re-parsed
    with the source's parser: the offer found again (same offer id, pricing type and host-VM basis) with the same
    price, currency, unit and price per unit. {"landing_ref", "path", "sha256", "manifest_sha256", "bytes_match",
    "reparsed" (what the parser read, or None), "parser_version", "matches", "note"}."""
    ref = offer.get("landing_ref") or ""
    found = {"landing_ref": ref, "path": None, "sha256": None, "manifest_sha256": None, "bytes_match": False,
             "reparsed": None, "parser_version": None, "matches": False, "note": None}
    if not ref:
        found["note"] = "no landed document is recorded for this offer (raw.offers.landing_ref is empty)"
        return found
    path = data_home() / ref
    found["path"] = str(path)
    manifest_path = path.parent / "manifest.json"
    if not path.exists() or not manifest_path.exists():
        found["note"] = f"the landed document {ref} (or its manifest) is missing from the data home"
        return found
    manifest = json.loads(manifest_path.read_text())
    entry = next((d for d in manifest.get("documents", []) if d.get("file") == path.name), None)
    found["manifest_sha256"] = entry and entry.get("sha256")
    found["sha256"] = _sha256_of_gzip(path)
    found["bytes_match"] = found["sha256"] == found["manifest_sha256"]
    if not found["bytes_match"]:
        found["note"] = "the landed bytes do not hash to the SHA-256 their manifest recorded: the file changed"
        return found
    if offer["source"] not in SOURCE_IDS:
        found["matches"] = True
        found["note"] = ("an imported file (gpuprices import prices): its bytes match their manifest; it is not "
                         "re-parsed here (the import's options are not recorded with it)")
        return found
    source = source_by_id(offer["source"])
    found["parser_version"] = source.parser_version
    run = read_landed(path.parent)
    try:
        frame = RECORD_KINDS[source.records].normalize(source.parse(run.documents), run, source.parser_version)
    except Exception as error:  # noqa: BLE001 - a parser that no longer reads its own landed bytes is the finding
        found["note"] = f"re-parsing the landed run failed: {type(error).__name__}: {' '.join(str(error).split())[:300]}"
        return found
    finally:
        run.discard_spools()
    rows = [row for row in frame.iter_rows(named=True)
            if (row["offer_id"], row["pricing_type"], row["includes_host_vm"])
            == (offer["offer_id"], offer["pricing_type"], offer["includes_host_vm"])]
    if not rows:
        found["note"] = f"re-parsing the landed run with parser version {source.parser_version} does not find the offer"
        return found
    row = rows[0]
    found["reparsed"] = {key: row[key] for key in ("price", "currency", "price_unit", "gpu_count", "price_per_unit",
                                                   "landing_ref")}
    same = (_close(row["price"], offer["price"], Decimal(0)) and row["currency"] == offer["currency"]
            and row["price_unit"] == offer["price_unit"] and _close(row["price_per_unit"], offer["price_per_unit"])
            and row["landing_ref"] == ref)
    found["matches"] = same
    version = ("" if source.parser_version == offer["parser_version"] else
               f" (the row was loaded by parser version {offer['parser_version']}, the source's parser is now "
               f"version {source.parser_version})")
    found["note"] = (f"re-parsed: {_plain(row['price'])} {row['currency']} per {row['price_unit']}{version}"
                     if same else f"re-parsed to {_plain(row['price'])} {row['currency']} per {row['price_unit']}, "
                                  f"not what the warehouse holds{version}")
    return found


# -- a GPU x market x day: cheapest, medians ------------------------------------------------------------------------
def _median(values: list[Decimal]) -> Decimal | None:
    return statistics.median(values) if values else None


def _figure(name: str, published_in: str, published, recomputed, how: str, tolerance=MICRO) -> dict:
    return {"figure": name, "published_in": published_in, "published": published, "recomputed": recomputed,
            "matches": _close(published, recomputed, tolerance), "how": how}


def _market_offers(offers: list[dict], gpu_id: str, market: str) -> list[dict]:
    """The GPU's offers of the market that day, and those of its channel and pricing type that no market takes (a
    card for parts: rule no_market)."""
    spec = MARKETS[market]
    return [o for o in offers if o["gpu_id"] == gpu_id and (
        o["market"] == market or (o["market"] is None and o["channel"] == spec.channel
                                  and o["pricing_type"] == spec.pricing_type))]


def price_explanation(gpu_id: str, market: str, day: date, offers: list[dict], prices_row: dict | None,
                      market_row: dict | None, now: datetime | None = None, listed: int | None = None) -> dict:
    """The explanation of one GPU x market x day from that day's offers (OFFERS_SQL rows) and its mart rows
    (marts.gpu_prices_daily, marts.gpu_market_prices_daily; None when the mart has no row). `listed`: at most this
    many offers are listed (the counted ones first), the recomputation still reads them all."""
    spec = MARKETS[market]
    mine = [_with_checks(o) for o in _market_offers(offers, gpu_id, market)]
    counted = [o for o in mine if o["rule"] == "counted"]
    in_market = [o for o in mine if o["rule"] in MARKET_RULES]
    # each provider's price: the offer int_provider_prices__daily takes (the model's choice, read from its column),
    # at the USD price recomputed from its price as given
    providers: dict[str, dict] = {}
    for offer in (o for o in in_market if o["is_provider_price"]):
        providers.setdefault(offer["provider"], offer)
    suspect = {o["provider"] for o in in_market
               if o["rule"] == "suspect" or (o["rule"] in HEADLINE_GAP_RULES and o["is_provider_price"])}
    credible = {name: o for name, o in providers.items() if name not in suspect}
    cheapest = min(counted, key=lambda o: (o["unit_price_usd"], o["provider"], o["source"]), default=None)
    recomputed = [o["recomputed_unit_price_usd"] for o in counted]
    counted_providers: dict[str, Decimal] = {}
    for o in counted:  # each provider's cheapest counted offer, recomputed
        price = o["recomputed_unit_price_usd"]
        if price is not None and (o["provider"] not in counted_providers or price < counted_providers[o["provider"]]):
            counted_providers[o["provider"]] = price
    credible_min = min(credible.values(), key=lambda o: (o["unit_price_usd"], o["provider"]), default=None)
    prices_row, market_row = prices_row or {}, market_row or {}
    figures = [
        _figure("cheapest", "marts.gpu_prices_daily.min_price_usd", prices_row.get("min_price_usd"),
                min(recomputed, default=None) if None not in recomputed else None,
                "the lowest USD price per unit of the counted offers, each from its price as given"),
        _figure("credible providers' median", "marts.gpu_prices_daily.median_price_usd",
                prices_row.get("median_price_usd"),
                _median(list(counted_providers.values())) if None not in recomputed and counted else None,
                "the market median: one price per provider (its cheapest counted offer), their median"),
        _figure("median across offers", "marts.gpu_prices_daily.median_offer_price_usd",
                prices_row.get("median_offer_price_usd"),
                _median(recomputed) if None not in recomputed else None, "the median of the counted offers' prices"),
        _figure("offers counted", "marts.gpu_prices_daily.offer_count", prices_row.get("offer_count"),
                len(counted) if counted else None, "the offers with rule counted", Decimal(0)),
        _figure("providers counted", "marts.gpu_prices_daily.provider_count", prices_row.get("provider_count"),
                len({o["provider"] for o in counted}) if counted else None, "their providers", Decimal(0)),
        _figure("all providers' median", "marts.gpu_market_prices_daily.median_all_providers_price_usd",
                market_row.get("median_all_providers_price_usd"),
                _median([o["recomputed_unit_price_usd"] for o in providers.values()]),
                "the median of one price per provider (its cheapest market offer, suspect or not)"),
        _figure("credible minimum", "marts.gpu_market_prices_daily.credible_min_price_usd",
                market_row.get("credible_min_price_usd"), credible_min and credible_min["recomputed_unit_price_usd"],
                "the lowest provider price that is not suspect"),
        _figure("providers in the market", "marts.gpu_market_prices_daily.provider_count",
                market_row.get("provider_count"), len(providers) if providers else None,
                "providers with a market offer", Decimal(0)),
    ]
    ordered = sorted(mine, key=lambda o: (o["rule"] != "counted", o["unit_price_usd"] is None,
                                          o["unit_price_usd"] or 0, o["provider"], o["source"], o["offer_id"]))
    shown = ordered if listed is None else ordered[:listed]
    conversions_match = all(o["conversion_matches"] for o in mine)
    age = age_of(day, now)
    return {
        "kind": "price",
        "headline": f"{gpu_id} {market} on {day}",
        "gpu_id": gpu_id, "market": market, "channel": spec.channel, "price_per": spec.price_per,
        "price_date": day, "age": age.as_dict() if age else None,
        "in_mart": bool(prices_row),
        "figures": figures,
        "cheapest_offer": cheapest,
        "credible_min_provider": credible_min and credible_min["provider"],
        "provider_prices": {name: {"price_usd": o["unit_price_usd"], "recomputed_price_usd": o["recomputed_unit_price_usd"],
                                   "source": o["source"], "is_suspect": name in suspect}
                            for name, o in sorted(providers.items())},
        "rules": dict(Counter(o["rule"] for o in mine).most_common()),
        "offers_total": len(mine), "offers_listed": len(shown),
        "offers": shown,
        "conversions_match": conversions_match,
        "matches": all(f["matches"] for f in figures) and conversions_match,
        "is_synthetic": any(o["is_synthetic"] for o in counted),
    }


def _mart_rows(connection: duckdb.DuckDBPyConnection, days: list[date]) -> tuple[dict, dict]:
    prices = {(r["gpu_id"], r["market"], r["price_date"]): r for r in db.fetch_dicts(connection, """
        SELECT price_date, gpu_id, market, min_price_usd, median_price_usd, median_offer_price_usd, offer_count,
               provider_count, is_synthetic
        FROM marts.gpu_prices_daily WHERE price_date IN (SELECT unnest(?))""", [days])}
    market = {(r["gpu_id"], r["market"], r["price_date"]): r for r in db.fetch_dicts(connection, """
        SELECT price_date, gpu_id, market, provider_count, min_price_usd, median_all_providers_price_usd, credible_min_price_usd,
               credible_min_provider, credible_provider_count
        FROM marts.gpu_market_prices_daily WHERE price_date IN (SELECT unnest(?))""", [days])}
    return prices, market


def price_explanations(connection: duckdb.DuckDBPyConnection, wanted: list[tuple[str, str, date]],
                       now: datetime | None = None, listed: int | None = None) -> dict[tuple[str, str, date], dict]:
    """Explanations of many GPU x market x day headlines from one read of their days' offers (the site's)."""
    days = sorted({key[2] for key in wanted})
    if not days:
        return {}
    by_gpu_day: dict[tuple[str, date], list[dict]] = {}
    for offer in db.fetch_dicts(connection, _offers_sql(days)):
        by_gpu_day.setdefault((offer["gpu_id"], offer["price_date"]), []).append(offer)
    prices, market_rows = _mart_rows(connection, days)
    return {(gpu_id, market, day): price_explanation(
                gpu_id, market, day, by_gpu_day.get((gpu_id, day), []), prices.get((gpu_id, market, day)),
                market_rows.get((gpu_id, market, day)), now, listed)
            for gpu_id, market, day in dict.fromkeys(wanted)}


def latest_price_day(connection: duckdb.DuckDBPyConnection, gpu_id: str, market: str) -> date:
    day = connection.execute("SELECT max(price_date) FROM marts.gpu_prices_daily WHERE gpu_id = ? AND market = ?",
                             [gpu_id, market]).fetchone()[0]
    if day is None:
        raise ExplainError(f"no {market} price of {gpu_id} in marts.gpu_prices_daily")
    return day


def explain_price(connection: duckdb.DuckDBPyConnection, gpu_id: str, market: str, day: date | None = None,
                  verify: bool = True, now: datetime | None = None, listed: int | None = None) -> dict:
    """`gpuprices explain price`: one GPU x market x day (default: its latest day), the cheapest offer verified
    against its landed bytes when `verify`."""
    if market not in MARKETS:
        raise ExplainError(f"unknown market {market!r}; markets: {', '.join(MARKETS)}")
    day = day or latest_price_day(connection, gpu_id, market)
    found = price_explanations(connection, [(gpu_id, market, day)], now, listed)[(gpu_id, market, day)]
    if not found["in_mart"] and not found["offers_total"]:
        raise ExplainError(f"no {market} offer of {gpu_id} on {day}")
    if verify and found["cheapest_offer"] is not None:
        found["cheapest_offer"]["landing"] = verify_offer(found["cheapest_offer"])
        found["matches"] = found["matches"] and found["cheapest_offer"]["landing"]["matches"]
    return found


# -- a price index move ---------------------------------------------------------------------------------------------
def explain_index(connection: duckdb.DuckDBPyConnection, gpu_id: str, market: str, day: date | None = None,
                  days: int = 7, now: datetime | None = None, price_today: dict | None = None) -> dict:
    """The move of marts.gpu_price_index_daily from the first day with an index in the `days` days before `day` to
    `day` (the overview's "biggest moves"), recomputed from the matched provider relatives
    (marts.gpu_price_relatives_daily): each day moves by the geometric mean of ln(price / previous price), one per
    provider priced on both days; the relatives of `day` checked against the providers' prices recomputed from its
    offers."""
    if market not in MARKETS:
        raise ExplainError(f"unknown market {market!r}; markets: {', '.join(MARKETS)}")
    if day is None:
        day = connection.execute("SELECT max(price_date) FROM marts.gpu_price_index_daily WHERE gpu_id = ? AND "
                                 "market = ?", [gpu_id, market]).fetchone()[0]
        if day is None:
            raise ExplainError(f"no {market} price index of {gpu_id}")
    levels = db.fetch_dicts(connection, """
        SELECT price_date, price_index, matched_provider_count, is_synthetic FROM marts.gpu_price_index_daily
        WHERE gpu_id = ? AND market = ? AND price_date BETWEEN ? AND ? ORDER BY price_date""",
                            [gpu_id, market, day - timedelta(days=days), day])
    end = next((row for row in levels if row["price_date"] == day), None)
    start = next((row for row in levels if row["price_date"] < day), None)
    if end is None or start is None:
        raise ExplainError(f"no {market} price index of {gpu_id} on {day} and in the {days} days before")
    relatives = db.fetch_dicts(connection, """
        SELECT price_date, provider, source, previous_date, previous_price_usd, price_usd, log_relative, is_synthetic
        FROM marts.gpu_price_relatives_daily
        WHERE gpu_id = ? AND market = ? AND price_date > ? AND price_date <= ? ORDER BY price_date, provider""",
                                [gpu_id, market, start["price_date"], day])
    steps, total = [], 0.0
    for level in (row for row in levels if start["price_date"] < row["price_date"] <= day):
        links = [r for r in relatives if r["price_date"] == level["price_date"]]
        logs = [math.log(float(r["price_usd"]) / float(r["previous_price_usd"])) for r in links]
        mean = sum(logs) / len(logs) if logs else 0.0
        total += mean
        steps.append({"price_date": level["price_date"], "matched_providers": len(links),
                      "published_matched_providers": level["matched_provider_count"], "mean_log_relative": mean,
                      "relatives": [{**r, "recomputed_log_relative": log,
                                     "matches": _close(r["log_relative"], log)} for r, log in zip(links, logs, strict=True)]})
    published = end["price_index"] / start["price_index"] - 1
    recomputed = math.exp(total) - 1
    today = price_today or explain_price(connection, gpu_id, market, day, verify=False, now=now, listed=0)
    providers_today = today["provider_prices"]
    price_checks = []
    for link in (r for r in relatives if r["price_date"] == day):
        from_offers = providers_today.get(link["provider"], {}).get("recomputed_price_usd")
        price_checks.append({"provider": link["provider"], "published": link["price_usd"], "recomputed": from_offers,
                             "matches": _close(link["price_usd"], from_offers)})
    figures = [
        _figure("index move", "marts.gpu_price_index_daily.price_index (end / start - 1)", published, recomputed,
                "exp(the sum over the days of the mean ln(price / previous price) of the matched providers) - 1"),
    ]
    age = age_of(day, now)
    matches = (all(f["matches"] for f in figures) and all(link["matches"] for s in steps for link in s["relatives"])
               and all(check["matches"] for check in price_checks)
               and all(s["matched_providers"] == s["published_matched_providers"] for s in steps))
    return {
        "kind": "index", "headline": f"{gpu_id} {market} price index, {start['price_date']} to {day}",
        "gpu_id": gpu_id, "market": market, "price_date": day, "from_date": start["price_date"],
        "from_index": start["price_index"], "to_index": end["price_index"],
        "age": age.as_dict() if age else None, "figures": figures, "steps": steps,
        "provider_prices_checked": price_checks, "offers_of_the_day": today["rules"],
        "matches": matches, "is_synthetic": bool(end["is_synthetic"]),
    }


# -- a training estimate ---------------------------------------------------------------------------------------------
def _cluster_offer(connection: duckdb.DuckDBPyConnection, row: dict, day: date) -> dict | None:
    """The offer a training plan is costed at (marts.training_cost_daily row): the cheapest offer of the plan's size
    tier (marts.gpu_cluster_prices_daily, the smallest tier holding its cluster), read back as counted from
    marts.offer_decisions_daily, with the tier's price beside it (tier_price_usd). None when no tier holds it."""
    tier = db.fetch_dicts(connection, """
        SELECT on_demand_cheapest_usd_per_gpu_hour, on_demand_cheapest_provider, on_demand_cheapest_source,
               on_demand_cheapest_offer_id, on_demand_cheapest_holds_by
        FROM marts.gpu_cluster_prices_daily
        WHERE price_date = ? AND gpu_id = ? AND up_to_gpus >= ? AND on_demand_cheapest_usd_per_gpu_hour IS NOT NULL
        ORDER BY up_to_gpus LIMIT 1""", [day, row["gpu_id"], row["cluster_gpus"]])
    if not tier:
        return None
    tier = tier[0]
    # the date as a literal, so DuckDB reads that day only (_offers_sql)
    offers = db.fetch_dicts(connection, f"""
        SELECT * FROM marts.offer_decisions_daily
        WHERE price_date = DATE {db.sql_literal(day.isoformat())} AND gpu_id = ? AND market = 'on_demand'
          AND is_counted AND provider = ? AND source = ? AND offer_id = ?
        ORDER BY unit_price_usd LIMIT 1""",
                            [row["gpu_id"], tier["on_demand_cheapest_provider"], tier["on_demand_cheapest_source"],
                             tier["on_demand_cheapest_offer_id"]])
    if not offers:
        return None
    return {**_with_checks(offers[0]), "tier_price_usd": tier["on_demand_cheapest_usd_per_gpu_hour"],
            "holds_by": tier["on_demand_cheapest_holds_by"]}


def explain_training(connection: duckdb.DuckDBPyConnection, model_id: str, gpu_id: str | None = None,
                     precision: str | None = None, day: date | None = None, verify: bool = True,
                     now: datetime | None = None, listed: int | None = None, price: dict | None = None) -> dict:
    """The on-demand cost of training a reference model (marts.training_cost_daily; by default the day's cheapest
    GPU and precision, the training page's headline): GPU-hours from the FLOPs, dense peak and efficiency, times the
    day's cheapest cloud on-demand GPU-hour, itself explained from its offers (`price`: that explanation when the
    caller has it)."""
    day = day or connection.execute("SELECT max(price_date) FROM marts.training_cost_daily WHERE model_id = ?",
                                    [model_id]).fetchone()[0]
    if day is None:
        raise ExplainError(f"no training cost of {model_id!r} in marts.training_cost_daily (see reference.reference_models)")
    rows = db.fetch_dicts(connection, """
        SELECT * FROM marts.training_cost_daily
        WHERE model_id = ? AND price_date = ? AND cost_usd_on_demand_cheapest IS NOT NULL
          AND (? IS NULL OR gpu_id = ?) AND (? IS NULL OR training_precision = ?)
        ORDER BY cost_usd_on_demand_cheapest, gpu_id, training_precision LIMIT 1""",
                          [model_id, day, gpu_id, gpu_id, precision, precision])
    if not rows:
        what = " ".join(part for part in (gpu_id, precision) if part)
        raise ExplainError(f"no on-demand training cost of {model_id} {what} on {day}".replace("  ", " "))
    row = rows[0]
    price = price or explain_price(connection, row["gpu_id"], "on_demand", day, verify=False, now=now, listed=listed)
    behind = _cluster_offer(connection, row, day)
    if verify and behind is not None:
        behind["landing"] = verify_offer(behind)
    unit = behind and behind["recomputed_unit_price_usd"]
    gpu_hours = row["flops"] / (row["dense_peak_tflops"] * 1e12 * row["mfu"] * 3600.0)
    cost = None if unit is None else (Decimal(repr(row["gpu_hours"])) * unit).quantize(Decimal("0.01"))
    holds = ("nodes sold with a cluster network" if row["on_demand_cheapest_holds_by"] == "cluster_network"
             else "one machine that large")
    figures = [
        _figure("GPU-hours", "marts.training_cost_daily.gpu_hours", row["gpu_hours"], gpu_hours,
                "FLOPs / (dense peak TFLOPS x 1e12 x efficiency x 3600)"),
        _figure(f"cheapest cloud renting {row['cluster_gpus']:,}",
                "marts.gpu_cluster_prices_daily.on_demand_cheapest_usd_per_gpu_hour", behind and behind["tier_price_usd"],
                unit, f"the cheapest counted offer that holds the plan's cluster ({holds}), from its price as given"),
        _figure("cost on-demand", "marts.training_cost_daily.cost_usd_on_demand_cheapest",
                row["cost_usd_on_demand_cheapest"], cost, "GPU-hours x that price, to the cent",
                Decimal("0.01")),
    ]
    matches = (all(f["matches"] for f in figures) and behind is not None and behind["conversion_matches"]
               and (not verify or behind["landing"]["matches"]))
    age = age_of(day, now)
    return {
        "kind": "training", "headline": f"training {model_id} on {row['gpu_id']} ({row['training_precision']}) "
                                        f"at {day}'s cheapest on-demand price of the clouds renting its {row['cluster_gpus']:,} GPUs as one job",
        "model_id": model_id, "gpu_id": row["gpu_id"], "training_precision": row["training_precision"],
        "price_date": day, "age": age.as_dict() if age else None,
        "inputs": {key: row[key] for key in ("flops", "dense_peak_tflops", "mfu", "efficiency_basis", "min_gpus",
                                             "cluster_gpus", "wall_clock_days")},
        "figures": figures, "cluster_offer": behind, "price": price,
        "matches": matches,
        "is_synthetic": bool(row["is_synthetic"]),
    }


# -- text ------------------------------------------------------------------------------------------------------------
def figure_text(value) -> str:
    """A figure as a person reads it: an exact amount without trailing zeros, a DOUBLE to 6 significant digits."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, Decimal):
        return _plain(value)
    return str(value)


def _age_line(found: dict) -> str:
    age = found.get("age")
    if not age:
        return ""
    words = "today" if age["age_days"] == 0 else f"{age['age_days']} days old"
    stale = f", over the {age['stale_after_days']}-day limit: stale" if age["is_stale"] else ""
    return f" ({words} on {age['measured_on']}{stale})"


def _figure_lines(figures: list[dict]) -> list[str]:
    lines = []
    for f in figures:
        verdict = "MATCH" if f["matches"] else "MISMATCH"
        lines.append(f"  {f['figure']:26} {figure_text(f['published']):>14}  recomputed {figure_text(f['recomputed']):>14}  "
                     f"{verdict}  ({f['published_in']}: {f['how']})")
    return lines


def _offer_line(o: dict) -> str:
    carried = ", carried forward" if o["is_carried_forward"] else ""
    return (f"  {o['rule']:22} {o['provider']} ({o['source']}{', via ' + o['via'] if o['via'] else ''}) "
            f"{o['offer_id']}: {o['conversion']}"
            f"{'' if o['conversion_matches'] else '  [CONVERSION MISMATCH]'}\n"
            f"      {o['rule_reason']}\n"
            f"      observed {o['observed_at']:%Y-%m-%d %H:%M} UTC{carried}, {o['data_origin'] or 'origin not recorded'}, "
            f"parser version {o['parser_version']}, landed {o['landing_ref'] or '-'}")


def render_price(found: dict) -> list[str]:
    synthetic = " [synthetic]" if found["is_synthetic"] else ""
    lines = [f"{found['gpu_id']} {found['market']} ({found['channel']}, USD per "
             f"{'GPU-hour' if found['price_per'] == 'gpu_hour' else 'card'}) on {found['price_date']}"
             f"{_age_line(found)}{synthetic}"]
    if not found["in_mart"]:
        lines.append("  no row in marts.gpu_prices_daily: no offer was counted that day")
    lines += _figure_lines(found["figures"])
    cheapest = found["cheapest_offer"]
    if cheapest:
        lines.append(f"cheapest offer: {cheapest['provider']} via {cheapest['source']}, {cheapest['conversion']}")
        landing = cheapest.get("landing")
        if landing:
            lines.append(f"  landed {landing['landing_ref']}")
            lines.append(f"  sha256 {landing['sha256'] or '-'} (manifest {landing['manifest_sha256'] or '-'}): "
                         f"{'MATCH' if landing['bytes_match'] else 'MISMATCH'}")
            lines.append(f"  {landing['note'] or ''}: {'MATCH' if landing['matches'] else 'MISMATCH'}")
    lines.append("rules: " + ", ".join(f"{rule} {count}" for rule, count in found["rules"].items()))
    listed = found["offers_listed"]
    if listed:
        more = f" ({listed} of {found['offers_total']}; --all lists every one)" if listed < found["offers_total"] else ""
        lines.append(f"offers, counted first, cheapest first{more}:")
        lines += [_offer_line(o) for o in found["offers"]]
    return lines


def render(found: dict) -> str:
    """An explanation as text: the figures with their recomputation, then what is behind them."""
    if found["kind"] == "price":
        lines = render_price(found)
    elif found["kind"] == "index":
        lines = [f"{found['headline']}{_age_line(found)}{' [synthetic]' if found['is_synthetic'] else ''}"]
        lines += _figure_lines(found["figures"])
        for step in found["steps"]:
            lines.append(f"  {step['price_date']}: mean ln relative {step['mean_log_relative']:+.6f} over "
                         f"{step['matched_providers']} matched providers")
            for link in step["relatives"]:
                lines.append(f"      {link['provider']:20} {link['previous_date']} {figure_text(link['previous_price_usd'])}"
                             f" -> {figure_text(link['price_usd'])} USD  ln {link['recomputed_log_relative']:+.6f}"
                             f"{'' if link['matches'] else '  MISMATCH'}")
        for check in found["provider_prices_checked"]:
            lines.append(f"  {found['price_date']} {check['provider']}: {figure_text(check['published'])} USD, from its "
                         f"offers {figure_text(check['recomputed'])}: {'MATCH' if check['matches'] else 'MISMATCH'}")
        lines.append(f"  (gpuprices explain price {found['gpu_id']} --market {found['market']} --date DAY lists "
                     "the offers behind each day)")
    else:
        lines = [f"{found['headline']}{_age_line(found)}{' [synthetic]' if found['is_synthetic'] else ''}"]
        inputs = found["inputs"]
        lines.append(f"  {inputs['flops']:.4g} FLOPs at {inputs['dense_peak_tflops']} dense TFLOPS x efficiency "
                     f"{inputs['mfu']:.3f} ({inputs['efficiency_basis']}); {inputs['cluster_gpus']} GPUs, "
                     f"{inputs['wall_clock_days']:.1f} days")
        lines += _figure_lines(found["figures"])
        if found["cluster_offer"] is not None:
            lines.append("the offer the plan is costed at (the cheapest of the clouds renting its cluster as one job):")
            lines.append(_offer_line(found["cluster_offer"]))
            landing = found["cluster_offer"].get("landing")
            if landing:
                lines.append(f"      landed document: {'MATCH' if landing['matches'] else 'MISMATCH'}"
                             f"{' (' + landing['note'] + ')' if landing.get('note') else ''}")
        lines.append("the GPU's whole on-demand market that day (any size):")
        lines += ["  " + line for line in render_price(found["price"])]
    lines.append("everything recomputed matches the marts" if found["matches"]
                 else "MISMATCH: a figure above does not recompute from what is behind it")
    return "\n".join(lines)
