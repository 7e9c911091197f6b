from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from scrapers.base import RawDocument

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def document(path: Path | str, url: str = "https://example.test/doc", content_type: str = "") -> RawDocument:
    path = FIXTURES / path if isinstance(path, str) else path
    return RawDocument(url=url, status=200, body=path.read_bytes(), fetched_at=datetime(2026, 4, 2, tzinfo=UTC),
                       content_type=content_type)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh, empty data home for one test."""
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
