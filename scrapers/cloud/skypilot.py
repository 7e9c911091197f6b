"""SkyPilot catalogs: one `vms.csv` per cloud, one source id per cloud (`skypilot-azure`, `skypilot-gcp`...).

Format facts (the real catalogs in recordings/skypilot/, origins in its README.md); every one of them is handled here:
- column order differs per cloud: rows are read by header name;
- `Price`/`SpotPrice` are USD per hour for the whole row (all `AcceleratorCount` GPUs);
- azure: `Generation` is written unquoted (`V1,V2`), so most rows have one field more than the header: the named
  columns are taken and the tail is joined back into Generation. AcceleratorCount can be a fraction (0.167);
- gcp: GPU rows have an EMPTY InstanceType: that is the price of attaching `AcceleratorCount` GPUs, GPU only.
  A full A2/A3/A4/G2 machine = the VM row (AcceleratorName empty) + the GPU row of the same zone. We publish both:
  the GPU-only price (includes_host_vm = false) and the machine price (includes_host_vm = true);
- lambda: the model and variant are in the instance name (gpu_8x_h100_sxm5), not in AcceleratorName;
- vast: rows are SkyPilot's medians per shape, not raw offers; `SpotPrice` 0.00 means unknown, not free.
  GpuInfo's SizeInMiB is the memory of all the row's GPUs together.
  The vast GPU name in the instance type keeps the variant that AcceleratorName drops (H100_NVL vs H100_SXM).
"""

from __future__ import annotations

import ast
import csv
import io
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from scrapers.base import Expectations, Offer, Source
from scrapers.cloud.azure_vm_sizes import vm_sizes
from scrapers.errors import ParseError
from scrapers.gpu_names import memory_class_gb, resolve_gpu_id
from scrapers.http import HttpClient, RawDocument

UPSTREAM_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7/{cloud}/vms.csv"
REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region")

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
SAMPLE_STATUS = {
    cloud: "real dated catalogs bundled (anycloud-sh/catalog, 2026-04/05): parser tests + offline replay"
    for cloud in ("azure", "gcp", "lambda", "vast")
}
_VAST_NAME = re.compile(r"^(\d+)x-(.+)-(\d+)-(\d+)$")


class SkyPilotCatalog(Source):
    """The catalog of one cloud. `catalog_url` may point at any git ref of a catalog repo (the offline replay
    and the history backfill use dated commits of anycloud-sh/catalog)."""

    channel = "cloud"
    pricing_types = ("on_demand", "spot")
    hosts = ("raw.githubusercontent.com",)
    parser_version = 1

    def __init__(self, cloud: str, expectations: Expectations, catalog_url: str | None = None):
        self.cloud = cloud
        self.id = f"skypilot-{cloud}"
        self.provider = cloud
        self.description = f"SkyPilot catalog `{cloud}/vms.csv` (whole-row prices per instance-hour)"
        self.status = SAMPLE_STATUS.get(cloud, "parser generic (by header name); no real sample bundled, untested")
        self.expectations = expectations
        self.catalog_url = catalog_url or UPSTREAM_URL.format(cloud=cloud)

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(self.catalog_url, allowed_hosts=self.hosts)]

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
    def _gpu(self, row: dict) -> tuple[str, str | None, Fraction]:
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
            row_mib = _vast_gpu_memory_mib(row)
            if row_mib and count:
                name = f"{name} {memory_class_gb(row_mib / count)}GB"  # vast writes the row total, not per GPU
            return name, resolve_gpu_id(name, "vast"), count
        name = row["AcceleratorName"]
        return name, resolve_gpu_id(name, self.cloud), count

    def _offer(self, row, index, url, *, raw_name, gpu_id, count, pricing_type, price, offer_id, includes_host_vm=True):
        return Offer(
            source=self.id,
            channel="cloud",
            provider=self.provider,
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
        )

    def _parse_row(self, row: dict, index: int, url: str) -> list[Offer]:
        if not row["AcceleratorName"]:
            return []
        raw_name, gpu_id, count = self._gpu(row)
        offer_id = f"{row['InstanceType']}|{row['Region']}|{row.get('AvailabilityZone', '')}"
        return [
            self._offer(row, index, url, raw_name=raw_name, gpu_id=gpu_id, count=count,
                        pricing_type=pricing_type, price=price, offer_id=offer_id)
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
            raw_name, gpu_id, _ = self._gpu(row)
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
            raw_name, gpu_id, _ = self._gpu(gpu_row)
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


def read_catalog_rows(body: bytes, cloud: str) -> list[dict]:
    """Rows of a SkyPilot vms.csv as dicts keyed by header name. Raises ParseError on a wrong shape."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(f"skypilot-{cloud}: not UTF-8 text ({error})") from None
    if not text.endswith("\n"):
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


def _vast_gpu_memory_mib(row: dict) -> float | None:
    try:
        info = ast.literal_eval(row.get("GpuInfo") or "")  # a Python dict literal, single-quoted
        return float(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
    except (ValueError, SyntaxError, KeyError, IndexError, TypeError):
        return None


def _gcp_machine_gpus(machine: str) -> tuple[str, Fraction] | None:
    family = "-".join(machine.split("-")[:2])
    if family == "g2-standard":
        vcpus = int(machine.rsplit("-", 1)[1])
        return ("L4", Fraction(_G2_L4_COUNT[vcpus])) if vcpus in _G2_L4_COUNT else None
    match = _GCP_GPU_COUNT.search(machine)
    if family not in _GCP_FAMILIES or match is None:
        return None
    return _GCP_FAMILIES[family], Fraction(int(match.group(1)))
