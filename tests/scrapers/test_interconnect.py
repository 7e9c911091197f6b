"""The interconnect read from a name (scrapers/interconnect.py): every spelling the sources write, and every source
calling the one rule (no copy of it left in a parser)."""

import ast
from pathlib import Path

import pytest

from scrapers.interconnect import INTERCONNECTS, gpu_raw_name, interconnect_of

SCRAPERS = Path(__file__).resolve().parents[2] / "scrapers"


@pytest.mark.parametrize(("names", "expected"), [
    # SXM boards, and HGX (NVIDIA's SXM baseboard): any generation digit, glued or dashed
    (("H100 SXM",), "sxm"),  # tensorpool, civo, sesterce labels
    (("SXM5",), "sxm"), (("SXM4",), "sxm"),  # primeintellect's socket
    (("H100-SXM",), "sxm"),  # scaleway gpu_name
    (("h100-sxm5-80gb",), "sxm"),  # voltagepark model
    (("A100-80G-SXM4",), "sxm"),  # hyperstack flavor
    (("gpu_8x_h100_sxm5",), "sxm"),  # lambda instance type (via skypilot)
    (("8x_H100_SXM5x8",), "sxm"),
    (("NVIDIA HGX H100",), "sxm"),
    (("H100 SXM", "NVLink"), "sxm"),  # an SXM board is NVLinked: sxm says it
    # PCIe, no link stated
    (("PCIe",), "pcie"), (("pci",), "pcie"), (("PCI-E",), "pcie"),
    (("H100 PCle",), "pcie"),  # a lower-case L for the I, as listing titles write it
    (("H100-PCIe",), "pcie"), (("a100-pcie-40gb",), "pcie"), (("H100-80G-PCIe",), "pcie"),
    (("A100 PCIe 80GB",), "pcie"),
    # PCIe cards bridged by NVLink: PCIe + NVLink, or "NVL" alone (H100 NVL, H200 NVL are PCIe cards)
    (("H100-80G-PCIe-NVLink",), "pcie_nvlink"),
    (("H100 NVL",), "pcie_nvlink"), (("H200 NVL 141GB",), "pcie_nvlink"),
    (("H200 NVL (141GB) NVLink",), "pcie_nvlink"),  # massedcompute page label
    (("4x H200 NVL (141GB) NVLink [Spot]",), "pcie_nvlink"),  # massedcompute API description
    (("gpu_4x_h100_nvl_nvlink",), "pcie_nvlink"), (("2x-H100_NVL",), "pcie_nvlink"),
    (("n3-A100x8-NVLink", "a100-80g-pcie"), "pcie_nvlink"),  # skypilot: instance type + device name together
    # NVLink stated, the form factor not; and the rack-scale NVLink domains (not PCIe cards)
    (("NVLink",), "nvlink"),  # latitude.sh's interconnect field
    (("H100 NVLink",), "nvlink"),  # hyperstack page label
    (("2x RTX A6000 (48GB) NVLink",), "nvlink"),
    (("GB200 NVL72",), "nvlink"), (("GB300 NVL72 288GB",), "nvlink"), (("NVL36",), "nvlink"),
    # nothing said
    (("RTX-A4000",), None), (("l40s-48gb",), None), (("H100 80GB",), None), (("MI300X OAM",), None),
    (("800Gbps Dual Plane RoCE",), None),  # latitude.sh: a network, not the GPU link
    (("L40S with AMD CPU",), None), (("",), None), ((None,), None), ((), None),
    (("bandwidth specification",), None),  # letters around "pci"/"sxm" do not make the word
])
def test_interconnect_from_every_spelling(names, expected):
    assert interconnect_of(*names) == expected
    assert expected is None or expected in INTERCONNECTS


def test_gpu_raw_name_reads_hgx_as_sxm_and_adds_the_memory():
    assert gpu_raw_name("NVIDIA HGX B200") == "B200 SXM"
    assert gpu_raw_name("NVIDIA HGX H100", 80) == "H100 SXM 80GB"
    assert gpu_raw_name("NVIDIA GB200 NVL72") == "GB200 NVL72"
    assert gpu_raw_name("NVIDIA L40S with AMD CPU") == "L40S with AMD CPU"
    assert gpu_raw_name("AMD MI300X OAM", 192) == "MI300X OAM 192GB"
    assert gpu_raw_name("NVIDIA H100 PCIe", None) == "H100 PCIe"


def _interconnect_arguments(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield from (keyword.value for keyword in node.keywords if keyword.arg == "interconnect")


def test_every_source_reads_the_interconnect_with_the_one_rule():
    """An Offer's interconnect is interconnect_of(...) or None in every parser; no parser defines its own reading."""
    copies, other = [], []
    for path in sorted(SCRAPERS.rglob("*.py")):
        if path.name == "interconnect.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        copies += [f"{path.name}:{node.name}" for node in ast.walk(tree)
                   if isinstance(node, ast.FunctionDef) and "interconnect" in node.name]
        other += [f"{path.name}:{value.lineno}" for value in _interconnect_arguments(tree)
                  if not (isinstance(value, ast.Constant) and value.value is None)
                  and not (isinstance(value, ast.Call) and getattr(value.func, "id", None) == "interconnect_of")]
    assert copies == [] and other == []
