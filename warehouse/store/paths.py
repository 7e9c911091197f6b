"""Where the warehouse lives: one data home (config.settings: GPUPRICES_HOME, default ./data)."""

from __future__ import annotations

from pathlib import Path

from config import settings
from config.settings import data_home


def database_path() -> Path:
    return data_home() / "gpuprices.duckdb"


def database_target() -> str:
    """What DuckDB opens: GPUPRICES_DATABASE (e.g. `md:gpuprices` for MotherDuck) or the file in the data home."""
    return settings.database_override() or str(database_path())


def is_hosted() -> bool:
    return database_target().startswith("md:")


def snapshot_path(database: Path | None = None) -> Path:
    """The copy of the warehouse readers use while a run writes (see warehouse/store/db.py)."""
    database = database or database_path()
    return database.parent / "snapshot" / database.name


def landing_root() -> Path:
    return data_home() / "landing"


def export_root() -> Path:
    return data_home() / "export"
