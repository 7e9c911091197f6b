"""Scripts that rebuild recordings/ (the offline run's recorded responses) from tests/fixtures and real catalogs."""
