"""Ingest: documents to rows (parse, normalize, check, load), imports, backfills, retractions, quotes, explain."""
