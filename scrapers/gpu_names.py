"""Raw GPU name -> canonical gpu_id: the one GPU-name resolution. Parsers use it to pick the name they store, the
estimator and alerts for what users type, and the build applies it to every raw name the warehouse holds
(meta.gpu_name_matches, which the models join). The aliases are models/seeds/gpu_aliases.csv (also loaded by dbt
as reference.gpu_aliases, for reading).

A name is matched on a key that ignores case, spaces and punctuation ("A100-80GB" == "a100 80gb"). Aliases may
be scoped to one provider, because the same short name means different variants on different clouds ("A100" is
the 40GB SXM4 part on GCP). A name that matches nothing returns None: the offer is kept with gpu_id NULL and
shows up in `gpuprices status`, never dropped.
"""

from __future__ import annotations

import csv
import functools
import re

from config.settings import PROJECT_ROOT

ALIASES_CSV = PROJECT_ROOT / "models" / "seeds" / "gpu_aliases.csv"  # dbt loads it too: reference.gpu_aliases

_NON_ALNUM = re.compile(r"[^a-z0-9]+")

# The standard memory capacities (GB) a measured MiB figure is snapped to when a name is built from it.
_MEMORY_CLASSES_GB = (8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 96, 141, 180, 192)


def name_key(name: str) -> str:
    return _NON_ALNUM.sub("", name.lower())


def memory_class_gb(mebibytes: float) -> int:
    """Snap a reported memory size to the marketed capacity (81559 MiB -> 80, 143771 MiB -> 141)."""
    gib = mebibytes / 1024
    return min(_MEMORY_CLASSES_GB, key=lambda size: abs(size - gib))


@functools.cache
def _aliases() -> dict[tuple[str, str], str]:
    table: dict[tuple[str, str], str] = {}
    with open(ALIASES_CSV, newline="") as handle:
        for row in csv.DictReader(handle):
            key = (row["scope"], name_key(row["raw_name"]))
            if table.get(key, row["gpu_id"]) != row["gpu_id"]:
                raise ValueError(f"{ALIASES_CSV.name}: {row['raw_name']!r} (scope {row['scope']!r}) matches both "
                                 f"{table[key]} and {row['gpu_id']}")
            table[key] = row["gpu_id"]
    return table


def resolve_gpu_id(raw_name: str | None, scope: str = "") -> str | None:
    if not raw_name:
        return None
    key = name_key(raw_name)
    aliases = _aliases()
    return aliases.get((scope, key)) or aliases.get(("", key))


_VENDOR_WORDS = re.compile(r"\b(nvidia|tesla|geforce|amd|instinct|intel|habana|google|cloud)\b")
_MEMORY = re.compile(r"(\d+)\s*gi?b\b")
_FORM = re.compile(r"\b(sxm\d?|pcie|nvl|hgx)\b")
_FORM_RANK = {"sxm": 0, "nvl": 1, "pcie": 2}  # the estimate scope: the part clouds rent most, SXM first


def resolve_typed(name: str, known_ids: set[str] | frozenset[str]) -> str | None:
    """What a person types for a GPU ("A100 40GB", "A100-40GB", "A100 SXM4 40 GB", "H100 80GB", "Tesla T4",
    "nvidia v100 32gb"): a canonical id as is, an alias (estimate scope first), else read as model + optional form
    factor + optional memory against the known ids. A name that leaves several variants open takes the documented
    estimate scope: the SXM part before NVL before PCIe, then the one with the most memory (A100 -> the 80GB SXM4).
    None when nothing matches. Offers never go through this: their names must say SXM vs PCIe (resolve_gpu_id)."""
    if name in known_ids:
        return name
    for scope in ("estimate", ""):
        gpu_id = resolve_gpu_id(name, scope)
        if gpu_id in known_ids:
            return gpu_id
    text = _VENDOR_WORDS.sub(" ", name.lower().replace("_", " "))
    memory = _MEMORY.search(text)
    text = _MEMORY.sub(" ", text)
    form = _FORM.search(text)
    model = name_key(_FORM.sub(" ", text))
    if not model:
        return None
    candidates = []
    for gpu_id in known_ids:
        parts = gpu_id.split("-")
        size = parts[-1] if re.fullmatch(r"\d+gb", parts[-1]) else None
        body = parts[:-1] if size else parts
        forms = [p for p in body if _FORM.fullmatch(p)]
        if name_key("".join(p for p in body if p not in forms)) != model:
            continue
        if memory and size != f"{memory.group(1)}gb":
            continue
        if form and not any(f.startswith(form.group(1)) or form.group(1).startswith(f) for f in forms):
            continue
        rank = _FORM_RANK.get(re.sub(r"\d", "", forms[0]), 3) if forms else 3
        candidates.append((rank, -int(size[:-2]) if size else 0, gpu_id))
    return min(candidates)[2] if candidates else None


def resolve_first(candidates: list[str | None], scope: str = "") -> tuple[str, str | None]:
    """(raw name, gpu_id) for the first candidate name an alias resolves, else (first candidate, None).

    The raw name returned is the one stored in raw.offers: dbt resolves gpu_id again from that very name and the
    provider scope, so it must be the name that resolved here."""
    names = [name for name in candidates if name]
    for name in names:
        gpu_id = resolve_gpu_id(name, scope)
        if gpu_id:
            return name, gpu_id
    return (names[0] if names else ""), None
