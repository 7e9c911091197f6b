"""The stage after a dbt build that writes the series marts with Python (the daily run's `outlook` stage, and
`gpuprices build`): the flow calls the build (warehouse/) and then the analyses (analytics/), so the store never runs
an analysis. The tables are created with the others (warehouse/store/schema.py); dbt shows them as views."""

from __future__ import annotations

from analytics import buy_verdicts, outlook, outlook_scoring
from analytics.price_history import outlook_series
from warehouse.store import db
from warehouse.store.build import BuildPlan


def write_series_marts(plan: BuildPlan) -> int:
    """The marts Python writes from whole price series after a build (the daily run's `outlook` stage, after
    `build`): marts.gpu_price_outlook_daily (analytics/outlook.py) for the days the build rewrote of every series, or
    only each series' latest day after a full rebuild (`gpuprices outlook --rebuild`: every day); beside it
    marts.gpu_price_outlook_scores (each series' own backtested figures), and the buy signal's marts.buy_verdicts and
    marts.buy_signal_backtest (analytics/buy_verdicts.py, per provider or constant-panel series). It reads every series' whole history once, so unlike the
    incremental build its cost grows with the history (docs/operations.md#benchmarks). Returns the outlook rows
    written."""
    with db.connect() as connection:
        since = None if plan.full_refresh or not plan.rebuild_dates else min(plan.rebuild_dates)
        per_panel = outlook_series(connection)  # retail markets and each provider's own rentals (issue 40)
        written = outlook.write_mart(connection, per_panel, since=since)
        outlook_scoring.write_scores(connection, per_panel)
        buy_verdicts.write_marts(connection)  # its own series: one provider's or one constant panel's (issue 40)
        return written
