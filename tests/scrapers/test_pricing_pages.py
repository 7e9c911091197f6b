"""What every public pricing-page source shares (scrapers.base.PricingPage): one keyless GET of its page, the
offline recording of that page it declares, and a page that is not UTF-8 text refused. Each page's own parsing is
tested in tests/scrapers/<kind>/test_<source>.py on its real saved copy."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import RECORDINGS, raw_document

from dev.recordings.common import route_key
from scrapers.base import PricingPage
from scrapers.errors import ParseError
from scrapers.offline import Recording
from scrapers.registry import all_sources

PAGE_SOURCES = sorted(source_id for source_id, source in all_sources().items() if isinstance(source, PricingPage))
RECORDED_ROUTES = {recording["source"]: recording["routes"]
                   for recording in json.loads((RECORDINGS / "index.json").read_text())["recordings"]}


@pytest.mark.parametrize("source_id", PAGE_SOURCES)
def test_every_page_source_declares_a_recording_of_its_page(source_id):
    source = all_sources()[source_id]
    assert isinstance(source.offline, Recording), f"{source_id}: declare `offline` (scrapers/offline.py)"
    assert source.page_url in {served.url for served in source.offline.served}


class _Client:
    def __init__(self):
        self.calls = []

    async def get(self, url, *, allowed_hosts, headers=None, **_):
        self.calls.append((url, allowed_hosts, headers))
        return raw_document(b"", url=url)


@pytest.mark.parametrize("source_id", PAGE_SOURCES)
def test_one_keyless_get_of_the_page_the_offline_run_replays(source_id):
    source = all_sources()[source_id]
    client = _Client()
    asyncio.run(source.fetch(client))
    [(url, hosts, headers)] = client.calls
    assert url == source.page_url and source.api_key_env is None
    assert "Authorization" not in headers and url.split("/")[2] in hosts
    # the replay serves the real saved page at exactly that URL, and parsing it gives prices
    relative = RECORDED_ROUTES[source_id][route_key(url)]
    assert source.parse([raw_document((RECORDINGS / relative).read_bytes(), url=url)])


@pytest.mark.parametrize("source_id", PAGE_SOURCES)
def test_a_page_that_is_not_utf8_text_is_a_parse_error(source_id):
    with pytest.raises(ParseError, match="not UTF-8"):
        all_sources()[source_id].parse([raw_document(b"\xff\xfe<html>\x00\x9c", url="https://example.test/")])
