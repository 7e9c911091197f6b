"""`channel` is one word from the scraper's Offer to the marts (issue 41 part 3): cloud | marketplace | retail, and a
marketplace source says so itself (scrapers/base.py rental_channel), not a seed applied three layers up."""

from __future__ import annotations

import json

from conftest import FIXTURES, RECORDINGS, document, fixture_json, json_document

from scrapers.base import CHANNELS, marketplace_providers, rental_channel
from scrapers.cloud.runpod import RunPod
from scrapers.cloud.tensordock import TensorDock
from scrapers.cloud.vast import VastMarketplace


def test_rental_channel_is_the_marketplaces_own_word():
    assert CHANNELS == ("cloud", "marketplace", "retail")
    assert {"vast", "tensordock", "akash", "lium"} <= marketplace_providers()
    assert rental_channel("vast") == rental_channel("lium") == "marketplace"
    assert rental_channel("lambda") == rental_channel("runpod", "secure_cloud") == "cloud"
    assert rental_channel("runpod", "community_cloud") == "marketplace"  # hosts' machines, not RunPod's own


def test_each_marketplace_source_declares_its_asks_marketplace():
    vast = VastMarketplace().parse([json_document(json.loads(
        (FIXTURES / "vast" / "vast_bundles_capture_2026-08-22_gpu_index_h100_sxm_asc.json").read_text()))])
    assert vast and {offer.channel for offer in vast} == {"marketplace"}
    specs = fixture_json("tensordock/gpuhunt_tensordock_hostnode_specs_fixture.json")["fixture:specs"]
    tensordock = TensorDock().parse([json_document({"hostnodes": {"node-a": {"location": {"city": "Dallas",
                                                                                          "country": "US"},
                                                                             "specs": specs}}})])
    assert tensordock and {offer.channel for offer in tensordock} == {"marketplace"}
    runpod = RunPod().parse([document(RECORDINGS / "runpod" / "stale_capture_2026-08-25_gpu_types.json")])
    by_seller = {(offer.seller_type, offer.channel) for offer in runpod}
    assert by_seller == {("secure_cloud", "cloud"), ("community_cloud", "marketplace")}
