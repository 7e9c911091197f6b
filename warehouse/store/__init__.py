"""The store: the warehouse file, its schema and paths, the landed documents, the dbt build, export, status, docs."""
