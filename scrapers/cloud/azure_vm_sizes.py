"""Azure GPU VM sizes -> (GPU name, GPU count), shared by the Azure Retail Prices source and the SkyPilot Azure
catalog. The price API names VM sizes only (`Standard_ND96isr_H100_v5`); which GPU and how many is a fact of the
size, kept in scrapers/data/azure_gpu_vm_sizes.csv with its source per row. Counts may be fractions: an
NV6ads_A10_v5 is one sixth of an A10.
"""

from __future__ import annotations

import csv
import functools
import re
from fractions import Fraction
from pathlib import Path

_TABLE = Path(__file__).resolve().parent / "data" / "azure_gpu_vm_sizes.csv"

# N-series sizes are Azure's GPU families (NC, ND, NV, NCC, NG). NP is the FPGA family: not a GPU.
_GPU_FAMILY = re.compile(r"^Standard_N(?!P)[A-Z]")


@functools.cache
def vm_sizes() -> dict[str, tuple[str, Fraction]]:
    with open(_TABLE, newline="") as handle:
        return {row["arm_sku_name"]: (row["gpu_name"], Fraction(row["gpu_count"])) for row in csv.DictReader(handle)}


def is_gpu_vm_size(arm_sku_name: str) -> bool:
    return arm_sku_name in vm_sizes() or bool(_GPU_FAMILY.match(arm_sku_name))
