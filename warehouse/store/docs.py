"""Documentation generated from the real thing: the warehouse schema (from DuckDB's catalog, with the values of the
marts' categorical columns), the source tables and counts (from the source registry), the settings table. Each
block a document embeds is in GENERATED_BLOCKS: `gpuprices docs` rewrites them between their markers, and a test
fails when one is stale."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from config.settings import PROJECT_ROOT
from config.settings import markdown_table as settings_markdown_table
from scrapers.base import PRICE_UNITS, PRICING_TYPES
from scrapers.registry import all_sources
from scrapers.replay import load_recordings
from warehouse.store import db
from warehouse.store.landing import DATA_ORIGINS
from warehouse.store.markets import CHANNELS, MARKETS

DOCUMENTED_SCHEMAS = ("raw", "meta", "reference", "staging", "intermediate", "marts", "monitoring", "alerts")

# The values a categorical column of the marts may hold, by column name, from the code that writes them. A mart's
# YAML that tests a column's values (accepted_values, checked by dbt at every build) names them instead: where both
# do, they agree (tests/warehouse/test_schema_docs.py), and the offline run's marts hold no other value
# (tests/flows/test_offline_end_to_end.py).
CATEGORICAL_VALUES: dict[str, tuple[str, ...]] = {
    "channel": CHANNELS,
    "market": tuple(MARKETS),
    "pricing_type": PRICING_TYPES,
    "price_per": ("gpu_hour", "card"),
    "price_unit": PRICE_UNITS,
    "price_role": ("selling", "list", "shipping"),
    "condition": ("new", "used", "refurbished", "open_box", "for_parts"),
    "interconnect": ("sxm", "pcie_nvlink", "nvlink", "pcie"),
    "cluster_network": ("infiniband", "roce", "ethernet"),
    # `unknown`: a flagged run loaded before raw.ingest_runs recorded data_origin (stg_raw__ingest_runs)
    "data_origin": (*DATA_ORIGINS, "unknown"),
    "purchase_price_basis": ("street_new", "street_used", "system_share", "launch_price"),
}
RENTAL_MARKETS = tuple(name for name, market in MARKETS.items() if market.price_per == "gpu_hour")
# A column whose values differ in one mart.
TABLE_CATEGORICAL_VALUES: dict[tuple[str, str], tuple[str, ...]] = {
    ("commitment_outcomes", "market"): ("reserved_1y", "reserved_3y"),  # a commitment's term
    ("gpu_commitment_prices_daily", "market"): ("reserved_1y", "reserved_3y"),
    ("spot_discount_daily", "channel"): ("cloud", "marketplace"),  # rentals only
    # what a renter can get: rentals only, and the terms and fabrics as their marts write them
    ("gpu_availability_daily", "channel"): ("cloud", "marketplace"),
    ("gpu_availability_daily", "market"): RENTAL_MARKETS,
    ("gpu_cheapest_available_daily", "channel"): ("cloud", "marketplace"),
    ("gpu_cheapest_available_daily", "market"): RENTAL_MARKETS,
    ("gpu_term_prices_daily", "pricing_type"): ("reserved_1y", "reserved_3y", "reserved"),
    ("gpu_cluster_offers_daily", "cluster_network"): ("infiniband", "roce", "ethernet", "efa"),
}


@functools.cache
def yaml_accepted_values() -> dict[tuple[str, str], tuple[str, ...]]:
    """(mart, column) -> the values its YAML allows: the accepted_values of the model's column_values data test
    (models/models/marts/*.yml and models/models/monitoring/*.yml, macros/test_column_values.sql)."""
    found = {}
    for path in sorted([*(PROJECT_ROOT / "models" / "models" / "marts").glob("*.yml"),
                        *(PROJECT_ROOT / "models" / "models" / "monitoring").glob("*.yml")]):
        for model in (yaml.safe_load(path.read_text()) or {}).get("models", []):
            for test in model.get("data_tests", []):
                if isinstance(test, dict) and "column_values" in test:
                    accepted = test["column_values"].get("arguments", {}).get("accepted_values", {})
                    for column, values in accepted.items():
                        found[(model["name"], column)] = tuple(str(value) for value in values)
    return found


def categorical_values(table: str, column: str) -> tuple[str, ...] | None:
    """The values marts.<table>.<column> (or monitoring.<table>.<column>) may hold; None for a column that is not
    categorical."""
    return (yaml_accepted_values().get((table, column)) or TABLE_CATEGORICAL_VALUES.get((table, column))
            or CATEGORICAL_VALUES.get(column))


def schema_markdown() -> str:
    with db.connect(read_only=True) as connection:
        rows = connection.execute(
            """
            SELECT table_schema, table_name, string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)
            FROM information_schema.columns
            WHERE table_schema IN ({})
            GROUP BY table_schema, table_name
            ORDER BY list_position(?, table_schema), table_name
            """.format(", ".join(f"'{s}'" for s in DOCUMENTED_SCHEMAS)),
            [list(DOCUMENTED_SCHEMAS)],
        ).fetchall()
        mart_columns = connection.execute(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns "
            "WHERE table_schema IN ('marts', 'monitoring') ORDER BY table_schema, table_name, ordinal_position"
        ).fetchall()
    lines = ["| table | columns |", "|---|---|"]
    lines += [f"| `{schema}.{table}` | {columns} |" for schema, table, columns in rows]
    lines += ["", "Values of the marts' (and monitoring's) categorical columns:", "", "| table | column | values |",
              "|---|---|---|"]
    for schema, table, column in mart_columns:
        values = categorical_values(table, column)
        if values:
            lines.append(f"| `{schema}.{table}` | `{column}` | {', '.join(f'`{value}`' for value in values)} |")
    return "\n".join(lines)


def sources_markdown() -> str:
    lines = ["| id | what | auth | pricing types | status |", "|---|---|---|---|---|"]
    for source_id, source in sorted(all_sources().items()):
        keys = [name for name in (source.api_key_env, *source.extra_credential_envs) if name]
        auth = " + ".join(f"`{name}`" for name in keys) if keys else "none"
        lines.append(
            f"| `{source_id}` | {source.description} | {auth} | {', '.join(source.pricing_types)} | {source.status} |"
        )
    return "\n".join(lines)


def source_credentials_markdown() -> str:
    """docs/settings.md's credential table: each variable a source needs (`api_key_env`, `extra_credential_envs`)
    and the sources it enables; a source that needs two names the other."""
    enables: dict[str, list[str]] = {}
    partners: dict[str, set[str]] = {}
    for source_id, source in sorted(all_sources().items()):
        names = [name for name in (source.api_key_env, *source.extra_credential_envs) if name]
        for name in names:
            enables.setdefault(name, []).append(source_id)
            partners.setdefault(name, set()).update(other for other in names if other != name)
    lines = ["| variable | default | what it does |", "|---|---|---|"]
    for name in sorted(enables):
        along = " + ".join(f"`{other}`" for other in sorted(partners[name]))
        sources = ", ".join(f"`{source_id}`" for source_id in enables[name])
        lines.append(f"| `{name}` | unset | {'with ' + along + ', ' if along else ''}enables {sources} |")
    return "\n".join(lines)


# What the offline run's recording of a source is, in the README's words (recordings/index.json data_origin); all
# but a dated capture load flagged synthetic.
ORIGIN_WORDS = {
    "captured": "real capture, dated",
    "stale_capture": "real capture, undated",
    "reconstructed": "rebuilt from real prices",
    "synthetic": "made up, documented format",
}
_HASH = re.compile(r"\b([0-9a-f]{7})[0-9a-f]{33}\b")
_ORIGIN = re.compile(r"[\w.-]+(?:/[\w.-]+)?@[0-9a-f]{7}")
NO_RECORDING = "none: parser tests only"


def _short_origin(note: str) -> str:
    """A recording's origin in a few words: its repository@commit, else the note's first clause."""
    note = " ".join(_HASH.sub(r"\1", note).replace("NOT a capture: ", "").replace("skypilot-org/", "").split())
    found = _ORIGIN.search(note)
    if found:
        return found.group(0)
    clause = re.split(r"[(,;]", note)[0].strip()
    return clause if len(clause) <= 40 else clause[:37].rsplit(" ", 1)[0] + "..."


def sources_test_data_markdown() -> str:
    """The README's source table: per kind of offline test data, the sources whose last recording is of that kind,
    each with the repository and commit it came from where the recording names one (details: docs/sources.md)."""
    latest: dict[str, dict] = {}
    for recording in sorted(load_recordings(), key=lambda r: r["recorded_at"]):
        latest[recording["source"]] = recording
    groups: dict[str, list[str]] = {words: [] for words in (*ORIGIN_WORDS.values(), NO_RECORDING)}
    for source_id in sorted(all_sources()):
        recording = latest.get(source_id)
        if recording is None:
            groups[NO_RECORDING].append(f"`{source_id}`")
            continue
        tag = "" if recording["data_origin"] == "synthetic" else f" ({_short_origin(recording['note'])})"
        groups[ORIGIN_WORDS[recording["data_origin"]]].append(f"`{source_id}`{tag}")
    lines = ["| offline test data | sources (repository@commit of the data) |", "|---|---|"]
    lines += [f"| {words} | {', '.join(sources)} |" for words, sources in groups.items() if sources]
    return "\n".join(lines)


def source_counts_markdown() -> str:
    """The README's and docs/sources.md's count of what is collected, from the source registry: the rental price
    lists and pages (sources of offers; not AWS's interruption file) of how many providers, the SkyPilot catalogs, the per-token API lists, the retail
    sources."""
    sources = all_sources()
    own = [source for source_id, source in sources.items()
           if source.kind == "cloud" and source.records == "offers" and not source_id.startswith("skypilot-")]
    catalogs = sum(1 for source_id in sources if source_id.startswith("skypilot-"))
    apis = sum(1 for source in sources.values() if source.kind == "api")
    retail = sum(1 for source in sources.values() if source.kind == "retail")
    return (f"{len(own)} price lists and pages of {len({source.provider for source in own})} providers and "
            f"{catalogs} SkyPilot catalogs, per-token API prices from {apis} lists, and what cards cost from "
            f"{retail} retail sources")


def offline_providers_markdown() -> str:
    """How many rental providers the warehouse's offers name, and of them how many from real captures (the README's
    "offline" figure, generated from the offline run's warehouse)."""
    with db.connect(read_only=True) as connection:
        providers, real = connection.execute(
            "SELECT count(DISTINCT provider), count(DISTINCT provider) FILTER (WHERE data_origin IN ('captured', "
            "'stale_capture')) FROM marts.offers_daily WHERE channel IN ('cloud', 'marketplace')").fetchone()
    return f"{providers} rental providers offline, {real} from real captures"


@dataclass(frozen=True)
class GeneratedBlock:
    """A block of a document that a function writes, between `<!-- marker:start -->` and `<!-- marker:end -->`
    (on lines of their own, or inline in a sentence). `from_warehouse`: generated from the built warehouse (the
    offline run's), not from the code alone."""

    document: str  # from the project root
    marker: str
    generate: Callable[[], str]
    from_warehouse: bool = False


# Every generated block of the docs: `gpuprices docs` rewrites them, tests/warehouse/test_source_docs.py (the code's)
# and the offline end-to-end test (the warehouse's) fail when one is stale.
GENERATED_BLOCKS = (
    GeneratedBlock("README.md", "counts", source_counts_markdown),
    GeneratedBlock("README.md", "sources-test-data", sources_test_data_markdown),
    GeneratedBlock("docs/sources.md", "counts", source_counts_markdown),
    GeneratedBlock("docs/sources.md", "sources", sources_markdown),
    GeneratedBlock("docs/settings.md", "settings", settings_markdown_table),
    GeneratedBlock("docs/settings.md", "source-credentials", source_credentials_markdown),
    GeneratedBlock("README.md", "offline-counts", offline_providers_markdown, from_warehouse=True),
    GeneratedBlock("docs/schema.md", "schema", schema_markdown, from_warehouse=True),
)


class MissingMarkers(ValueError):
    """A document lost a generated block's markers."""


def _block_pattern(marker: str) -> re.Pattern:
    return re.compile(rf"(<!-- {re.escape(marker)}:start -->)(\s*)(.*?)(\s*)(<!-- {re.escape(marker)}:end -->)", re.S)


def written_block(block: GeneratedBlock, root: Path = PROJECT_ROOT) -> str:
    """What the document holds between the block's markers now."""
    found = _block_pattern(block.marker).search((root / block.document).read_text())
    if found is None:
        raise MissingMarkers(f"{block.document} lost its {block.marker} markers")
    return found.group(3)


def stale_blocks(blocks=GENERATED_BLOCKS, root: Path = PROJECT_ROOT) -> list[str]:
    """"<document> <marker>" of each block whose text is not what its function writes now."""
    return [f"{block.document} {block.marker}" for block in blocks
            if written_block(block, root) != block.generate().strip()]


def rewrite_blocks(blocks=GENERATED_BLOCKS, root: Path = PROJECT_ROOT) -> list[str]:
    """Write each block's text between its markers (the whitespace around it kept); "<document> <marker>" of those
    that changed."""
    changed = []
    for block in blocks:
        path = root / block.document
        text = path.read_text()
        written = written_block(block, root)
        fresh = block.generate().strip()
        if written != fresh:
            path.write_text(_block_pattern(block.marker).sub(
                lambda found: found.group(1) + found.group(2) + fresh + found.group(4) + found.group(5), text, count=1))
            changed.append(f"{block.document} {block.marker}")
    return changed
