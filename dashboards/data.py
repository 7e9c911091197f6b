"""What the dashboards show, read from the warehouse in one short read-only session.

Every query returns plain rows (dicts); the pages are rendered from these and hold no connection, so the site
opens from disk or any static host and keeps no lock on the database. The pages read the marts only (and the
reference seeds): no raw, staging or intermediate table, and no model is fitted, scored or backtested here (the
outlook and its backtested skill come from marts.gpu_price_outlook_daily and marts.gpu_price_outlook_scores, the buy
verdicts and the buy signal's backtest from marts.buy_verdicts and marts.buy_signal_backtest;
tests/dashboards/test_outlook_pages.py checks every query)."""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from datetime import date

import duckdb

from analytics import buy_verdicts
from config.settings import headline_includes_marketplaces
from dashboards.gpu_charts import OUTLOOK_HISTORY_DAYS
from warehouse.store.build import carry_forward_days
from warehouse.store.db import fetch_dicts as _rows
from warehouse.store.db import open_for_reading, open_for_writing
from warehouse.ingest.explain import ExplainError, explain_index, explain_training, price_explanations
from warehouse.store.markets import MARKETS
from warehouse.store.status import SUSPECT_PRICES_SQL, staleness

OFFERS_PER_GPU = 15  # today's cheapest credible offers listed on a GPU page
SET_ASIDE_OFFERS_PER_GPU = 5  # and below them, the cheapest offers set aside (suspect, unverified), badged
PROVIDER_MOVE_DAYS = 30  # the window of the provider moves listed beside a GPU page's price index
PROVIDER_MOVES_PER_GPU = 12  # the largest of them
# a provider "has history" on a GPU page, drawn as its own line, when its prices span this many days: as long as a
# series must be for the buy signal's backtest (36 days of history and a 30-day window)
PROVIDER_HISTORY_DAYS = 66
OUTLOOK_HORIZON_DAYS = 30  # the outlook the pages show (the daily build writes this horizon)
OUTLOOK_CURRENT_DAYS = 7  # the overview lists a series' outlook made within this many days of the newest price day
OUTLOOKS_LISTED = 8  # per overview list (most likely to drop, most likely to rise)
# offers listed on one explanation page (the counted ones first, cheapest first; the figures are recomputed from all
# of them): a page stays under a few hundred KB however many offers a marketplace lists
EXPLAINED_OFFERS = 100
# The model's drop chances and its percentiles come from separate fits: a chance this far under what its own
# percentiles imply is shown as a disagreement (outlook_disagreement)
DISAGREEMENT_MARGIN = 0.25


@dataclass
class GpuPage:
    gpu_id: str
    spec: dict | None
    name: str
    prices: list[dict]          # gpu_prices_daily + buy_signals_daily bands, every day and series (its panel)
    signals: list[dict]         # latest buy_signals_daily row per series
    rent_vs_buy: dict | None
    cheapest_offers: list[dict]  # the latest day's cheapest offers
    verdicts: list[dict] = field(default_factory=list)  # buy now or wait, per market (analytics/buy_signal.py)
    imported_sources: list[str] = field(default_factory=list)  # sources of imported history behind its prices
    # gpu_price_index_daily, every day and market; is_synthetic: the day's prices are synthetic (a replay day) or
    # the index level rests on a synthetic link
    price_index: list[dict] = field(default_factory=list)
    # each provider's move over the last PROVIDER_MOVE_DAYS days (gpu_price_relatives_daily), largest first
    provider_moves: list[dict] = field(default_factory=list)
    # per market with an outlook: marts.gpu_price_outlook_daily on the series' last day with its own backtested
    # figures (marts.gpu_price_outlook_scores)
    outlooks: list[dict] = field(default_factory=list)
    # marts.gpus: memory, bandwidth and dense BF16 for every GPU (datasheet, researched, observed or catalogue)
    catalogue_spec: dict | None = None
    # per reference model on the marts' newest day: the cheaper feasible training plan (bf16 or fp8) with its error
    # band, or why none is feasible; the same for serving (marts.training_cost_daily, inference_cost_daily)
    training_plans: list[dict] = field(default_factory=list)
    serving_plans: list[dict] = field(default_factory=list)
    # what a renter can get on the newest day (_attach_renter): each provider's listed vs available price
    # (marts.gpu_availability_daily), the published commitment terms (marts.gpu_term_prices_daily, each provider's
    # latest day) and whole nodes with their fabric (marts.gpu_cluster_offers_daily)
    availability: list[dict] = field(default_factory=list)
    terms: list[dict] = field(default_factory=list)
    cluster_offers: list[dict] = field(default_factory=list)
    # marts.gpu_provider_prices_daily: the own prices of the providers with history, on the days their market's
    # cheapest is over other providers too (issue 40: a provider's line beside the market's panel segments)
    provider_prices: list[dict] = field(default_factory=list)
    # per outlook of a provider's own series (market, provider): that provider's own prices over the fan chart's days
    # (marts.gpu_provider_prices_daily), the history its fan is drawn from (never the market's cheapest)
    outlook_histories: dict = field(default_factory=dict)


@dataclass
class DashboardData:
    latest_date: date | None
    rent_best: list[dict] = field(default_factory=list)
    buy_best: list[dict] = field(default_factory=list)
    moves: list[dict] = field(default_factory=list)
    good_deals: list[dict] = field(default_factory=list)  # series whose buy signal fires on the latest day
    headline_includes_marketplaces: bool = True  # GPUPRICES_HEADLINE_MARKETPLACES
    backtest: dict | None = None  # the buy signal backtested on every long-enough series the warehouse holds
    freshness: list[dict] = field(default_factory=list)
    gpus: list[GpuPage] = field(default_factory=list)
    training_history: list[dict] = field(default_factory=list)
    training_cheapest: list[dict] = field(default_factory=list)
    training_by_gpu: list[dict] = field(default_factory=list)  # model x GPU x day, the 10 cheapest GPUs per model
    # per model on the latest day: the priced GPUs on which no training plan is feasible, with the reason
    training_infeasible: list[dict] = field(default_factory=list)
    training_not_priced: list[dict] = field(default_factory=list)
    serving_vs_api: list[dict] = field(default_factory=list)  # per model: cheapest self-hosted vs cheapest API price
    assumptions: list[dict] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)
    runs_per_day: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    quarantine: list[dict] = field(default_factory=list)
    unmatched: list[dict] = field(default_factory=list)
    suspect_prices: list[dict] = field(default_factory=list)  # set aside on the newest day (warehouse/store/status.py)
    # the series whose current outlook most likely drops / rises within OUTLOOK_HORIZON_DAYS (outlook_lists)
    outlook_drops: list[dict] = field(default_factory=list)
    outlook_rises: list[dict] = field(default_factory=list)
    outlook_held_list_prices: dict | None = None  # held_list_prices
    # what `gpuprices explain` says of each headline the pages show (warehouse/ingest/explain.py): by (gpu_id, market, day)
    # for a price, (gpu_id, market, day) for an index move, (model_id, precision, day) for a training cost
    price_explanations: dict = field(default_factory=dict)
    index_explanations: dict = field(default_factory=dict)
    training_explanations: dict = field(default_factory=dict)
    # cheapest available beside cheapest listed, on-demand, per GPU on the newest day (_attach_renter)
    cheapest_available: list[dict] = field(default_factory=list)

    @property
    def has_synthetic(self) -> bool:
        return any(r.get("is_synthetic") for r in self.rent_best + self.freshness)


def load(path=None, read_only: bool = True) -> DashboardData:
    """read_only=False only inside the daily run's own process, where dbt-duckdb keeps its read-write connection
    open and DuckDB refuses a second connection to the file with another configuration."""
    if not read_only:
        with open_for_writing(path) as connection:
            return load_explanations(connection, load_from(connection))
    with open_for_reading(path) as connection:  # the snapshot while a run writes
        return load_explanations(connection, load_from(connection))


def load_from(connection: duckdb.DuckDBPyConnection) -> DashboardData:
    latest = connection.execute("SELECT max(price_date) FROM marts.gpu_prices_daily").fetchone()[0]
    data = DashboardData(latest_date=latest, headline_includes_marketplaces=headline_includes_marketplaces())
    _load_runs(connection, data)
    if latest is None:  # nothing priced yet (a new home, every source failed): the pages say so, and why
        return data
    data.rent_best = _rows(connection, """
        SELECT gpu_id, channel, market, min_price_usd, provider_count, bf16_dense_tflops_per_usd, fp8_dense_tflops_per_usd,
               memory_gib_per_usd, is_synthetic
        FROM marts.price_performance_daily
        WHERE price_date = ? AND price_per = 'gpu_hour' AND market IN ('on_demand', 'marketplace_on_demand')
          AND bf16_dense_tflops_per_usd IS NOT NULL AND (? OR channel <> 'marketplace')
        ORDER BY bf16_dense_tflops_per_usd DESC LIMIT 10""", [latest, headline_includes_marketplaces()])
    # Street prices when retail sources have them; otherwise the spec table's launch price, labelled as such.
    data.buy_best = _rows(connection, """
        SELECT gpu_id, purchase_price_usd, purchase_price_basis, purchase_price_date, purchase_price_age_days,
               purchase_price_source, street_provider_count, bf16_dense_tflops_per_usd, memory_gib_per_usd, is_synthetic
        FROM marts.gpu_purchase_value_daily
        WHERE price_date = ? AND bf16_dense_tflops_per_usd IS NOT NULL
        ORDER BY bf16_dense_tflops_per_usd DESC LIMIT 10""", [latest])
    # Weekly moves from the matched-offer index (marts.gpu_price_index_daily): a source appearing or failing is
    # no move; the day's cheapest price is shown beside it.
    data.moves = _rows(connection, """
        WITH today AS (SELECT * FROM marts.gpu_price_index_daily WHERE price_date = $latest),
        week_ago AS (
            SELECT gpu_id, channel, market, price_per, price_index AS week_ago_index,
                   price_date AS week_ago_date
            FROM marts.gpu_price_index_daily
            WHERE price_date BETWEEN $latest - INTERVAL 7 DAYS AND $latest - INTERVAL 1 DAY
            QUALIFY row_number() OVER (PARTITION BY gpu_id, channel, market, price_per ORDER BY price_date) = 1
        )
        SELECT today.gpu_id, today.channel, today.market, today.price_per, week_ago.week_ago_date,
               week_ago.week_ago_index, today.price_index, today.price_index / week_ago.week_ago_index - 1 AS change,
               prices.min_price_usd AS price_usd, today.matched_provider_count,
               today.is_synthetic OR prices.is_synthetic AS is_synthetic
        FROM today JOIN week_ago USING (gpu_id, channel, market, price_per)
        JOIN marts.gpu_prices_daily AS prices USING (price_date, gpu_id, channel, market, price_per)
        WHERE abs(today.price_index / week_ago.week_ago_index - 1) >= 0.0005
        ORDER BY abs(today.price_index / week_ago.week_ago_index - 1) DESC LIMIT 12""", {"latest": latest})
    verdicts = buy_verdicts.read_verdicts(connection)
    data.good_deals = [v for v in verdicts if v["buy_now"] and v["as_of"] == latest]
    data.backtest = buy_verdicts.read_backtest(connection)
    outlooks = read_outlooks(connection)
    data.outlook_drops, data.outlook_rises = outlook_lists(outlooks, latest)
    data.outlook_held_list_prices = held_list_prices(outlooks, latest)
    data.gpus = _gpu_pages(connection, verdicts, outlooks)
    _attach_renter(connection, data, latest)
    # Chart points (the charts plot floats): read as DOUBLE, not converted one by one to Decimal (10x slower)
    data.training_history = _rows(connection, """
        SELECT price_date, model_id, cost_usd_on_demand_cheapest::DOUBLE AS cheapest_cost_usd,
               cost_usd_on_demand_cheapest_low::DOUBLE AS low_cost_usd,
               cost_usd_on_demand_cheapest_high::DOUBLE AS high_cost_usd, on_demand_provider_count, is_synthetic
        FROM marts.training_cost_by_gpu_daily WHERE is_cheapest_gpu ORDER BY model_id, price_date""")
    data.training_cheapest = _training_cheapest(connection, latest)
    data.training_infeasible = _training_infeasible(connection, latest)
    # a fine-tune is served, never priced as its base's pre-training (reference_models.post_trained_from)
    data.training_not_priced = _rows(connection, """
        SELECT name AS model_name, post_trained_from FROM reference.reference_models
        WHERE training_tokens_b IS NULL ORDER BY post_trained_from IS NULL, name""")
    # One query per reference model (years of daily rows: each query stays small; see bench build).
    data.training_by_gpu = []
    for (model_id,) in connection.execute("SELECT model_id FROM reference.reference_models ORDER BY 1").fetchall():
        data.training_by_gpu += _rows(connection, """
            WITH per_gpu AS (
                SELECT price_date, model_id, gpu_id, cost_usd_on_demand_cheapest::DOUBLE AS cost_usd,
                       on_demand_provider_count, is_synthetic
                FROM marts.training_cost_by_gpu_daily WHERE model_id = $model
            ),
            ranked AS (
                SELECT gpu_id FROM per_gpu WHERE price_date = $latest
                QUALIFY row_number() OVER (ORDER BY cost_usd, gpu_id) <= 10
            )
            SELECT per_gpu.* FROM per_gpu JOIN ranked USING (gpu_id)
            ORDER BY gpu_id, price_date""", {"model": model_id, "latest": latest})
    data.serving_vs_api = _serving_vs_api(connection, latest)
    data.assumptions = _rows(connection, "SELECT * FROM monitoring.estimate_assumptions ORDER BY name")
    data.unmatched = _rows(connection, "SELECT * FROM monitoring.unmatched_gpu_names ORDER BY source, raw_gpu_name")
    data.suspect_prices = _rows(connection, SUSPECT_PRICES_SQL)
    return data


def load_explanations(connection: duckdb.DuckDBPyConnection, data: DashboardData) -> DashboardData:
    """The explanation of every price, index move and training cost a page shows as a headline: the overview's
    rankings, moves, buy signals and outlooks, the GPU list's cheapest rentals, each GPU page's latest prices and
    verdicts, the training page's cheapest costs. One batch after the pages' own queries (load_from): one read of
    the offers of the days they are from (marts.offer_decisions_daily), seconds, not a page query
    (`gpuprices bench build` times it apart)."""
    if data.latest_date is None:
        return data
    latest = data.latest_date
    wanted = [(r["gpu_id"], r["market"], latest) for r in data.rent_best]
    wanted += [(r["gpu_id"], "retail_new", latest) for r in data.buy_best if r["purchase_price_basis"] == "street_new"]
    wanted += [(r["gpu_id"], r["market"], latest) for r in data.moves]
    wanted += [(r["gpu_id"], r["market"], r["as_of"]) for r in data.good_deals]
    wanted += [(r["gpu_id"], r["market"], r["price_date"]) for r in data.outlook_drops + data.outlook_rises]
    for page in data.gpus:
        wanted += [(r["gpu_id"], r["market"], r["price_date"]) for r in page.signals]
        wanted += [(r["gpu_id"], r["market"], r["as_of"]) for r in page.verdicts]
        wanted += [(r["gpu_id"], r["market"], r["price_date"]) for r in page.prices
                   if r["price_date"] == latest and r["price_per"] == "gpu_hour"]
    for model in data.training_cheapest:
        wanted += [(setup["gpu_id"], "on_demand", latest) for setup in (model["bf16"], model["fp8"]) if setup]
    data.price_explanations = price_explanations(connection, wanted, listed=EXPLAINED_OFFERS)
    for row in data.moves:
        try:
            data.index_explanations[(row["gpu_id"], row["market"], latest)] = explain_index(
                connection, row["gpu_id"], row["market"], latest,
                price_today=data.price_explanations[(row["gpu_id"], row["market"], latest)])
        except ExplainError:
            continue
    for model in data.training_cheapest:
        for setup in (model["bf16"], model["fp8"]):
            if setup:
                data.training_explanations[(model["model_id"], setup["training_precision"], latest)] = explain_training(
                    connection, model["model_id"], setup["gpu_id"], setup["training_precision"], latest,
                    # its offers are on the price's own page: listed once
                    price={**data.price_explanations[(setup["gpu_id"], "on_demand", latest)], "offers": [],
                           "offers_listed": 0})
    return data


def _load_runs(connection: duckdb.DuckDBPyConnection, data: DashboardData) -> None:
    """What every source did: there is a run history even before there is a price."""
    data.freshness = _rows(connection, "SELECT * FROM monitoring.source_freshness ORDER BY source")
    carry_days = carry_forward_days()
    for row in data.freshness:
        row["state"] = staleness(row["days_behind_newest"], carry_days, row["is_imported"])
    data.runs = _rows(connection, """
        SELECT source, status, observed_at, trigger, rows_loaded, rows_rejected, duration_s, error, is_synthetic
        FROM monitoring.source_runs ORDER BY observed_at DESC, source LIMIT 200""")
    data.runs_per_day = _rows(connection, """
        SELECT run_date, status, count(*) AS runs, sum(rows_loaded) AS rows_loaded
        FROM monitoring.source_runs GROUP BY ALL ORDER BY run_date""")
    data.failures = _rows(connection, """
        SELECT source, status, observed_at, error FROM monitoring.source_runs
        WHERE status <> 'loaded' ORDER BY observed_at DESC LIMIT 200""")
    data.quarantine = _rows(connection, """
        SELECT source, observed_at, scope, reason, detail FROM monitoring.source_quarantine
        ORDER BY observed_at DESC, source LIMIT 200""")


def _training_cheapest(connection: duckdb.DuckDBPyConnection, latest: date | None) -> list[dict]:
    """Per reference model, the cheapest BF16 and the cheapest FP8 setup on the latest day (None where no GPU with
    a price has that precision), cheapest BF16 first. Each carries its efficiency basis and synthetic flag."""
    setups = _rows(connection, """
        SELECT models.name AS model_name, models.training_precision AS disclosed_precision, cost.model_id,
               cost.training_precision, cost.gpu_id, cost.cost_usd_on_demand_cheapest, cost.cost_usd_spot_cheapest,
               cost.cost_usd_on_demand_cheapest_low, cost.cost_usd_on_demand_cheapest_high,
               cost.on_demand_provider_count, cost.on_demand_cheapest_provider, cost.on_demand_cheapest_holds_by,
               cost.gpu_hours, cost.min_gpus, cost.cluster_gpus, cost.wall_clock_days, cost.wall_clock_days_high,
               cost.node_gpus, cost.scale_out_network, cost.max_cluster_gpus, cost.max_training_days, cost.mfu,
               cost.efficiency_basis, cost.error_band_basis, cost.is_synthetic
        FROM marts.training_cost_daily AS cost JOIN reference.reference_models AS models USING (model_id)
        WHERE cost.price_date = ? AND cost.cost_usd_on_demand_cheapest IS NOT NULL
        QUALIFY row_number() OVER (PARTITION BY cost.model_id, cost.training_precision
                                   ORDER BY cost.cost_usd_on_demand_cheapest) = 1""", [latest])
    models: dict[str, dict] = {}
    for setup in setups:
        model = models.setdefault(setup["model_id"], {
            "model_id": setup["model_id"], "model_name": setup["model_name"],
            "disclosed_precision": setup["disclosed_precision"], "bf16": None, "fp8": None})
        model[setup["training_precision"]] = setup
    return sorted(models.values(), key=lambda m: (m["bf16"] or m["fp8"])["cost_usd_on_demand_cheapest"])


def _training_infeasible(connection: duckdb.DuckDBPyConnection, latest: date | None) -> list[dict]:
    """Per reference model on the latest day, the GPUs a cloud rented that day on which no training plan has a cost
    (neither BF16 nor FP8): infeasible (the cluster it needs does not form), or feasible on a cluster no cloud rented
    as one job that day; with the reason (the BF16 plan's): listed, never ranked with a cost."""
    return _rows(connection, """
        SELECT models.name AS model_name, cost.model_id, cost.gpu_id,
               coalesce(cost.infeasible_reason, cost.unpriced_reason) AS infeasible_reason, cost.is_feasible,
               cost.is_synthetic
        FROM marts.training_cost_daily AS cost JOIN reference.reference_models AS models USING (model_id)
        WHERE cost.price_date = ? AND cost.gpu_on_demand_provider_count > 0
        QUALIFY bool_and(cost.cost_usd_on_demand_cheapest IS NULL) OVER (PARTITION BY cost.model_id, cost.gpu_id)
            AND row_number() OVER (PARTITION BY cost.model_id, cost.gpu_id ORDER BY cost.training_precision) = 1
        ORDER BY models.name, cost.gpu_id""", [latest])


def _serving_vs_api(connection: duckdb.DuckDBPyConnection, latest: date | None) -> list[dict]:
    """Per reference model on the latest day: the cheapest self-hosted USD per million output tokens (any GPU and
    weight precision, at the cheapest on-demand price) beside the cheapest paid API price of the same model, each
    with its own synthetic flag."""
    return _rows(connection, """
        SELECT models.name AS model_name, cost.model_id,
               min(cost.usd_per_million_output_tokens_on_demand_cheapest) AS self_hosted_usd_per_million_output_tokens,
               arg_min(cost.gpu_id, cost.usd_per_million_output_tokens_on_demand_cheapest) AS gpu_id,
               arg_min(cost.weight_precision, cost.usd_per_million_output_tokens_on_demand_cheapest)
                   AS weight_precision,
               arg_min(cost.is_synthetic, cost.usd_per_million_output_tokens_on_demand_cheapest) AS is_synthetic,
               arg_min(cost.usd_per_million_output_tokens_on_demand_cheapest_low,
                       cost.usd_per_million_output_tokens_on_demand_cheapest) AS self_hosted_low,
               arg_min(cost.usd_per_million_output_tokens_on_demand_cheapest_high,
                       cost.usd_per_million_output_tokens_on_demand_cheapest) AS self_hosted_high,
               arg_min(cost.gpus, cost.usd_per_million_output_tokens_on_demand_cheapest) AS gpus,
               arg_min(cost.node_gpus, cost.usd_per_million_output_tokens_on_demand_cheapest) AS node_gpus,
               any_value(cost.api_cheapest_usd_per_million_output_tokens) AS api_usd_per_million_output_tokens,
               any_value(cost.api_cheapest_usd_per_million_input_tokens) AS api_usd_per_million_input_tokens,
               any_value(cost.api_cheapest_provider) AS api_provider,
               any_value(cost.api_cheapest_model_slug) AS api_model_slug,
               any_value(cost.api_is_synthetic) AS api_is_synthetic,
               cast(any_value(cost.api_cheapest_usd_per_million_output_tokens) AS DOUBLE)
                   / min(cost.usd_per_million_output_tokens_on_demand_cheapest) AS api_to_self_hosted
        FROM marts.inference_cost_daily AS cost JOIN reference.reference_models AS models USING (model_id)
        WHERE cost.price_date = ? AND cost.usd_per_million_output_tokens_on_demand_cheapest IS NOT NULL
        GROUP BY ALL ORDER BY models.name""", [latest])


def read_outlooks(connection: duckdb.DuckDBPyConnection, horizon: int = OUTLOOK_HORIZON_DAYS) -> list[dict]:
    """Per series with an outlook today (marts.gpu_price_outlook_scores lists the series the warehouse holds now):
    its outlook on its last day (marts.gpu_price_outlook_daily) beside its own backtested figures, with its market's
    channel and unit; by GPU and market."""
    found = _rows(connection, """
        SELECT outlook.price_date, outlook.gpu_id, outlook.market, outlook.provider, outlook.kind, outlook.basis,
               outlook.basis_note, outlook.days_unchanged, outlook.horizon_days, outlook.price_usd,
               outlook.prob_drop_5pct, outlook.prob_drop_10pct, outlook.p10_price_usd, outlook.p50_price_usd,
               outlook.p90_price_usd, outlook.expected_low_usd, outlook.days_of_history,
               outlook.price_date + outlook.horizon_days AS horizon_date,
               outlook.p50_price_usd / outlook.price_usd - 1 AS p50_change,
               scores.scored_days, scores.first_scored_date, scores.last_scored_date, scores.drop_5pct_skill,
               scores.drop_10pct_skill, scores.interval_80_coverage, scores.quantile_skill,
               outlook.is_synthetic OR scores.is_synthetic AS is_synthetic
        FROM marts.gpu_price_outlook_scores AS scores
        JOIN marts.gpu_price_outlook_daily AS outlook
          ON outlook.gpu_id = scores.gpu_id AND outlook.market = scores.market AND outlook.provider = scores.provider
         AND outlook.horizon_days = scores.horizon_days AND outlook.price_date = scores.as_of
        WHERE scores.horizon_days = ?
        ORDER BY outlook.gpu_id, outlook.market, outlook.provider""", [horizon])
    for row in found:
        market = MARKETS.get(row["market"])
        row.update(channel=market.channel if market else None, anchor=outlook_anchor(row),
                   price_per=market.price_per if market else None, disagreement=outlook_disagreement(row))
    return found


def outlook_anchor(row: dict) -> str:
    """The id of an outlook's section on its GPU page: outlook-MARKET for the market's cheapest, outlook-MARKET-
    PROVIDER for a provider's own series (anything but [a-z0-9._-] in the provider's name becomes '_')."""
    provider = row.get("provider") or "any"
    return f"outlook-{row['market']}" + ("" if provider == "any" else "-" + re.sub(r"[^a-z0-9._-]", "_",
                                                                                   provider.lower()))


def outlook_disagreement(row: dict) -> dict | None:
    """Where the outlook's drop chance contradicts its own percentiles: the lowest price within (t, t + h] is at most
    the price on t + h, so a percentile q of that price at or under (1 - d) x today's means P(drop >= d) >= q. The
    drop chances and the percentiles are separate fits; a chance DISAGREEMENT_MARGIN or more under that bound (e.g.
    a median 20% lower, yet a 10% drop given 2%) is reported, the worst level: {"level", "chance", "bound",
    "percentile"}; None when they agree. A comparison of the mart's own figures, nothing refitted."""
    worst = None
    for level, chance in ((0.05, row["prob_drop_5pct"]), (0.10, row["prob_drop_10pct"])):
        threshold = (1 - level) * row["price_usd"]
        implied = [(q, name) for q, name in ((0.9, "p90"), (0.5, "p50"), (0.1, "p10"))
                   if row[f"{name}_price_usd"] <= threshold]
        if implied:
            bound, name = implied[0]
            if bound - chance >= DISAGREEMENT_MARGIN and (worst is None or bound - chance > worst["gap"]):
                worst = {"level": level, "chance": chance, "bound": bound, "percentile": name, "gap": bound - chance}
    return worst


def outlook_lists(outlooks: list[dict], latest: date | None, limit: int = OUTLOOKS_LISTED,
                  current_days: int = OUTLOOK_CURRENT_DAYS) -> tuple[list[dict], list[dict]]:
    """The overview's two lists, from the outlooks made within `current_days` of the newest price day `latest` (an
    older one, of a series that stopped, says nothing about the coming days):
    - most likely to drop: the highest P(drop >= 5% within the horizon) first;
    - most likely to rise or hold: of the others, those whose median price at t + h is at or above today's (more
      likely higher than lower then), the lowest P(drop >= 5%) first, ties by the larger median rise. The model's
      median seldom moves 1% in 30 days: this list is the series least likely to get cheaper, not a forecast of
      rises.
    Each list at most `limit` series; a series is in one list at most."""
    if latest is None:
        return [], []
    # a held list price's chance is one pooled rate, the same for all: ranking them would order ties (held_list_prices)
    current = [row for row in outlooks if (latest - row["price_date"]).days <= current_days
               and row.get("basis") != "list_cut_rate"]
    drops = sorted(current, key=lambda r: (-r["prob_drop_5pct"], -r["prob_drop_10pct"], r["gpu_id"], r["market"]))
    drops = drops[:limit]
    listed = {(r["gpu_id"], r["market"], r.get("provider")) for r in drops}
    rises = sorted((r for r in current if r["p50_change"] >= 0
                    and (r["gpu_id"], r["market"], r.get("provider")) not in listed),
                   key=lambda r: (r["prob_drop_5pct"], -r["p50_change"], r["gpu_id"], r["market"]))
    return drops, rises[:limit]


def held_list_prices(outlooks: list[dict], latest: date | None,
                     current_days: int = OUTLOOK_CURRENT_DAYS) -> dict | None:
    """The current outlooks that are a held list price's pooled cut rate (basis list_cut_rate), told in one line on
    the overview rather than ranked: how many, of how many providers, and the rate's own words."""
    held = [row for row in outlooks if latest is not None and row.get("basis") == "list_cut_rate"
            and (latest - row["price_date"]).days <= current_days]
    if not held:
        return None
    return {"count": len(held), "providers": len({row["provider"] for row in held}),
            "gpus": len({row["gpu_id"] for row in held}), "is_synthetic": any(row["is_synthetic"] for row in held),
            "note": held[0]["basis_note"].split("; ", 1)[-1]}


def _gpu_pages(connection: duckdb.DuckDBPyConnection, verdicts: list[dict],
               outlooks: list[dict] | None = None) -> list[GpuPage]:
    specs = {r["gpu_id"]: r for r in _rows(connection, "SELECT * FROM reference.gpu_specs")}
    names = dict(connection.execute("SELECT gpu_id, name FROM marts.gpus").fetchall())
    gpu_specs = {r["gpu_id"]: r for r in _rows(connection, """
        SELECT gpu_id, memory_gib, memory_bandwidth_gbps, bf16_dense_tflops, form_factor, spec_source,
               datasheet_sources
        FROM marts.gpus""")}
    # Each GPU page's history in its own query: one query for every GPU is ~90k rows at 3 years of history.
    gpu_ids = [r[0] for r in connection.execute("SELECT DISTINCT gpu_id FROM marts.gpu_prices_daily ORDER BY 1").fetchall()]
    prices = [row for gpu_id in gpu_ids for row in _rows(connection, """
        SELECT prices.gpu_id, prices.price_date, prices.channel, prices.market, prices.price_per,
               prices.min_price_usd, prices.median_price_usd, prices.offer_count, prices.is_synthetic,
               prices.panel_id, prices.panel_providers, prices.provider_count, signals.panel_start,
               signals.trailing_30d_min_usd, signals.trailing_30d_median_usd,
               signals.trailing_90d_min_usd, signals.trailing_90d_median_usd
        FROM marts.gpu_prices_daily AS prices
        JOIN marts.buy_signals_daily AS signals USING (price_date, gpu_id, channel, market, price_per)
        WHERE prices.gpu_id = ? AND signals.gpu_id = ?
        ORDER BY channel, market, price_date""", [gpu_id, gpu_id])]
    # each provider's own prices where it has history (PROVIDER_HISTORY_DAYS from its first to its last day), on the
    # days its market's cheapest is over other providers too (a day it is alone, the cheapest is its price)
    provider_prices = [row for gpu_id in gpu_ids for row in _rows(connection, """
        WITH with_history AS (
            SELECT gpu_id, channel, market, price_per, provider FROM marts.gpu_provider_prices_daily
            WHERE gpu_id = $gpu AND NOT is_carried_forward
            GROUP BY ALL HAVING max(price_date) - min(price_date) >= $days
        )
        SELECT own.gpu_id, own.price_date, own.channel, own.market, own.price_per, own.provider, own.source,
               own.price_usd AS min_price_usd, own.is_synthetic, own.is_imported
        FROM marts.gpu_provider_prices_daily AS own
        JOIN with_history USING (gpu_id, channel, market, price_per, provider)
        JOIN marts.gpu_prices_daily AS prices USING (price_date, gpu_id, channel, market, price_per)
        WHERE own.gpu_id = $gpu AND prices.gpu_id = $gpu AND NOT own.is_carried_forward AND prices.provider_count >= 2
        ORDER BY own.channel, own.market, own.provider, own.price_date""", {"gpu": gpu_id, "days": PROVIDER_HISTORY_DAYS})]
    price_index = [row for gpu_id in gpu_ids for row in _rows(connection, """
        SELECT price_index.gpu_id, price_index.price_date, price_index.channel, price_index.market,
               price_index.price_per, price_index.price_index, price_index.matched_provider_count,
               price_index.is_synthetic OR coalesce(prices.is_synthetic, false) AS is_synthetic
        FROM marts.gpu_price_index_daily AS price_index
        LEFT JOIN marts.gpu_prices_daily AS prices USING (price_date, gpu_id, channel, market, price_per)
        WHERE price_index.gpu_id = ?
        ORDER BY channel, market, price_per, price_date""", [gpu_id])]
    signals = _rows(connection, """
        SELECT * FROM marts.buy_signals_daily
        QUALIFY row_number() OVER (PARTITION BY gpu_id, channel, market, price_per ORDER BY price_date DESC) = 1
        ORDER BY gpu_id, channel, market""")
    rent_vs_buy = {r["gpu_id"]: r for r in _rows(connection, """
        SELECT * FROM marts.rent_vs_buy_daily
        QUALIFY row_number() OVER (PARTITION BY gpu_id ORDER BY price_date DESC) = 1""")}
    offers = _rows(connection, """
        SELECT gpu_id, price_date, provider, source, channel, market, region,
               instance_type, title, unit_price_usd, price_per, url, is_synthetic, is_imported, is_credible,
               suspect_reason
        FROM marts.gpu_latest_offers
        QUALIFY row_number() OVER (PARTITION BY gpu_id, is_credible ORDER BY price_rank)
                <= CASE WHEN is_credible THEN ? ELSE ? END
        ORDER BY gpu_id, price_rank""", [OFFERS_PER_GPU, SET_ASIDE_OFFERS_PER_GPU])
    provider_moves = _rows(connection, f"""
        WITH last_day AS (SELECT gpu_id, max(price_date) AS last_date FROM marts.gpu_price_relatives_daily
                          GROUP BY gpu_id)
        SELECT relatives.gpu_id, channel, market, price_per, provider, count(*) AS matched_days,
               exp(sum(log_relative)) - 1 AS change, arg_max(price_usd, price_date) AS price_usd,
               max(price_date) AS last_date, bool_or(is_synthetic) AS is_synthetic
        FROM marts.gpu_price_relatives_daily AS relatives JOIN last_day USING (gpu_id)
        WHERE relatives.price_date > last_day.last_date - INTERVAL {PROVIDER_MOVE_DAYS} DAY
        GROUP BY relatives.gpu_id, channel, market, price_per, provider
        HAVING abs(sum(log_relative)) > 1e-9  -- the providers that held their price are not listed
        QUALIFY row_number() OVER (PARTITION BY relatives.gpu_id
                                   ORDER BY abs(change) DESC, channel, market, provider) <= {PROVIDER_MOVES_PER_GPU}
        ORDER BY relatives.gpu_id, abs(change) DESC, channel, market, provider""")
    # each GPU's plans on the marts' newest day (today's prices): the cheaper feasible precision per model, else the
    # reason the plan cannot be done
    training_plans = _rows(connection, """
        SELECT cost.gpu_id, cost.price_date, models.name AS model_name, cost.model_id, cost.training_precision,
               cost.is_feasible, cost.infeasible_reason, cost.unpriced_reason, cost.cost_usd_on_demand_cheapest,
               cost.cost_usd_on_demand_cheapest_low, cost.cost_usd_on_demand_cheapest_high, cost.cluster_gpus,
               cost.wall_clock_days, cost.wall_clock_days_high, cost.error_band_basis, cost.on_demand_provider_count,
               cost.is_synthetic
        FROM marts.training_cost_daily AS cost JOIN reference.reference_models AS models USING (model_id)
        WHERE cost.price_date = (SELECT max(price_date) FROM marts.training_cost_daily)
        QUALIFY row_number() OVER (PARTITION BY cost.gpu_id, cost.model_id
                                   ORDER BY cost.cost_usd_on_demand_cheapest IS NULL, cost.cost_usd_on_demand_cheapest,
                                            cost.is_feasible DESC, cost.training_precision) = 1
        ORDER BY cost.gpu_id, models.name""")
    serving_plans = _rows(connection, """
        SELECT cost.gpu_id, cost.price_date, models.name AS model_name, cost.model_id, cost.weight_precision,
               cost.is_feasible, cost.infeasible_reason, cost.gpus, cost.node_gpus,
               cost.usd_per_million_output_tokens_on_demand_cheapest,
               cost.usd_per_million_output_tokens_on_demand_cheapest_low,
               cost.usd_per_million_output_tokens_on_demand_cheapest_high, cost.is_synthetic
        FROM marts.inference_cost_daily AS cost JOIN reference.reference_models AS models USING (model_id)
        WHERE cost.price_date = (SELECT max(price_date) FROM marts.inference_cost_daily)
        QUALIFY row_number() OVER (PARTITION BY cost.gpu_id, cost.model_id
                                   ORDER BY cost.usd_per_million_output_tokens_on_demand_cheapest IS NULL,
                                            cost.usd_per_million_output_tokens_on_demand_cheapest,
                                            cost.is_feasible DESC, cost.gpus, cost.weight_precision) = 1
        ORDER BY cost.gpu_id, models.name""")
    imported = connection.execute("""
        SELECT DISTINCT gpu_id, source FROM marts.gpu_prices_by_source_daily
        WHERE source IN (SELECT source FROM monitoring.source_runs WHERE trigger = 'import') ORDER BY ALL""").fetchall()
    pages = []
    for gpu_id in gpu_ids:
        pages.append(GpuPage(
            gpu_id=gpu_id, spec=specs.get(gpu_id), name=names.get(gpu_id, gpu_id),
            prices=[r for r in prices if r["gpu_id"] == gpu_id],
            provider_prices=[r for r in provider_prices if r["gpu_id"] == gpu_id],
            signals=[r for r in signals if r["gpu_id"] == gpu_id],
            rent_vs_buy=rent_vs_buy.get(gpu_id),
            cheapest_offers=[r for r in offers if r["gpu_id"] == gpu_id],
            verdicts=page_verdicts([v for v in verdicts if v["gpu_id"] == gpu_id]),
            imported_sources=[source for gpu, source in imported if gpu == gpu_id],
            price_index=[r for r in price_index if r["gpu_id"] == gpu_id],
            provider_moves=[r for r in provider_moves if r["gpu_id"] == gpu_id],
            outlooks=[r for r in outlooks or [] if r["gpu_id"] == gpu_id],
            outlook_histories=outlook_histories(connection, [r for r in outlooks or [] if r["gpu_id"] == gpu_id]),
            catalogue_spec=gpu_specs.get(gpu_id),
            training_plans=[r for r in training_plans if r["gpu_id"] == gpu_id],
            serving_plans=[r for r in serving_plans if r["gpu_id"] == gpu_id],
        ))
    return pages


def outlook_histories(connection: duckdb.DuckDBPyConnection, outlooks: list[dict]) -> dict:
    """{(market, provider): rows} of each outlook of a provider's own series: that provider's own observed prices
    (not carried forward) over the OUTLOOK_HISTORY_DAYS up to the outlook's day, shaped as the fan chart reads a
    history (price_date, min_price_usd, is_synthetic)."""
    found = {}
    for row in outlooks:
        if row.get("provider", "any") == "any":
            continue
        found[(row["market"], row["provider"])] = _rows(connection, """
            SELECT price_date, min(price_usd) AS min_price_usd, bool_or(is_synthetic) AS is_synthetic
            FROM marts.gpu_provider_prices_daily
            WHERE gpu_id = $gpu AND market = $market AND provider = $provider AND NOT is_carried_forward
              AND price_date > $day - $days AND price_date <= $day
            GROUP BY price_date ORDER BY price_date""",
            {"gpu": row["gpu_id"], "market": row["market"], "provider": row["provider"], "day": row["price_date"],
             "days": OUTLOOK_HISTORY_DAYS})
    return found


def page_verdicts(verdicts: list[dict]) -> list[dict]:
    """The verdicts a GPU page lists, of one provider's or one panel's series each (marts.buy_verdicts, issue 40):
    every series long enough to backtest, and per market its newest series of the cheapest: the panel segment that
    ends on the market's last day (where no panel of two providers or more does, the one provider's series that does)."""
    latest: dict[str, object] = {}
    for verdict in verdicts:
        latest[verdict["market"]] = max(latest.get(verdict["market"], verdict["as_of"]), verdict["as_of"])
    panel_markets = {v["market"] for v in verdicts if v.get("series_kind") == "panel" and v["as_of"] == latest[v["market"]]}
    return [v for v in verdicts
            if v["backtest"] or (v["as_of"] == latest[v["market"]]
                                 and (v.get("series_kind") == "panel" or v["market"] not in panel_markets))]


CLUSTER_OFFERS_PER_GPU = 12  # whole nodes listed on a GPU page, cheapest first


def _attach_renter(connection: duckdb.DuckDBPyConnection, data: DashboardData, latest: date) -> None:
    """What a renter can get (issue 42): the overview's cheapest available beside cheapest listed (cloud on-demand
    and marketplace asks), and on each GPU page its providers' availability, commitment terms and nodes."""
    data.cheapest_available = _rows(connection, """
        SELECT gpu_id, market, cheapest_listed_usd, cheapest_listed_provider, cheapest_listed_availability,
               cheapest_available_usd, cheapest_available_provider, provider_count, available_provider_count,
               unavailable_provider_count, unknown_provider_count, is_synthetic
        FROM marts.gpu_cheapest_available_daily
        WHERE price_date = ? AND market IN ('on_demand', 'marketplace_on_demand')
          -- a name that does not say SXM or PCIe ("H100") is no part a buyer can compare: its GPU page lists it
          AND gpu_id NOT IN (SELECT gpu_id FROM marts.gpus WHERE form_factor = 'not stated')
        ORDER BY cheapest_available_usd IS NULL, cheapest_listed_usd, gpu_id, market""", [latest])
    availability = _rows(connection, """
        SELECT gpu_id, market, provider, availability, listed_price_usd, available_price_usd, offer_count,
               available_offer_count, unavailable_offer_count, unknown_offer_count, min_host_reliability,
               is_suspect, suspect_reason, is_synthetic
        FROM marts.gpu_availability_daily WHERE price_date = ?
        ORDER BY gpu_id, is_suspect, market, listed_price_usd, provider""", [latest])
    terms = _rows(connection, """
        SELECT gpu_id, provider, term_months, pricing_type, term_price_usd, on_demand_price_usd,
               discount_vs_on_demand, source, price_date, is_synthetic
        FROM marts.gpu_term_prices_daily
        QUALIFY price_date = max(price_date) OVER (PARTITION BY gpu_id, provider)
        ORDER BY gpu_id, term_months, term_price_usd, provider""")
    # one row per provider, market and node type: its cheapest region, and in how many regions it is listed
    nodes = _rows(connection, f"""
        WITH node_types AS (
            SELECT gpu_id, provider, market, instance_type, gpu_count, cluster_network, cluster_network_basis,
                   any_value(fabric) AS fabric, min(price_per_gpu_hour_usd) AS price_per_gpu_hour_usd,
                   min(node_price_usd_per_hour) AS node_price_usd_per_hour, count(*) AS listings,
                   bool_or(in_stock) AS in_stock, bool_or(is_synthetic) AS is_synthetic
            FROM marts.gpu_cluster_offers_daily
            WHERE price_date = ? AND market IS NOT NULL
            GROUP BY ALL
        )
        SELECT * FROM node_types
        QUALIFY row_number() OVER (PARTITION BY gpu_id
                                   ORDER BY cluster_network IS NULL, price_per_gpu_hour_usd, provider, instance_type,
                                            market)
                <= {CLUSTER_OFFERS_PER_GPU}
        ORDER BY gpu_id, cluster_network IS NULL, price_per_gpu_hour_usd, provider, instance_type, market""",
        [latest])
    for page in data.gpus:
        page.availability = [r for r in availability if r["gpu_id"] == page.gpu_id]
        page.terms = [r for r in terms if r["gpu_id"] == page.gpu_id]
        page.cluster_offers = [r for r in nodes if r["gpu_id"] == page.gpu_id]
