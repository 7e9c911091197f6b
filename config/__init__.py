"""Configuration: the watch list (watchlist.toml) and every environment setting (settings.py)."""
