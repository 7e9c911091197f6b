"""An import can name a scraped provider (provider=lambda) and is still marked imported on every row that shows it:
raw to the by-source marts, the GPU page's cheapest offers ("imported as lambda"), the market's credible minimum and
the alert message. Before, "lambda $1.05/GPU-h" headed the H100's cheapest offers with no mark at all."""

from __future__ import annotations

import duckdb
import pytest

from analytics.alerts.engine import evaluate
from analytics.alerts.rules import Rule
from dashboards.build import build as build_site
from dashboards.build import site_root
from flows.series_marts import write_series_marts
from warehouse.store.build import build
from warehouse.ingest.imports import import_prices

pytestmark = pytest.mark.slow  # a real dbt build

HISTORY = """observed_at,gpu,market,price,currency,provider,region,per
2026-04-01T12:00:00Z,H100 SXM5 80GB,on_demand,1.05,USD,lambda,us-east-1,gpu_hour
2026-04-01T12:00:00Z,H100 SXM5 80GB,on_demand,2.99,USD,acme,us-west,gpu_hour
"""


def test_an_import_naming_a_scraped_provider_is_marked_imported_on_every_row_that_shows_it(home, tmp_path):
    history = tmp_path / "lambda_prices.csv"
    history.write_text(HISTORY)
    import_prices(history, "my-lambda-history")
    write_series_marts(build())
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        def one(sql):
            return connection.execute(sql).fetchall()

        assert one("SELECT provider, is_imported FROM staging.stg_raw__offers ORDER BY provider") == [
            ("acme", True), ("lambda", True)]
        assert one("SELECT DISTINCT is_imported FROM marts.offers_daily") == [(True,)]
        assert one("SELECT provider, is_imported FROM marts.gpu_prices_by_source_daily ORDER BY provider") == [
            ("acme", True), ("lambda", True)]
        (cheapest,) = one("SELECT provider, unit_price_usd, is_imported FROM marts.gpu_latest_offers "
                          "WHERE gpu_id = 'h100-sxm5-80gb' AND price_rank = 1")
        assert cheapest[0] == "lambda" and float(cheapest[1]) == 1.05 and cheapest[2] is True
        assert one("SELECT credible_min_provider, credible_min_is_imported FROM marts.gpu_market_prices_daily "
                   "WHERE gpu_id = 'h100-sxm5-80gb' AND market = 'on_demand'") == [("lambda", True)]
    # the page says so where the provider is named
    build_site()
    page = (site_root() / "gpu" / "h100-sxm5-80gb.html").read_text()
    assert "imported as lambda" in page and "imported as acme" in page
    # and so does an alert it fires
    (event,) = evaluate([__import__("datetime").date(2026, 4, 1)], [Rule(
        name="cheap-h100", gpu="h100-sxm5-80gb", market="on_demand", condition="below", price="2").validate()])
    assert "at lambda (imported from a file, source my-lambda-history)" in event["message"]
