"""The import benchmark's synthetic GCP-shaped history: deterministic, in the import's columns, and with the share of
rows (a machine listed without its GPU part) that `--bad-rows quarantine` must hold back. (`gpuprices bench import`
itself prints figures; it is run by hand, not here.)"""

from __future__ import annotations

import duckdb

from dev.bench_import import SOURCE, WEEKS, generate
from warehouse.ingest.imports import import_prices


def test_the_synthetic_history_is_deterministic_and_its_bad_rows_are_quarantined(home, tmp_path):
    first, second = tmp_path / "a_SYNTHETIC.csv", tmp_path / "b_SYNTHETIC.csv"
    written = generate(first, 20_000)
    assert generate(second, 20_000) == written and first.read_bytes() == second.read_bytes()
    assert abs(written - 20_000) <= WEEKS * 4  # whole listings: within a week's rows of the size asked
    assert first.read_text().splitlines()[0] == "observed_at,gpu,market,price,currency,provider,region,per,gpu_count"
    result = import_prices(first, SOURCE, bad_rows="quarantine")
    assert result.prices == written and result.days == WEEKS
    assert 0.002 * written < result.rows_quarantined < 0.012 * written  # ~0.6%: the VM without its GPUs
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        reasons = {row[0] for row in connection.execute("SELECT DISTINCT reason FROM raw.quarantine").fetchall()}
        unresolved = connection.execute("SELECT count(*) FROM raw.offers WHERE gpu_id IS NULL").fetchone()[0]
    assert reasons <= {"price_out_of_band", "relative_outlier"} and unresolved == 0
    assert result.offers_loaded == written - result.rows_quarantined
