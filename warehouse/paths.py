"""Where the warehouse lives: one data home (default ./data, or $GPUPRICES_HOME)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def data_home() -> Path:
    home = Path(os.environ.get("GPUPRICES_HOME", "data")).resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


def database_path() -> Path:
    return data_home() / "gpuprices.duckdb"


def database_target() -> str:
    """What DuckDB opens: $GPUPRICES_DATABASE (e.g. `md:gpuprices` for MotherDuck, token in motherduck_token) or
    the file in the data home."""
    return os.environ.get("GPUPRICES_DATABASE") or str(database_path())


def is_hosted() -> bool:
    return database_target().startswith("md:")


def snapshot_path(database: Path | None = None) -> Path:
    """The copy of the warehouse readers use while a run writes (see warehouse/db.py)."""
    database = database or database_path()
    return database.parent / "snapshot" / database.name


def landing_root() -> Path:
    return data_home() / "landing"


def export_root() -> Path:
    return data_home() / "export"
