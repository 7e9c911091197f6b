"""Cloud rental sources: one module per provider or catalog."""
