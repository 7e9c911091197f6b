from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from scrapers.base import RawDocument

FIXTURES = Path(__file__).resolve().parent / "fixtures"


FETCHED_AT = datetime(2026, 4, 2, tzinfo=UTC)


def raw_document(body: bytes, url: str = "https://example.test/doc", content_type: str = "") -> RawDocument:
    """A raw document as the HTTP client would return it, from bytes a test built."""
    return RawDocument(url=url, status=200, body=body, fetched_at=FETCHED_AT, content_type=content_type)


def document(path: Path | str, url: str = "https://example.test/doc", content_type: str = "") -> RawDocument:
    """A raw document holding a fixture file."""
    path = FIXTURES / path if isinstance(path, str) else path
    return raw_document(path.read_bytes(), url, content_type)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh, empty data home for one test."""
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
