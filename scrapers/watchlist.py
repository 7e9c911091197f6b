"""The watch list (config/watchlist.toml, or $GPUPRICES_WATCHLIST): what the retail sources track."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "config" / "watchlist.toml"


def watchlist(retailer: str) -> dict:
    path = Path(os.environ.get("GPUPRICES_WATCHLIST", DEFAULT_PATH))
    with path.open("rb") as handle:
        return tomllib.load(handle).get(retailer, {})
