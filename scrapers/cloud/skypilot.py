"""SkyPilot catalogs: one `vms.csv` per cloud, one source id per cloud (`skypilot-azure`, `skypilot-shadeform`...).

Which catalog: the upstream repo (skypilot-org/skypilot-catalog) keeps one folder per catalog schema version
(`catalogs/v7`, `catalogs/v8`...) and its README names the newest one ("**Latest catalog schema version**: v8") and
the versions it still refreshes ("**The versions that are still being updated periodically**: v7, v8"). A run
reads the README, then the newest version that carries this cloud with a header we can read; if that fails (the
README changed, the newest schema lost a column we need, a cloud left the newest version) it reads the last
version that worked, remembered per cloud in the data home (catalog_state_dir), and `gpuprices status` says so.
A pinned `catalog_url` (the offline replay of dated commits, the history backfill) skips all this.

Format facts (the real catalogs in recordings/skypilot/ and recordings/skypilot/v8/, origins in their READMEs);
every one of them is handled here:
- column order differs per cloud and schema: rows are read by header name; extra columns (v8: UpstreamCloudId,
  StorageGiB, Provider, OperatingSystem, Arch...) are ignored unless named below;
- `Price`/`SpotPrice` are USD per hour for the whole row (all `AcceleratorCount` GPUs); rows without an
  AcceleratorName (or with AcceleratorCount 0) are CPU machines and skipped;
- azure: `Generation` is written unquoted (`V1,V2`), so most rows have one field more than the header: the named
  columns are taken and the tail is joined back into Generation. AcceleratorCount can be a fraction (0.167);
- gcp: GPU rows have an EMPTY InstanceType: that is the price of attaching `AcceleratorCount` GPUs, GPU only.
  A full A2/A3/A4/G2 machine = the VM row (AcceleratorName empty) + the GPU row of the same zone. We publish both:
  the GPU-only price (includes_host_vm = false) and the machine price (includes_host_vm = true);
- lambda: the model and variant are in the instance name (gpu_8x_h100_sxm5), not in AcceleratorName;
- vast: rows are SkyPilot's medians per shape, not raw offers; `SpotPrice` 0.00 means unknown, not free.
  GpuInfo's SizeInMiB is the memory of all the row's GPUs together.
  The vast GPU name in the instance type keeps the variant that AcceleratorName drops (H100_NVL vs H100_SXM);
- aggregators: a shadeform row's instance name starts with the cloud that rents it (`crusoe_A100-80G-sxm4x8`), a
  primeintellect row's with `<cloud>__` (`lambdalabs__8xH100_80GB__208__1800`), a spheron row names it in its
  `Provider` column (`sesterce`, `data-crunch`, `spheron-ai` = Spheron itself). That cloud is the offer's provider;
  the aggregator is kept as `via`;
- GpuInfo memory: per GPU in MiB in most catalogs, but the whole row's in vast and primeintellect, and in GB (in a
  field named SizeInMiB) in shadeform and runpod (runpod: only below 1024, see _PER_GPU_GB_UNDER_1024); 0 in some
  seeweb rows (unknown). GpuInfo is a Python dict literal in most
  catalogs and JSON (double quotes, `null`) in verda, primeintellect, spheron, hyperstack;
- other clouds: the GPU name is AcceleratorName completed with what the row itself states and the name lacks:
  the form factor from the instance or accelerator name (sxm4, pcie, nvl) and the per-GPU memory from GpuInfo
  ("H100-SXM" + 81920 MiB -> "H100-SXM 80GB"); GpuInfo's device name counts as a name (runpod: AcceleratorName
  "H100", GpuInfo "H100 PCIe" -> "H100 PCIe 80GB"). Nothing else is guessed: "H100" with 80 GB and no form factor
  stays unmatched (SXM and PCIe parts differ);
- interconnect: kept only where a name says it (sxm, pcie, nvlink bridges; scrapers/interconnect.py); no catalog has a
  column for it, none says InfiniBand;
- yotta: the file has no newline after its last row, so a cut body cannot be told from a whole one by its end;
  every other catalog must end with a newline (a truncated download fails loudly);
- runpod: every row is `<N>x_<GPU>_SECURE` (SkyPilot's fetcher skips community cloud); a `_COMMUNITY` row would
  be a marketplace ask (seller_type community_cloud, as the direct runpod source); SpotPrice equals Price in the
  catalog read. oci: one block of the same shapes per availability domain, spot only on the VM.GPU2/GPU3 shapes;
  its names state no form factor (H100, A100-80GB: the -unstated ids). Neither file is bundled (too large);
- line endings: most v8 catalogs are CRLF (Python's csv module default), cudo/hyperstack/yotta LF: both read.
"""

from __future__ import annotations

import ast
import csv
import functools
import io
import json
import os
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from config.settings import data_home
from scrapers.base import Expectations, Offer, Source, rental_channel
from scrapers.cloud.aggregators import PROVIDER_IDS, renting_provider
from scrapers.cloud.azure_vm_sizes import vm_sizes
from scrapers.errors import FetchError, ParseError
from scrapers.gpu_names import (
    UNSTATED_SUFFIX,
    memory_class_gib,
    name_key,
    resolve_gpu_id,
)
from scrapers.http import HttpClient, RawDocument
from scrapers.interconnect import interconnect_of
from scrapers.offline import Generated

CATALOG_REPO_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
CATALOG_README_URL = f"{CATALOG_REPO_URL}/README.md"
CATALOG_URL = CATALOG_REPO_URL + "/catalogs/{version}/{cloud}/vms.csv"
# The newest schema this parser was checked against (recordings/skypilot/v8): what a cloud falls back to when the
# README cannot be read and no run has worked yet.
KNOWN_SCHEMA_VERSION = "v8"
REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region")
_LATEST_LINE = re.compile(r"\*\*Latest catalog schema version\*\*:\s*(v\d+)")
_UPDATED_LINE = re.compile(r"\*\*The versions that are still being updated periodically\*\*:\s*([v\d, ]+)")

# GCP machine families that carry GPUs -> AcceleratorName of the matching GPU row; the count is the "<N>g" suffix.
_GCP_FAMILIES = {
    "a2-highgpu": "A100",
    "a2-megagpu": "A100",
    "a2-ultragpu": "A100-80GB",
    "a3-highgpu": "H100",
    "a3-edgegpu": "H100",
    "a3-megagpu": "H100-MEGA",
    "a3-ultragpu": "H200",
    "a4-highgpu": "B200",
}
# g2-standard-<vCPUs>: the L4 count follows the machine size (Google's G2 machine table).
_G2_L4_COUNT = {4: 1, 8: 1, 12: 1, 16: 1, 32: 1, 24: 2, 48: 4, 96: 8}
_GCP_GPU_COUNT = re.compile(r"-(\d+)g$")
_LAMBDA_NAME = re.compile(r"^gpu_(\d+)x_(.+)$")
_VAST_NAME = re.compile(r"^(\d+)x-(.+)-(\d+)-(\d+)$")

_ANYCLOUD = "real dated catalogs bundled (anycloud-sh/catalog, 2026-04/05): parser tests + offline replay"
# What the bundled v8 catalogs are: recordings/skypilot/v8/README.md (commit per file).
V8_COMMITS = {
    "cudo": "e280db6c2d70d4828c039527b027ea3a14a88073",
    "daytona": "0eb5da57210acb5149367bd2b2f23237591aa2f5",
    "hyperbolic": "0082b0435f3912ae4c566856b272455cc78f4f61",
    "hyperstack": "fdc9d908ab0b2af9f468f139fb3f662c8c6b3257",
    "jarvislabs": "57d65781a544958d7d07014f062f7d1cad8415a7",
    "lium": "04a03aee12247fb62be7a2ee9d460bbf6dff30b1",
    "mithril": "1f9eb0c264f9a6d78833766f4b18353ac7dfdde9",
    "nebius": "0082b0435f3912ae4c566856b272455cc78f4f61",
    "primeintellect": "d9a304ea01e96cd4a043159c60d9326d8de4cf0f",
    "seeweb": "004a1aef76542bb40d12fcedaaf091551ddf5fb4",
    "shadeform": "002363dac75913b446b2d3d564ae795678849dfd",
    "spheron": "38989832381639474084a75fd97e82a4290070ea",
    "vast": "01b8cdda287814b30ff0acb49746cca19fbd4355",
    "verda": "000c1d0bf24621f4ac37cfa585f0897c1aa1d9cf",
    "yotta": "1f6904890c9bb9408f1d11e2865c3c1ee4d409c0",
}
# v8 catalogs too large to bundle for the offline run (like aws): read live only; whole real rows of them are the
# parser tests' fixtures (tests/fixtures/skypilot_v8, commit per file in tests/fixtures/PROVENANCE.md).
V8_LIVE_ONLY_COMMITS = {
    "oci": "0588751183820cf2dab5c8a89447e8aac9f73fd5",
    "runpod": "01acdfd419ce5afae1289ff14825b893ced0c196",
}
SAMPLE_STATUS = {
    **{cloud: (f"real capture, skypilot-catalog commit {commit[:10]} (catalogs/v8, commit date unknown: replayed as "
               "a stale capture): parser tests + offline replay") for cloud, commit in V8_COMMITS.items()},
    **{cloud: _ANYCLOUD for cloud in ("azure", "gcp", "lambda")},
    "vast": f"{_ANYCLOUD}; v8 real capture (skypilot-catalog {V8_COMMITS['vast'][:10]}) in the parser tests",
    **{cloud: (f"none: parser tests only, on real rows of skypilot-catalog {commit[:10]} (catalogs/v8: too large to "
               "bundle, no offline recording)") for cloud, commit in V8_LIVE_ONLY_COMMITS.items()},
}

# The clouds read, one source `skypilot-<cloud>` each, and what a sane fresh catalog of each must contain (GPUs seen in
# every dated catalog we hold).
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
# The clouds whose real catalogs are bundled for the offline run (recordings/skypilot/: MANIFEST.csv, v8/MANIFEST.csv)
_BUNDLED_CLOUDS = frozenset({"azure", "gcp", "lambda", "vast", *V8_COMMITS})
OFFLINE_CATALOGS = Generated("dev.recordings.from_skypilot:catalog_recordings",
                             "the bundled real catalogs at their URLs (anycloud-sh commits, dated; v8 files, undated)")

# Aggregator catalogs: how a row names the cloud that rents it.
_AGGREGATOR_PREFIX = {"shadeform": "_", "primeintellect": "__"}  # <cloud><separator><rest of the instance name>
_AGGREGATOR_COLUMN = {"spheron": "Provider"}
# How GpuInfo states memory, where it is not "per GPU, in MiB".
_ROW_TOTAL_MIB = frozenset({"vast", "primeintellect"})
_PER_GPU_GB = frozenset({"shadeform"})
# runpod: GB per GPU in the catalog (SizeInMiB 80 for an 80 GB A100), but SkyPilot's current fetcher writes MiB
# (memoryInGb * 1024): a figure under 1024 cannot be MiB (no GPU has less than 1 GiB), so it is read as GB.
_PER_GPU_GB_UNDER_1024 = frozenset({"runpod"})
# runpod: the instance name says which cloud sells it (`1x_H100-SXM_SECURE`); community cloud is a marketplace
# (seller_type as the direct runpod source writes it; stg_raw__offers files community_cloud under marketplace).
_SELLER_TYPES = {"runpod": (("_SECURE", "secure_cloud"), ("_COMMUNITY", "community_cloud"))}
_NO_FINAL_NEWLINE = frozenset({"yotta"})
_HAS_MEMORY = re.compile(r"\d+\s*g(?:b|ib)?(?![a-z])")
_WORDS = re.compile(r"[a-z0-9]+")


def catalog_state_dir() -> Path:
    """Where each cloud's catalog choice (version used, newest published, last that worked) is remembered."""
    return data_home() / "state" / "skypilot-catalog"


@dataclass
class CatalogChoice:
    """One cloud's catalog choice: written by every discovering fetch, read by the next one and by status."""

    cloud: str
    checked_at: str
    version_used: str
    newest_published: str | None  # None: the README could not be read
    last_working_version: str
    note: str | None = None  # set when the version used is not the newest published one (or nothing was read)


def read_choice(cloud: str) -> CatalogChoice | None:
    path = catalog_state_dir() / f"{cloud}.json"
    try:
        return CatalogChoice(**json.loads(path.read_text()))
    except (FileNotFoundError, ValueError, TypeError):
        return None


def _write_choice(choice: CatalogChoice) -> None:
    folder = catalog_state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{choice.cloud}.json.{os.getpid()}"
    partial.write_text(json.dumps(asdict(choice), indent=1))
    os.replace(partial, folder / f"{choice.cloud}.json")  # readers never see half a file


def catalog_notes() -> dict[str, CatalogChoice]:
    """Source id -> the catalog choice of its last discovering run (for `gpuprices status`)."""
    folder = catalog_state_dir()
    choices = (read_choice(path.stem) for path in sorted(folder.glob("*.json"))) if folder.exists() else ()
    return {f"skypilot-{choice.cloud}": choice for choice in choices if choice}


def published_versions(readme: str) -> list[str]:
    """The schema versions the catalog README says are current, newest first: the latest, then the others it
    still refreshes. Empty when the README no longer says."""
    latest = _LATEST_LINE.search(readme)
    if not latest:
        return []
    updated = _UPDATED_LINE.search(readme)
    others = re.findall(r"v\d+", updated.group(1)) if updated else []
    ordered = sorted({latest.group(1), *others}, key=lambda version: int(version[1:]), reverse=True)
    return [latest.group(1)] + [version for version in ordered if version != latest.group(1)]


class SkyPilotCatalog(Source):
    """The catalog of one cloud. `catalog_url` pins a file (any git ref of a catalog repo: the history backfill
    and dated replays use commits of anycloud-sh/catalog); without it the run discovers the schema version."""

    kind = "cloud"
    pricing_types = ("on_demand", "spot")
    hosts = ("raw.githubusercontent.com",)
    # 2: aggregator rows under the renting cloud (+ via), names completed from the row, interconnect;
    # 3: one provider id per cloud across aggregators (latitude -> latitudesh; Prime Intellect's own dc_* and
    #    primecompute -> primeintellect)
    parser_version = 3

    def __init__(self, cloud: str, expectations: Expectations, catalog_url: str | None = None):
        self.cloud = cloud
        self.id = f"skypilot-{cloud}"
        self.provider = PROVIDER_IDS.get(cloud, cloud)
        self.description = f"SkyPilot catalog `{cloud}/vms.csv` (whole-row prices per instance-hour)"
        if cloud in _AGGREGATOR_PREFIX or cloud in _AGGREGATOR_COLUMN:
            self.description += "; an aggregator: each row under the cloud that rents it, `via` " + cloud
        self.status = SAMPLE_STATUS.get(cloud, "parser generic (by header name); no real sample bundled, untested")
        self.expectations = expectations
        self.catalog_url = catalog_url
        self.offline = OFFLINE_CATALOGS if cloud in _BUNDLED_CLOUDS else None

    @classmethod
    def source_ids(cls) -> tuple[str, ...]:
        return tuple(f"skypilot-{cloud}" for cloud in SKYPILOT_EXPECTATIONS)

    @classmethod
    def create(cls, source_id: str, overrides: dict) -> SkyPilotCatalog:
        cloud = source_id.removeprefix("skypilot-")
        return cls(cloud, SKYPILOT_EXPECTATIONS[cloud], catalog_url=overrides.get("catalog_url"))

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        if self.catalog_url:
            return [await client.get(self.catalog_url, allowed_hosts=self.hosts)]
        return [await self._discover(client)]

    async def _discover(self, client: HttpClient) -> RawDocument:
        """The newest published catalog of this cloud whose header we can read; else the last version that
        worked. Transient failures are raised (the task retries); a 404 or an unreadable header moves on."""
        previous = read_choice(self.cloud)
        last_working = previous.last_working_version if previous else KNOWN_SCHEMA_VERSION
        problems: list[str] = []
        try:
            readme = (await client.get(CATALOG_README_URL, allowed_hosts=self.hosts)).text
            published = published_versions(readme)
            if not published:
                problems.append("the catalog README no longer names the latest schema version")
        except FetchError as error:
            if error.transient:
                raise
            published = []
            problems.append(f"the catalog README could not be read ({error})")
        candidates = published + [v for v in (last_working,) if v not in published]
        error_seen: FetchError | None = None
        for version in candidates:
            url = CATALOG_URL.format(version=version, cloud=self.cloud)
            try:
                document = await client.get(url, allowed_hosts=self.hosts)
            except FetchError as error:
                if error.transient:
                    raise
                error_seen = error
                problems.append(f"{version} has no {self.cloud} catalog ({error})")
                continue
            unreadable = header_problem(document.body, self.cloud)
            if unreadable:
                problems.append(f"{version}: {unreadable}")
                continue
            newest = published[0] if published else None
            note = None
            if version != newest:
                if version in published:
                    why = f"the newest published schema is {newest}"
                else:
                    why = f"the last version that worked; newest published: {newest or 'unknown'}"
                note = f"reading catalog schema {version} ({why}): " + "; ".join(problems)
            _write_choice(CatalogChoice(
                cloud=self.cloud, checked_at=datetime.now(UTC).isoformat(timespec="seconds"), version_used=version,
                newest_published=newest, last_working_version=version, note=note))
            return document
        raise error_seen or ParseError(f"{self.id}: no readable catalog: " + "; ".join(problems))

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: list[Offer] = []
        for index, document in enumerate(documents):
            rows = read_catalog_rows(document.body, self.cloud)
            if self.cloud == "gcp":
                offers.extend(self._parse_gcp(rows, index, document.url))
            else:
                for row in rows:
                    offers.extend(self._parse_row(row, index, document.url))
        return offers

    # -- per-cloud naming ------------------------------------------------------------------------------------
    def _renter(self, row: dict) -> tuple[str, str | None]:
        """(provider, via) of a row: the renting cloud and the aggregator it was seen through (None: direct)."""
        named = None
        if self.cloud in _AGGREGATOR_PREFIX:
            head, separator, _ = row["InstanceType"].partition(_AGGREGATOR_PREFIX[self.cloud])
            named = head if separator else None
        elif self.cloud in _AGGREGATOR_COLUMN:
            named = row.get(_AGGREGATOR_COLUMN[self.cloud]) or None
        if not named:
            return self.provider, None
        return renting_provider(named, self.cloud)

    def _gpu(self, row: dict, scope: str) -> tuple[str, str | None, Fraction]:
        """(raw GPU name, gpu_id or None, GPU count) of a row that has an accelerator."""
        count = _fraction(row["AcceleratorCount"], row)
        instance_type = row["InstanceType"]
        if self.cloud == "azure" and instance_type in vm_sizes():
            name, count = vm_sizes()[instance_type]  # exact fractions (1/6, not 0.167)
            return name, resolve_gpu_id(name, "azure"), count
        if self.cloud == "lambda" and (match := _LAMBDA_NAME.match(instance_type)):
            name = match.group(2)
            return name, resolve_gpu_id(name, "lambda"), count
        if self.cloud == "vast" and (match := _VAST_NAME.match(instance_type)):
            name = match.group(2).replace("_", " ")
            row_mib = _gpu_memory_mib(row, self.cloud, count)
            if row_mib:
                name = f"{name} {memory_class_gib(row_mib)}GB"
            return name, resolve_gpu_id(name, "vast"), count
        if self.cloud in ("azure", "gcp", "aws", "lambda", "vast"):
            name = row["AcceleratorName"]
            return name, resolve_gpu_id(name, self.cloud), count
        name, gpu_id = _stated_gpu_name(row, _gpu_memory_mib(row, self.cloud, count), _gpu_info_name(row), scope)
        return name, gpu_id, count

    def _offer(self, row, index, url, *, raw_name, gpu_id, count, pricing_type, price, offer_id, includes_host_vm=True,
               provider=None, via=None):
        return Offer(
            source=self.id,
            channel=rental_channel(provider or self.provider),
            provider=provider or self.provider,
            offer_id=offer_id,
            title=row["InstanceType"] or f"{row['AcceleratorName']} x{row['AcceleratorCount']} (GPU only)",
            raw_gpu_name=raw_name,
            gpu_id=gpu_id,
            gpu_count=count,
            pricing_type=pricing_type,
            price=price,
            currency="USD",
            price_unit="instance_hour",
            region=row["Region"] or None,
            includes_host_vm=includes_host_vm,
            instance_type=row["InstanceType"] or None,
            url=url,
            document_index=index,
            via=via,
            interconnect=interconnect_of(*_row_names(row)),
            seller_type=_seller_type(self.cloud, row["InstanceType"]),
        )

    def _parse_row(self, row: dict, index: int, url: str) -> list[Offer]:
        if not row["AcceleratorName"] or not _fraction(row["AcceleratorCount"] or "0", row):
            return []  # a CPU machine
        provider, via = self._renter(row)
        raw_name, gpu_id, count = self._gpu(row, provider)
        offer_id = f"{row['InstanceType']}|{row['Region']}|{row.get('AvailabilityZone', '')}"
        return [
            self._offer(row, index, url, raw_name=raw_name, gpu_id=gpu_id, count=count, pricing_type=pricing_type,
                        price=price, offer_id=offer_id, provider=provider, via=via)
            for pricing_type, price in _row_prices(row).items()
        ]

    def _parse_gcp(self, rows: list[dict], index: int, url: str) -> list[Offer]:
        offers: list[Offer] = []
        gpu_rows: dict[tuple[str, str, Fraction], dict] = {}
        for row in rows:
            if row["InstanceType"] or not row["AcceleratorName"]:
                continue
            count = _fraction(row["AcceleratorCount"], row)
            gpu_rows[(row["AvailabilityZone"], row["AcceleratorName"], count)] = row
            raw_name, gpu_id, _ = self._gpu(row, self.provider)
            offer_id = f"gpu:{row['AcceleratorName']}x{count}|{row['AvailabilityZone']}"
            for pricing_type, price in _row_prices(row).items():
                offers.append(
                    self._offer(row, index, url, raw_name=raw_name, gpu_id=gpu_id, count=count,
                                pricing_type=pricing_type, price=price, offer_id=offer_id, includes_host_vm=False)
                )
        for row in rows:
            machine = row["InstanceType"]
            accelerator = _gcp_machine_gpus(machine) if machine and not row["AcceleratorName"] else None
            if accelerator is None:
                continue
            accelerator_name, count = accelerator
            gpu_row = gpu_rows.get((row["AvailabilityZone"], accelerator_name, count))
            if gpu_row is None:
                continue  # the GPU part is not sold in this zone: no complete machine price
            raw_name, gpu_id, _ = self._gpu(gpu_row, self.provider)
            vm_prices, gpu_prices = _row_prices(row), _row_prices(gpu_row)
            for pricing_type, vm_price in vm_prices.items():
                gpu_price = gpu_prices.get(pricing_type)
                if not vm_price or not gpu_price:
                    continue  # either part unknown (or $0): the machine price is unknown
                offers.append(
                    self._offer(
                        row, index, url, raw_name=raw_name, gpu_id=gpu_id, count=count,
                        pricing_type=pricing_type, price=vm_price + gpu_price,
                        offer_id=f"{machine}|{row['AvailabilityZone']}",
                    )
                )
        return offers


def header_problem(body: bytes, cloud: str) -> str | None:
    """Why a catalog's header cannot be read (not UTF-8, empty, a required column missing), or None."""
    first_line = body.split(b"\n", 1)[0]
    try:
        header = next(csv.reader(io.StringIO(first_line.decode("utf-8").rstrip("\r"))), None)
    except UnicodeDecodeError as error:
        return f"not UTF-8 text ({error})"
    if not header:
        return "empty catalog"
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    return f"header lacks {missing}; got {header}" if missing else None


def read_catalog_rows(body: bytes, cloud: str) -> list[dict]:
    """Rows of a SkyPilot vms.csv as dicts keyed by header name. Raises ParseError on a wrong shape."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(f"skypilot-{cloud}: not UTF-8 text ({error})") from None
    if not text.endswith("\n") and cloud not in _NO_FINAL_NEWLINE:
        raise ParseError(f"skypilot-{cloud}: body does not end with a newline: truncated download?")
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise ParseError(f"skypilot-{cloud}: empty catalog")
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise ParseError(f"skypilot-{cloud}: header lacks {missing}; got {header}")
    rows = []
    for line_number, fields in enumerate(reader, start=2):
        if not fields:
            continue
        if len(fields) > len(header) and header[-1] == "Generation":
            # Azure writes Generation unquoted ("V1,V2"): join the tail back into the last column.
            fields = fields[: len(header) - 1] + [",".join(fields[len(header) - 1 :])]
        if len(fields) != len(header):
            raise ParseError(f"skypilot-{cloud}: line {line_number} has {len(fields)} fields, header has {len(header)}")
        rows.append(dict(zip(header, fields, strict=True)))
    return rows


def _row_prices(row: dict) -> dict[str, Decimal]:
    """{pricing_type: whole-row price} of the prices a row states. Empty = not offered; SpotPrice 0.00 = unknown
    (SkyPilot writes it when it has no bid), never free. A $0 on-demand price is kept: the integrity check
    quarantines it with its reason."""
    prices = {}
    for pricing_type, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
        price = _price(row[column], row)
        if price is not None and not (pricing_type == "spot" and price == 0):
            prices[pricing_type] = price
    return prices


def _price(value: str, row: dict) -> Decimal | None:
    if value is None or value.strip() == "":
        return None
    try:
        return Decimal(value.strip())
    except InvalidOperation:
        raise ParseError(f"price {value!r} is not a number in row {row}") from None


def _fraction(value: str, row: dict) -> Fraction:
    try:
        return Fraction(value.strip())
    except (ValueError, ZeroDivisionError, AttributeError):
        raise ParseError(f"AcceleratorCount {value!r} is not a number in row {row}") from None


def _gpu_info(row: dict) -> dict | None:
    """GpuInfo as a dict: a Python literal (single quotes) in most catalogs, JSON in some. Read only: the parsed
    value is shared by every row with the same text."""
    return _parsed_gpu_info(row.get("GpuInfo") or "")


@functools.lru_cache(maxsize=4096)
def _parsed_gpu_info(text: str) -> dict | None:
    # a catalog repeats a machine's GpuInfo on each of its region rows, and each row asks up to four times:
    # literal_eval was a third of a replay day's parse time
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    try:
        return json.loads(text)
    except ValueError:
        return None


def _gpu_info_name(row: dict) -> str | None:
    try:
        return str(_gpu_info(row)["Gpus"][0]["Name"]) or None
    except (KeyError, IndexError, TypeError):
        return None


def _gpu_memory_mib(row: dict, cloud: str, count: Fraction) -> float | None:
    """Memory of ONE of the row's GPUs, in MiB, from GpuInfo (see the module docstring for each catalog's unit)."""
    try:
        size = float(_gpu_info(row)["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if size <= 0:
        return None
    if cloud in _ROW_TOTAL_MIB:
        return size / float(count) if count else None
    if cloud in _PER_GPU_GB or (cloud in _PER_GPU_GB_UNDER_1024 and size < 1024):
        return size * 1024
    return size


def _memory_gib(mebibytes: float) -> int:
    """The marketed capacity of a measured size: the standard class when it is within 5% (81559 MiB -> 80),
    else the GiB figure itself (294912 MiB -> 288: larger than any class)."""
    marketed = memory_class_gib(mebibytes)
    gib = mebibytes / 1024
    return marketed if abs(marketed - gib) <= 0.05 * gib else round(gib)


def _row_names(row: dict) -> tuple[str, ...]:
    """The names a row gives its machine and GPUs: instance type, upstream id, accelerator, and GpuInfo's device
    name (runpod's says "A100 PCIe" where AcceleratorName says A100-80GB)."""
    names = (row.get(column) for column in ("InstanceType", "UpstreamCloudId", "AcceleratorName"))
    return tuple(name.lower() for name in (*names, _gpu_info_name(row)) if name)


def _form_factor(row: dict) -> str | None:
    """The form factor a row's names state (instance type first, then upstream, accelerator and device names)."""
    for name in _row_names(row):
        for word in _WORDS.findall(name):
            if match := re.fullmatch(r"sxm(\d)?(?:x\d+)?", word):
                return f"SXM{match.group(1) or ''}"
            if word in ("pcie", "pci"):
                return "PCIe"
            if word == "nvl":
                return "NVL"
    return None


def _stated_gpu_name(row: dict, memory_mib: float | None, device_name: str | None,
                     scope: str) -> tuple[str, str | None]:
    """AcceleratorName completed with what the row states and the name lacks (form factor, memory), and its id:
    the fullest name that resolves wins, then GpuInfo's device name (hyperbolic writes the driver's product name,
    "NVIDIA-H100-80GB-HBM3", which says SXM5 where AcceleratorName says "H100"); when none resolves, the fullest
    name is kept (reported as unmatched)."""
    name = row["AcceleratorName"].strip()
    key = name_key(name)
    form = _form_factor(row)
    form = form if form and name_key(form) not in key else None
    memory = f"{_memory_gib(memory_mib)}GB" if memory_mib and not _HAS_MEMORY.search(name.lower()) else None
    candidates = [" ".join(part for part in (name, form, memory) if part)]
    if form and memory:
        candidates.append(f"{name} {form}")
    if device_name and device_name.strip() != name:  # "RTX A4500" reads where "RTXA4500" does not (same key)
        candidates.append(device_name)
    candidates.append(name)
    resolved = [(candidate, gpu_id) for candidate in candidates if (gpu_id := resolve_gpu_id(candidate, scope))]
    # a name that says the variant beats one that resolves to "form factor not stated" (H100 80GB)
    stated = [(candidate, gpu_id) for candidate, gpu_id in resolved if not gpu_id.endswith(UNSTATED_SUFFIX)]
    return (stated or resolved or [(candidates[0], None)])[0]


def _seller_type(cloud: str, instance_type: str) -> str | None:
    """Who sells the row, where the instance name says (runpod: secure vs community cloud); None elsewhere."""
    return next((seller for suffix, seller in _SELLER_TYPES.get(cloud, ()) if instance_type.endswith(suffix)), None)


def _gcp_machine_gpus(machine: str) -> tuple[str, Fraction] | None:
    family = "-".join(machine.split("-")[:2])
    if family == "g2-standard":
        vcpus = int(machine.rsplit("-", 1)[1])
        return ("L4", Fraction(_G2_L4_COUNT[vcpus])) if vcpus in _G2_L4_COUNT else None
    match = _GCP_GPU_COUNT.search(machine)
    if family not in _GCP_FAMILIES or match is None:
        return None
    return _GCP_FAMILIES[family], Fraction(int(match.group(1)))
