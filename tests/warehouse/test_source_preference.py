"""A provider's own API replaces the catalog's copy only where it covers it: the real SkyPilot GCP catalog
(anycloud-sh/catalog gcp/vms.csv, recordings/skypilot) and the bundled GCP Billing API answer, whose machine list
has no a2-ultragpu, a3-megagpu or a3-ultragpu family, through the real fetch, parse and load code and the dbt build.
The API answer is loaded as if it were a live real one (data_origin "captured", in this temporary warehouse only):
that is the case where the API wins, which the offline run never reaches (its GCP answer is reconstructed)."""

from __future__ import annotations

import asyncio

import pytest

from scrapers.http import HttpClient, HttpSettings
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    RecordedServer,
    load_recordings,
    placeholder_credentials,
    replay_plan,
    rewrite_to,
)
from warehouse.store import db
from warehouse.store.build import build
from warehouse.ingest.pipeline import fetch_and_land, ingest
from warehouse.store.progress import utc_now

pytestmark = pytest.mark.slow  # a dbt build


@pytest.fixture(scope="module")
def market(tmp_path_factory):
    day = replay_plan(load_recordings())[-1]

    async def load(server: RecordedServer) -> None:
        async with HttpClient(HttpSettings(**{**OFFLINE_HTTP.__dict__}), rewrite=rewrite_to(server.base_url)) as client:
            for source_id in ("gcp", "skypilot-gcp"):
                source = all_sources({source_id: day.overrides.get(source_id) or {}})[source_id]
                started_at = utc_now()
                run = await fetch_and_land(source, client, day.observed_at, "captured")
                assert ingest(source, run, "test", started_at).status == "loaded"

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUPRICES_HOME", str(tmp_path_factory.mktemp("preference") / "home"))
        with RecordedServer() as server, placeholder_credentials(list(all_sources().values())):
            server.routes = day.routes
            with db.writer_session():
                asyncio.run(load(server))
        build()
        with db.connect() as connection:
            yield db.fetch_dicts(connection, """
                SELECT gpu_id, pricing_type, instance_family, source, count(*) AS offers
                FROM intermediate.int_offers__market_daily WHERE provider = 'gcp' GROUP BY ALL ORDER BY ALL""")


def test_the_api_wins_the_families_it_lists(market):
    api = {(r["gpu_id"], r["instance_family"]) for r in market if r["source"] == "gcp"}
    assert ("a100-sxm4-40gb", "a#-highgpu-#") in api
    # and the catalog's copy of those families is not counted a second time
    assert not [r for r in market if r["source"] == "skypilot-gcp"
                and (r["gpu_id"], r["instance_family"]) in api and r["pricing_type"] == "on_demand"]


def test_families_only_the_catalog_has_stay(market):
    catalog = {(r["gpu_id"], r["instance_family"]) for r in market if r["source"] == "skypilot-gcp"}
    assert ("a100-sxm4-80gb", "a#-ultragpu-#") in catalog   # A100 80GB: a2-ultragpu
    assert ("h200-sxm-141gb", "a#-ultragpu-#") in catalog   # H200: a3-ultragpu
    assert ("h100-sxm5-80gb", "a#-megagpu-#") in catalog    # H100: a3-megagpu
    gpus = {r["gpu_id"] for r in market}
    assert {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb"} <= gpus
