"""Every source the warehouse knows, by id, found where they live: each `Source` class in a module (or a package's
module) under scrapers/cloud, scrapers/retail, scrapers/inference_api and scrapers/reference provides the ids of
`source_ids()` (its `id`; one per cloud for the SkyPilot catalogs). Nothing is listed by hand: a new module with a
Source class is registered. A source's expectations and offline recording live beside its definition."""

from __future__ import annotations

import importlib
import pkgutil

from scrapers.base import Source

SOURCE_PACKAGES = ("scrapers.cloud", "scrapers.retail", "scrapers.inference_api", "scrapers.reference")


def discover(packages: tuple[str, ...] = SOURCE_PACKAGES) -> dict[str, type[Source]]:
    """Source id -> the class that provides it, from every module below `packages`, sorted by id. Two classes
    claiming one id is an error."""
    found: dict[str, type[Source]] = {}
    for package_name in packages:
        package = importlib.import_module(package_name)
        for module_info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            module = importlib.import_module(module_info.name)
            for value in vars(module).values():
                if not (isinstance(value, type) and issubclass(value, Source) and value.__module__ == module.__name__):
                    continue
                for source_id in value.source_ids():
                    if source_id in found:
                        raise RuntimeError(f"source id {source_id!r} is claimed by {found[source_id].__module__}."
                                           f"{found[source_id].__name__} and {module.__name__}.{value.__name__}")
                    found[source_id] = value
    return dict(sorted(found.items()))


_CLASSES = discover()
# Every source id, sorted (the order sources run and print in never depends on how they were found).
SOURCE_IDS = tuple(_CLASSES)


def source_by_id(source_id: str, overrides: dict | None = None) -> Source:
    """One source, configured with `overrides` (constructor settings, e.g. a SkyPilot catalog_url)."""
    if source_id not in _CLASSES:
        raise KeyError(f"unknown source {source_id!r}")
    return _CLASSES[source_id].create(source_id, overrides or {})


def all_sources(overrides: dict[str, dict] | None = None) -> dict[str, Source]:
    """All sources by id. `overrides` maps a source id to constructor settings."""
    overrides = overrides or {}
    return {source_id: source_by_id(source_id, overrides.get(source_id)) for source_id in SOURCE_IDS}
