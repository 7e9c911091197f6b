"""How an offer's GPUs are linked, read from the names a source gives them: the one rule every source uses.

`Offer.interconnect` is one of INTERCONNECTS, or None when no name says:
- `sxm`: an SXM board (NVLink between the board's GPUs). "HGX" is NVIDIA's SXM baseboard and reads as SXM.
- `pcie_nvlink`: PCIe cards bridged by NVLink: a name saying PCIe and NVLink, or "NVL" alone (H100 NVL, H200 NVL
  are PCIe cards sold with NVLink bridges).
- `nvlink`: NVLink stated, the form factor not ("H100 NVLink", "2x RTX A6000 NVLink", Latitude's "NVLink"), and
  NVIDIA's rack-scale NVLink domains ("GB200 NVL72", "NVL36"), which are not PCIe cards.
- `pcie`: PCIe, no link stated.
Words are read in any case and spelling the sources use: "SXM", "SXM5", "sxm5x8", "HGX", "PCIe", "PCI", "PCI-E",
"PCle" (a lower-case L), "NVL", "NVL72", "NVLink", separated by spaces, dashes, underscores or digits
("gpu_4x_h100_nvl_nvlink", "H100-80G-PCIe-NVLink", "A100x8-NVLink").
"""

from __future__ import annotations

import re

from scrapers.gpu_names import as_meant

INTERCONNECTS = ("sxm", "pcie_nvlink", "nvlink", "pcie")

# A word is a run of letters: digits and punctuation around it do not join it to its neighbours ("sxm5", "h100sxm").
_SXM = re.compile(r"(?<![a-z])(?:sxm|hgx)(?![a-z])")
_NVL_RACK = re.compile(r"(?<![a-z])nvl\d+")  # NVL72, NVL36: the NVLink domain's GPU count
_NVL_CARD = re.compile(r"(?<![a-z])nvl(?![a-z0-9])")
_NVLINK = re.compile(r"(?<![a-z])nvlink(?![a-z])")
_PCIE = re.compile(r"(?<![a-z])pci(?:-?e)?(?![a-z])")
_VENDORS = ("NVIDIA", "AMD")


def interconnect_of(*names: str | None) -> str | None:
    """The interconnect the names state together (instance type, GPU label, a separate form-factor or link field);
    None when none says. SXM wins over anything else a name adds (an SXM board is NVLinked)."""
    text = " ".join(as_meant(name).lower() for name in names if name)
    if _SXM.search(text):
        return "sxm"
    if _NVL_RACK.search(text):
        return "nvlink"
    nvlink = bool(_NVLINK.search(text))
    if _NVL_CARD.search(text) or _PCIE.search(text):
        return "pcie_nvlink" if nvlink or _NVL_CARD.search(text) else "pcie"
    return "nvlink" if nvlink else None


def gpu_raw_name(label: str, memory_gib: int | None = None) -> str:
    """A price page's GPU label as a raw GPU name: the vendor dropped, "HGX" read as its SXM form factor, the per-GPU
    memory added when the page gives it apart ("NVIDIA HGX H100", 80 -> "H100 SXM 80GB"; "NVIDIA GB200 NVL72" ->
    "GB200 NVL72")."""
    words = label.split()
    if words and words[0] in _VENDORS:
        words = words[1:]
    if "HGX" in words:
        words = [word for word in words if word != "HGX"] + ["SXM"]
    if memory_gib:
        words.append(f"{memory_gib}GB")
    return " ".join(words)
