"""What a renter pays and can get (issue 42), on the offline run's warehouse: availability per provider and the
cheapest available, the commitment terms, the hosts' reliability, the all-in estimate and the cluster fabric."""

from __future__ import annotations

import json

import pytest
from conftest import gpuprices, sql_rows

pytestmark = pytest.mark.slow  # reads the session's offline warehouse


def test_availability_is_known_per_provider_and_never_read_from_a_carried_snapshot(warehouse):
    known = sql_rows(warehouse, """
        select distinct provider from marts.gpu_availability_daily
        where price_date = '2026-05-01' and availability <> 'unknown'""")
    assert len(known) >= 12  # the sources that say whether an offer can be launched
    assert sql_rows(warehouse, """
        select count(*) as n from marts.gpu_availability_daily
        where is_carried_forward and (availability <> 'unknown' or available_price_usd is not null)""")[0]["n"] == 0
    # the counts add up and an available price is one of the provider's prices
    assert sql_rows(warehouse, """
        select count(*) as n from marts.gpu_availability_daily
        where available_offer_count + unavailable_offer_count + unknown_offer_count <> offer_count
           or available_price_usd < listed_price_usd
           or (availability = 'available') <> (available_price_usd is not null)""")[0]["n"] == 0


def test_cheapest_available_sits_beside_the_credible_cheapest_listed(warehouse):
    rows = sql_rows(warehouse, """
        select available.*, market.credible_min_price_usd
        from marts.gpu_cheapest_available_daily as available
        join marts.gpu_market_prices_daily as market using (price_date, gpu_id, market)
        where available.price_date = '2026-05-01'""")
    assert rows and any(row["cheapest_available_usd"] is not None for row in rows)
    for row in rows:
        assert row["cheapest_listed_usd"] == row["credible_min_price_usd"]  # one rule for "cheapest"
        if row["cheapest_available_usd"] is not None:
            assert row["cheapest_available_usd"] >= row["cheapest_listed_usd"]
    # a suspect provider never heads the cheapest available
    assert sql_rows(warehouse, """
        select count(*) as n from marts.gpu_cheapest_available_daily as available
        join marts.gpu_availability_daily as provider
          on provider.price_date = available.price_date and provider.gpu_id = available.gpu_id
         and provider.market = available.market and provider.provider = available.cheapest_available_provider
        where provider.is_suspect""")[0]["n"] == 0


def test_commitment_terms_come_from_five_providers_with_every_published_term(warehouse):
    terms = sql_rows(warehouse, """
        select provider, list(distinct term_months order by term_months) as terms
        from marts.gpu_term_prices_daily group by provider""")
    by_provider = {row["provider"]: row["terms"] for row in terms}
    assert {"aws", "civo", "e2e", "together", "gcp"} <= set(by_provider)
    assert by_provider["civo"] == [6, 12, 24, 36] and by_provider["together"] == [1, 3, 6]
    # a commitment is cheaper than the same provider's on-demand price where both are listed
    assert sql_rows(warehouse, "select count(*) as n from marts.gpu_term_prices_daily "
                               "where discount_vs_on_demand <= 0 and provider in ('civo', 'together')")[0]["n"] == 0


def test_the_marketplace_spot_market_carries_the_hosts_published_reliability(warehouse):
    rows = sql_rows(warehouse, """
        select provider, market, min_host_reliability from marts.gpu_availability_daily
        where offers_with_reliability > 0""")
    assert {(row["provider"], row["market"]) for row in rows} >= {("vast", "marketplace_spot")}
    assert all(0 < float(row["min_host_reliability"]) <= 1 for row in rows)


def test_the_cluster_fabric_is_known_for_eight_providers_from_their_data_or_their_documentation(warehouse):
    rows = sql_rows(warehouse, """
        select cluster_network_basis, list(distinct provider order by provider) as providers
        from marts.gpu_cluster_offers_daily where price_date = '2026-05-01' and cluster_network is not null
        group by 1""")
    by_basis = {row["cluster_network_basis"]: set(row["providers"]) for row in rows}
    assert by_basis["source"] == {"latitudesh", "voltagepark"}
    assert {"azure", "nebius", "aws", "gcp", "oci", "coreweave"} <= by_basis["documented"]
    h100 = sql_rows(warehouse, """
        select cluster_network, fabric_source_url from marts.gpu_cluster_offers_daily
        where instance_type = 'Standard_ND96isr_H100_v5' and price_date = '2026-05-01' limit 1""")[0]
    assert h100["cluster_network"] == "infiniband" and "azure-docs" in h100["fabric_source_url"]


def test_estimate_prices_a_run_available_and_all_in(warehouse):
    ranked = json.loads(gpuprices(warehouse, "estimate", "--model", "llama-3.1-8b", "--available", "--data-tb", "5",
                                  "--egress-tb", "1", "--json").stdout)
    priced = [row for row in ranked if row["cost_usd_cheapest"] is not None]
    assert priced and all("all_in_usd_low" in row for row in priced)
    for row in priced:
        if row["available_usd_per_gpu_hour"] is not None:
            assert row["cost_usd_available"] == pytest.approx(
                row["gpu_hours"] * float(row["available_usd_per_gpu_hour"]))
        if row["all_in_usd_low"] is not None:
            assert row["all_in_usd_low"] >= float(row["all_in_gpu_usd"])
            assert row["all_in_usd_high"] >= row["all_in_usd_low"]
        assert row["stored_tb"] == pytest.approx(5 + 8.03e9 * 14 / 1e12, rel=0.05)
    text = gpuprices(warehouse, "estimate", "--model", "llama-3.1-8b", "--available", "--data-tb", "5").stdout
    assert "available:" in text and "all in at" in text and "spot with restarts" in text


def test_the_pages_show_cheapest_available_and_each_gpus_availability_terms_and_nodes(warehouse):
    index = (warehouse / "site" / "index.html").read_text()
    assert 'id="available"' in index and "Cheapest available, beside cheapest listed" in index
    # the run has offers named without their form factor (sesterce's "H100"): they head no overview answer
    unstated = [row["gpu_id"] for row in sql_rows(warehouse, """
        select distinct gpu_id from marts.gpu_cheapest_available_daily
        where gpu_id in (select gpu_id from marts.gpus where form_factor = 'not stated')""")]
    assert unstated
    available = index.split('id="available"')[1].split("</section>")[0]
    assert not [gpu for gpu in unstated if f"/{gpu}.html" in available]
    page = (warehouse / "site" / "gpu" / "h200-sxm-141gb.html").read_text()
    for section in ('id="availability"', 'id="terms"', 'id="nodes"'):
        assert section in page
    assert "together" in page.split('id="terms"')[1].split("</section>")[0]  # its 1-6 month tiers


def test_every_documented_fabric_matches_an_instance_type_the_run_saw(warehouse):
    """A typo in models/seeds/instance_fabrics.csv would document a fabric for nothing."""
    unmatched = sql_rows(warehouse, """
        select fabrics.provider, fabrics.instance_type_pattern from reference.instance_fabrics as fabrics
        where not exists (select 1 from intermediate.int_offers__daily as offers
                          where offers.provider = fabrics.provider
                            and offers.instance_type like fabrics.instance_type_pattern)""")
    assert unmatched == []
    # a provider's patterns never overlap: an offer takes one documented fabric (the view joins without aggregating)
    overlapping = sql_rows(warehouse, """
        select offers.provider, offers.instance_type, count(*) as patterns
        from (select distinct provider, instance_type from intermediate.int_offers__daily) as offers
        join reference.instance_fabrics as fabrics
          on fabrics.provider = offers.provider and offers.instance_type like fabrics.instance_type_pattern
        group by all having count(*) > 1""")
    assert overlapping == []
