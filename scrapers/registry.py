"""Every source the warehouse knows, by id. A source's expectations live beside its definition."""

from __future__ import annotations

from scrapers.base import Expectations, Source
from scrapers.cloud.akash import AkashGpuPrices
from scrapers.cloud.aws import AwsEc2
from scrapers.cloud.azure import AzureRetailPrices
from scrapers.cloud.civo import Civo
from scrapers.cloud.coreweave import CoreWeave
from scrapers.cloud.crusoe import Crusoe
from scrapers.cloud.cudo import CudoCompute
from scrapers.cloud.digitalocean import DigitalOcean
from scrapers.cloud.digitalocean_page import DigitalOceanPage
from scrapers.cloud.e2e import E2ENetworks
from scrapers.cloud.gcp import GoogleCloud
from scrapers.cloud.gmicloud import GmiCloud
from scrapers.cloud.hotaisle import HotAisle
from scrapers.cloud.hotaisle_page import HotAislePage
from scrapers.cloud.hyperstack import Hyperstack
from scrapers.cloud.hyperstack_page import HyperstackPage
from scrapers.cloud.jarvislabs import Jarvislabs
from scrapers.cloud.lambda_cloud import LambdaCloud
from scrapers.cloud.latitudesh import LatitudeSh
from scrapers.cloud.linode import Linode
from scrapers.cloud.massedcompute import MassedCompute
from scrapers.cloud.massedcompute_page import MassedComputePage
from scrapers.cloud.nebius import Nebius
from scrapers.cloud.novita import Novita
from scrapers.cloud.oci import OracleCloud
from scrapers.cloud.primeintellect import PrimeIntellect
from scrapers.cloud.runpod import RunPod
from scrapers.cloud.scaleway import Scaleway
from scrapers.cloud.seeweb import Seeweb
from scrapers.cloud.sesterce import Sesterce
from scrapers.cloud.skypilot import SkyPilotCatalog
from scrapers.cloud.tensordock import TensorDock
from scrapers.cloud.tensorpool import TensorPool
from scrapers.cloud.thunder import ThunderCompute
from scrapers.cloud.together_gpus import TogetherGpus
from scrapers.cloud.vast import VastMarketplace
from scrapers.cloud.verda import Verda
from scrapers.cloud.voltagepark import VoltagePark
from scrapers.cloud.vultr import Vultr
from scrapers.inference_api.deepinfra import DeepInfraPricingPage
from scrapers.inference_api.openrouter import OpenRouterModels
from scrapers.inference_api.openrouter_endpoints import OpenRouterEndpoints
from scrapers.inference_api.together import TogetherModels
from scrapers.reference.ecb import EcbReferenceRates
from scrapers.retail.amazon import AmazonPages
from scrapers.retail.bestbuy import BestBuyApi, BestBuyPages
from scrapers.retail.ebay import EbayBrowseApi, EbaySearch
from scrapers.retail.jd import JdStock
from scrapers.retail.microcenter import MicroCenterSearch
from scrapers.retail.newegg import NeweggProducts
from scrapers.retail.shop_pages import ShopProductPages

# What a sane fresh catalog of each cloud must contain (GPUs seen in every dated catalog we hold).
SKYPILOT_EXPECTATIONS = {
    "azure": Expectations(frozenset({"a100-pcie-80gb", "h100-sxm5-80gb", "t4-16gb", "a10-24gb"}), min_offers=200),
    "gcp": Expectations(frozenset({"h100-sxm5-80gb", "a100-sxm4-40gb", "l4-24gb", "t4-16gb"}), min_offers=500),
    "lambda": Expectations(frozenset({"h100-sxm5-80gb", "a100-sxm4-40gb", "b200-180gb"}), min_offers=50),
    "vast": Expectations(frozenset({"rtx-4090-24gb", "h100-sxm5-80gb"}), min_offers=20),
    "aws": Expectations(frozenset({"h100-sxm5-80gb", "a10g-24gb", "t4-16gb"}), min_offers=50),
    # catalogs/v8 clouds (recordings/skypilot/v8): GPUs each real catalog holds, about half its GPU offers
    "cudo": Expectations(frozenset({"a100-pcie-80gb", "h100-sxm5-80gb", "l40s-48gb"}), min_offers=60),
    "daytona": Expectations(frozenset({"h200-sxm-141gb", "rtx-5090-32gb"}), min_offers=40),
    "hyperbolic": Expectations(frozenset({"h100-sxm5-80gb"}), min_offers=1),
    "hyperstack": Expectations(frozenset({"h100-pcie-80gb", "a100-pcie-80gb", "l40-48gb"}), min_offers=10),
    "jarvislabs": Expectations(frozenset({"l4-24gb", "h200-sxm-141gb"}), min_offers=6),
    "lium": Expectations(frozenset({"rtx-5090-32gb"}), min_offers=10),
    "mithril": Expectations(frozenset({"h100-sxm5-80gb", "h200-sxm-141gb"}), min_offers=4),
    "nebius": Expectations(frozenset({"h100-sxm5-80gb", "h200-sxm-141gb", "l40s-48gb"}), min_offers=10),
    "primeintellect": Expectations(frozenset({"h100-sxm5-80gb", "h200-sxm-141gb"}), min_offers=40),
    "seeweb": Expectations(frozenset({"l40s-48gb", "l4-24gb"}), min_offers=10),
    "shadeform": Expectations(frozenset({"a100-sxm4-80gb", "l40s-48gb"}), min_offers=50),
    "spheron": Expectations(frozenset({"h100-pcie-80gb", "l40s-48gb"}), min_offers=60),
    "verda": Expectations(frozenset({"b200-180gb", "h200-sxm-141gb"}), min_offers=10),
    "yotta": Expectations(frozenset({"rtx-5090-32gb"}), min_offers=4),
    # v8 catalogs too large to bundle (read live; real rows in tests/fixtures/skypilot_v8): GPUs each real file holds,
    # live only (too large to bundle); a floor well under the files read (oci: 21 GPU shapes x ~55 availability
    # domains; runpod: ~10,900 GPU rows with Price and SpotPrice), since SkyPilot's RunPod fetcher now keeps only
    # launchable zones: a catalog this small is a broken one, not a smaller market
    "oci": Expectations(frozenset({"a10-24gb", "b200-180gb", "h200-sxm-141gb", "l40s-48gb"}), min_offers=200),
    "runpod": Expectations(frozenset({"h100-sxm5-80gb", "a100-pcie-80gb", "l40s-48gb", "rtx-4090-24gb"}),
                           min_offers=500),
}
# Direct provider sources, in README order.
DIRECT_SOURCES = (
    AwsEc2, AzureRetailPrices, GoogleCloud, OracleCloud, LambdaCloud, RunPod, VastMarketplace, CudoCompute, Verda,
    Jarvislabs, TensorDock, Seeweb, Vultr, DigitalOcean, HotAisle, AkashGpuPrices, Scaleway, Linode, PrimeIntellect,
    Hyperstack, LatitudeSh, MassedCompute, Novita, ThunderCompute, VoltagePark, Civo, GmiCloud,
    CoreWeave, Crusoe, Nebius, E2ENetworks, TensorPool, Sesterce, TogetherGpus, HotAislePage, DigitalOceanPage,
    HyperstackPage, MassedComputePage,
)
# Retail sources (card prices), in README order; what each fetches comes from the watch list.
RETAIL_SOURCES = (
    NeweggProducts, BestBuyPages, BestBuyApi, AmazonPages, EbaySearch, EbayBrowseApi, MicroCenterSearch, JdStock,
    ShopProductPages,
)
# Reference data the prices need: the exchange rates every non-USD price is converted with.
REFERENCE_SOURCES = (EcbReferenceRates,)
# Per-token API prices of language models, beside the self-hosted serving cost (raw.api_token_prices).
INFERENCE_API_SOURCES = (OpenRouterModels, OpenRouterEndpoints, TogetherModels, DeepInfraPricingPage)


# Every source id, in README order: the classes' own ids, then one SkyPilot catalog per cloud.
_SOURCE_CLASSES = DIRECT_SOURCES + RETAIL_SOURCES + REFERENCE_SOURCES + INFERENCE_API_SOURCES
SOURCE_IDS = tuple(source_class.id for source_class in _SOURCE_CLASSES) + tuple(
    f"skypilot-{cloud}" for cloud in SKYPILOT_EXPECTATIONS)
_CLASSES = {source_class.id: source_class for source_class in _SOURCE_CLASSES}


def source_by_id(source_id: str, overrides: dict | None = None) -> Source:
    """One source, configured with `overrides` (constructor settings, e.g. a SkyPilot catalog_url)."""
    overrides = overrides or {}
    if source_id in _CLASSES:
        return _CLASSES[source_id](**overrides)
    cloud = source_id.removeprefix("skypilot-")
    if source_id.startswith("skypilot-") and cloud in SKYPILOT_EXPECTATIONS:
        return SkyPilotCatalog(cloud, SKYPILOT_EXPECTATIONS[cloud], catalog_url=overrides.get("catalog_url"))
    raise KeyError(f"unknown source {source_id!r}")


def all_sources(overrides: dict[str, dict] | None = None) -> dict[str, Source]:
    """All sources by id. `overrides` maps a source id to constructor settings."""
    overrides = overrides or {}
    return {source_id: source_by_id(source_id, overrides.get(source_id)) for source_id in SOURCE_IDS}
