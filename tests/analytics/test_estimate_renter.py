"""What a renter pays (analytics/estimate.py renter_costs' parts): the cheapest available price, all-in storage and
egress at the provider's published prices, and the spot cost with the expected restarts. Pure: rows as `estimate`
makes them, no warehouse."""

from __future__ import annotations

from decimal import Decimal

import pytest

from analytics.estimate import (
    EstimateRequest,
    ModelShape,
    RenterOptions,
    add_all_in,
    add_available,
    add_spot_restarts,
    billed_hours,
    published_figure,
)

COSTS = [
    {"provider": "nebius", "storage_usd_per_tb_month": Decimal("74.505806"), "egress_usd_per_tb": Decimal("0"),
     "as_of": "2026-08-22"},
    {"provider": "tensorpool", "storage_usd_per_tb_month": Decimal("100"), "egress_usd_per_tb": Decimal("0"),
     "as_of": "2026-08-22"},
    {"provider": "digitalocean", "storage_usd_per_tb_month": None, "egress_usd_per_tb": Decimal("9.313226"),
     "as_of": "2026-08-22"},
]


def training_row(**changes) -> dict:
    row = {"gpu_id": "h100", "gpu_hours": 1000.0, "wall_clock_days": 36.5, "cluster_gpus": 64,
           "cost_usd_cheapest": 2000.0, "on_demand_cheapest_provider": "nebius",
           "on_demand_cheapest_usd_per_gpu_hour": Decimal("2.00"), "cost_usd_spot_cheapest": 1000.0}
    return {**row, **changes}


def request(inference: bool = False) -> EstimateRequest:
    return EstimateRequest(model=ModelShape(name="m", total_params=70e9, active_params=70e9, tokens=1e12),
                           inference=inference)


def available(gpu_id, market, price, provider, available_count=1, unknown=0) -> dict:
    return {"gpu_id": gpu_id, "market": market, "cheapest_available_usd": price,
            "cheapest_available_provider": provider, "cheapest_available_source": provider,
            "available_provider_count": available_count, "unknown_provider_count": unknown, "is_synthetic": False}


def test_available_cost_scales_the_run_by_the_available_price_and_training_rents_its_cluster_from_clouds_only():
    # the plan's size tier (marts.gpu_cluster_prices_daily): lambda's InfiniBand nodes could be launched at 2.50
    row = training_row(cluster_available_usd_per_gpu_hour=Decimal("2.50"), cluster_available_provider="lambda",
                       cluster_available_source="lambda", cluster_available_provider_count=1)
    prices = {("h100", "on_demand"): available("h100", "on_demand", Decimal("1.90"), "hyperbolic"),
              ("h100", "marketplace_on_demand"): available("h100", "marketplace_on_demand", Decimal("1.20"), "vast")}
    add_available(row, prices, inference=False)
    # never vast's ask, nor the GPU market's cheapest single VM
    assert (row["available_provider"], row["cost_usd_available"]) == ("lambda", 2500.0)
    assert row["is_synthetic"] is False
    made_up = training_row(is_synthetic=False, rental_is_synthetic=True, cluster_available_usd_per_gpu_hour=Decimal("2.5"))
    add_available(made_up, prices, False)
    assert made_up["is_synthetic"] is True  # the available price behind a figure was made up
    serving = {"gpu_id": "h100", "on_demand_cheapest_usd_per_gpu_hour": Decimal("1.00"),
               "usd_per_million_output_tokens_cheapest": 3.0}
    add_available(serving, prices, inference=True)  # one serving machine may be a marketplace's ask
    assert serving["available_provider"] == "vast"
    assert serving["usd_per_million_output_tokens_available"] == pytest.approx(3.6)


def test_no_available_offer_is_no_price_and_counts_who_said_nothing():
    row = training_row()
    add_available(row, {("h100", "on_demand"): available("h100", "on_demand", None, None, 0, unknown=7)}, False)
    assert row["available_usd_per_gpu_hour"] is None and row["cost_usd_available"] is None
    assert row["unknown_provider_count"] == 7


def test_published_figure_is_the_providers_own_else_the_range_of_those_that_publish():
    assert published_figure(COSTS, "nebius", "storage_usd_per_tb_month")[:2] == (74.505806, 74.505806)
    low, high, basis = published_figure(COSTS, "lambda", "storage_usd_per_tb_month")
    assert (low, high) == (74.505806, 100.0) and "nebius, tensorpool" in basis  # digitalocean publishes none
    assert published_figure([], "lambda", "egress_usd_per_tb")[:2] == (None, None)


def test_all_in_adds_storage_for_the_runs_months_with_one_checkpoint_and_egress():
    row = training_row()  # 36.5 days = 1.2 months of 730 hours
    add_all_in(row, request(), RenterOptions(data_tb=10, egress_tb=2), COSTS)
    assert row["checkpoint_tb"] == pytest.approx(70e9 * 14 / 1e12)  # 0.98 TB
    assert row["stored_tb"] == pytest.approx(10.98)
    assert row["storage_usd_low"] == row["storage_usd_high"] == pytest.approx(10.98 * 74.505806 * 1.2)
    assert row["egress_usd_low"] == 0  # nebius: egress free on its page
    assert row["all_in_usd_low"] == pytest.approx(2000 + 10.98 * 74.505806 * 1.2)
    assert row["all_in_price_basis"] == "listed"


def test_all_in_where_the_provider_publishes_nothing_is_a_range_and_unknown_without_any_figure():
    row = training_row(on_demand_cheapest_provider="lambda")
    add_all_in(row, request(), RenterOptions(egress_tb=1), COSTS)
    assert row["egress_usd_low"] == 0 and row["egress_usd_high"] == pytest.approx(9.313226)
    assert row["all_in_usd_high"] - row["all_in_usd_low"] == pytest.approx(
        row["storage_usd_high"] - row["storage_usd_low"] + 9.313226)
    unknown = training_row(on_demand_cheapest_provider="lambda")
    add_all_in(unknown, request(), RenterOptions(egress_tb=1), [])
    assert unknown["all_in_usd_low"] is None  # a cost nobody publishes is unknown, never 0


HOTAISLE = [  # its price page: VMs of 1, 2 and 4 GPUs billed by the minute; 8-GPU bare metal for a month at least
    {"provider": "hotaisle", "billing_increment_seconds": 60, "minimum_rental_hours": None,
     "min_rental_gpus": 1, "max_rental_gpus": 4, "storage_usd_per_tb_month": None, "egress_usd_per_tb": None,
     "as_of": "2026-08-22"},
    {"provider": "hotaisle", "billing_increment_seconds": None, "minimum_rental_hours": Decimal("730"),
     "min_rental_gpus": 8, "max_rental_gpus": 8, "storage_usd_per_tb_month": None, "egress_usd_per_tb": None,
     "as_of": "2026-08-22"},
]


def test_billing_rounds_to_the_increment_and_raises_a_short_run_to_the_minimum_rental_of_its_size():
    assert billed_hours(HOTAISLE, "hotaisle", 4, 10.01)[0] == pytest.approx(10 + 1 / 60)  # whole minutes
    billed, basis = billed_hours(HOTAISLE, "hotaisle", 8, 100.0)  # a node: the bare-metal row, a month at least
    assert billed == 730 and "730 h minimum" in basis
    assert billed_hours(HOTAISLE, "hotaisle", 8, 900.0)[0] == 900.0
    hours, basis = billed_hours(HOTAISLE, "lambda", 8, 10.5)
    assert hours == 10.5 and "publishes no billing increment" in basis
    short = training_row(on_demand_cheapest_provider="hotaisle", wall_clock_days=2.0, cluster_gpus=16)
    add_all_in(short, request(), RenterOptions(egress_tb=0), HOTAISLE + COSTS)
    # two 8-GPU nodes for 48 h are paid for 730 h each: 16 GPUs x 682 h more at $2.00
    assert short["billing_usd"] == pytest.approx(16 * (730 - 48) * 2.0)
    assert short["all_in_usd_low"] == pytest.approx(2000 + 16 * (730 - 48) * 2.0 + short["storage_usd_low"])
    long = training_row(on_demand_cheapest_provider="nebius")
    add_all_in(long, request(), RenterOptions(egress_tb=0), COSTS)
    assert long["billing_usd"] == 0 and long["all_in_usd_low"] == pytest.approx(2000 + long["storage_usd_low"])


def test_all_in_uses_the_available_price_where_there_is_one():
    row = training_row(available_usd_per_gpu_hour=Decimal("2.5"), available_provider="tensorpool",
                       cost_usd_available=2500.0)
    add_all_in(row, request(), RenterOptions(available=True, data_tb=1), COSTS)
    assert (row["all_in_price_basis"], row["all_in_provider"], row["all_in_gpu_usd"]) == ("available", "tensorpool",
                                                                                          2500.0)


def test_spot_restarts_grow_with_nodes_and_checkpoint_interval():
    row = training_row()  # 64 GPUs = 8 nodes, 876 hours
    add_spot_restarts(row, checkpoint_hours=1.0)
    # 8 nodes x 5% (20%) a month of 730 hours x 876 hours
    assert row["spot_restarts_low"] == pytest.approx(8 * 0.05 / 730 * 876)
    assert row["spot_restarts_high"] == pytest.approx(8 * 0.20 / 730 * 876)
    # each restart loses half the interval plus the restart (0.75 h): paid on top of the spot cost
    assert row["cost_usd_spot_low"] == pytest.approx(1000 * (1 + row["spot_restarts_low"] * 0.75 / 876))
    longer = training_row()
    add_spot_restarts(longer, checkpoint_hours=4.0)
    assert longer["cost_usd_spot_high"] > row["cost_usd_spot_high"]
    none = training_row(cost_usd_spot_cheapest=None)
    add_spot_restarts(none, checkpoint_hours=1.0)
    assert none["cost_usd_spot_low"] is None


def test_an_infeasible_plan_has_no_all_in_cost_and_no_spot_range():
    """An infeasible training plan has no cluster that holds it and no run length: its all-in cost and its spot
    range are unknown (the CLI's --data-tb on such a row was a TypeError)."""
    row = training_row(wall_clock_days=None, cluster_gpus=None, cost_usd_cheapest=None, cost_usd_spot_cheapest=None)
    add_all_in(row, request(), RenterOptions(data_tb=5, egress_tb=1), COSTS)
    assert row["all_in_usd_low"] is None and row["all_in_usd_high"] is None and row["storage_usd_low"] is None
    add_spot_restarts(row, checkpoint_hours=1.0)
    assert row["cost_usd_spot_low"] is None and row["spot_restarts_low"] is None
