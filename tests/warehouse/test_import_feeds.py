"""Real multi-provider feeds as they are (issue 40): provider names as feeds spell them resolve to the project's
providers, an optional `channel` column is held against the provider's channel, GPU names the alias table or the
catalogue can read load, and a datacenter name without its form factor stays refused and is counted apart. The feed
is made up in the shape such feeds have (tests/fixtures/imports/synthetic_documented_format_*; PROVENANCE.md)."""

from __future__ import annotations

import csv

import duckdb
import pytest
from conftest import ROOT

from scrapers.gpu_names import form_factor_unstated, resolve_gpu_id
from warehouse.ingest.imports import import_prices, provider_id

FEED = ROOT / "tests" / "fixtures" / "imports" / "synthetic_documented_format_multi_provider_feed.csv"
FEED_COLUMNS = {"observed_at": "date", "provider": "provider", "gpu": "gpu_type", "price": "price_usd_per_hour"}


def rows(home, sql):
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        return connection.execute(sql).fetchall()


@pytest.mark.parametrize(("written", "provider"), [
    ("vastai", "vast"), ("vast.ai", "vast"), ("Vast-AI", "vast"), ("lambdalabs", "lambda"), ("Lambda Labs", "lambda"),
    ("datacrunch", "verda"), ("DataCrunch.io", "verda"), ("runpod", "runpod"), ("my-shop", "my-shop"),
])
def test_provider_names_as_feeds_spell_them(written, provider):
    assert provider_id(written) == provider


@pytest.mark.parametrize(("name", "gpu_id"), [
    ("TITAN RTX", "titan-rtx-24gb"), ("TITAN V", "titan-v-12gb"), ("TITAN Xp", "titan-xp-12gb"),
    ("NVIDIA TITAN X Pascal", "titan-x-pascal-12gb"), ("GTX TITAN X", "gtx-titan-x-12gb"),
    ("V100 16GB SXM", "v100-sxm2-16gb"), ("GB300", "gb300-288gb"), ("GB200", "gb200-186gb"),
    ("MI325X 256GB", "mi325x-256gb"), ("MI350X", "mi350x-288gb"), ("MI355X 288GB", "mi355x-288gb"),
    ("Q RTX 4000", "quadro-rtx-4000-8gb"), ("Q RTX 5000", "quadro-rtx-5000-16gb"), ("CMP 170HX", "cmp-170hx-8gb"),
    # the datasheet's product names: NVIDIA sells one H100 SXM and one H100 PCIe, both 80 GB
    ("H100 SXM", "h100-sxm5-80gb"), ("H100 PCIe", "h100-pcie-80gb"), ("NVIDIA H100 SXM", "h100-sxm5-80gb"),
    # still open: which TITAN X (Maxwell or Pascal), which V100 SXM generation, which A100 memory size
    ("TITAN X", None), ("V100 SXM", None), ("V100 32GB SXM", None), ("A100 PCIe", None), ("Titanium X", None),
])
def test_gpu_names_feeds_use(name, gpu_id):
    assert resolve_gpu_id(name) == gpu_id


@pytest.mark.parametrize(("name", "unstated"), [
    ("H200", True), ("Tesla V100", True), ("H100", True), ("A100 40GB", True), ("P100", True),
    ("H100 SXM", False), ("H200 NVL", False), ("MI300X", False), ("RTX 4090", False), ("GB300", False),
    ("TITAN V", False), ("B200", False),
])
def test_a_datacenter_name_without_its_form_factor_is_known_as_such(name, unstated):
    assert form_factor_unstated(name) is unstated


def test_a_multi_provider_feed_loads_under_the_projects_providers_and_counts_the_unstated_form_factors(home):
    result = import_prices(FEED, "feed-test", market="on_demand", currency="USD", bad_rows="quarantine",
                           columns=FEED_COLUMNS)
    with open(FEED, newline="") as handle:
        feed = list(csv.DictReader(handle))
    assert result.prices == len(feed) == 1500
    unstated = sum(1 for row in feed if row["gpu_type"] in ("H200", "Tesla V100"))
    assert result.rows_form_factor_unstated == unstated == 60
    # the 60 and 30 "V100 32GB SXM" (SXM2 or SXM3: not said); "H100 SXM"/"H100 PCIe" load as the datasheet's parts
    assert result.rows_quarantined == unstated + 30 == 90
    assert result.offers_loaded == 1410 and result.offers_loaded / len(feed) >= 0.94
    providers = dict(rows(home, "SELECT provider, count(*) FROM raw.offers GROUP BY 1"))
    assert set(providers) == {"vast", "lambda", "verda", "runpod", "coreweave", "tensordock", "digitalocean",
                              "hyperstack"}
    loaded = {gpu for (gpu,) in rows(home, "SELECT DISTINCT gpu_id FROM raw.offers")}
    assert {"titan-rtx-24gb", "titan-v-12gb", "titan-xp-12gb", "quadro-rtx-5000-16gb", "quadro-rtx-4000-8gb",
            "cmp-170hx-8gb", "v100-sxm2-16gb", "gb300-288gb", "gb200-186gb", "mi325x-256gb", "mi350x-288gb",
            "mi355x-288gb", "a100-80gb-unstated", "h100-sxm5-80gb", "h100-pcie-80gb"} <= loaded
    reasons = rows(home, "SELECT DISTINCT json_extract_string(detail, '$.gpu') FROM raw.quarantine")
    assert sorted(name for (name,) in reasons) == ["H200", "Tesla V100", "V100 32GB SXM"]


def test_a_channel_column_must_agree_with_the_provider(home, tmp_path):
    path = tmp_path / "feed.csv"
    path.write_text("observed_at,provider,gpu,market,price,currency,channel\n"
                    "2026-07-01,vastai,RTX 4090,on_demand,0.34,USD,marketplace\n"
                    "2026-07-01,lambdalabs,H100 SXM 80GB,on_demand,2.99,USD,cloud\n"
                    "2026-07-01,lambdalabs,A100 SXM4 40GB,on_demand,1.29,USD,marketplace\n"
                    "2026-07-01,vast.ai,RTX 3090,on_demand,0.22,USD,cloud\n"
                    "2026-07-01,runpod,L40S,on_demand,0.86,USD,retail\n"
                    "2026-07-01,runpod,L4,on_demand,0.40,USD,spaceship\n"
                    "2026-07-01,runpod,L40,on_demand,0.70,USD,\n")
    result = import_prices(path, "feed-test", market=None, currency=None, bad_rows="quarantine")
    assert (result.offers_loaded, result.rows_quarantined) == (3, 4)
    assert sorted(rows(home, "SELECT provider, channel, gpu_id FROM raw.offers")) == [
        ("lambda", "cloud", "h100-sxm5-80gb"), ("runpod", "cloud", "l40-48gb"), ("vast", "marketplace", "rtx-4090-24gb")]
    reasons = " | ".join(result.first_reasons)
    assert "line 4: channel 'marketplace': provider 'lambda' is not a marketplace" in reasons
    assert "line 5: channel 'cloud' does not fit provider 'vast' in this market (marketplace)" in reasons
    assert "line 6: channel 'retail' does not fit provider 'runpod'" in reasons
    assert "line 7: channel 'spaceship' is not one of cloud, marketplace, retail" in reasons
