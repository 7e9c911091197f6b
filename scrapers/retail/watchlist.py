"""The watch list (config/watchlist.toml, or GPUPRICES_WATCHLIST): what the retail sources track."""

from __future__ import annotations

import tomllib

from config.settings import watchlist_path


def watchlist(retailer: str) -> dict:
    with watchlist_path().open("rb") as handle:
        return tomllib.load(handle).get(retailer, {})
