"""JsonApiSource: the base of a source that reads a JSON API, so a module holds only what is its own (URLs, headers,
paging rule, the reading of one record).

fetch: GET each of `urls()` (by default `api_url`) with `request_headers()`, asked once before any request (a
missing key skips the source before a call is made), following `next_url` page by page where the API is paged.
parse: each document's JSON (not JSON: a ParseError) goes to `parse_payload`, which by default reads the list
under `records_key` and gives each entry to `parse_record`; a source whose payload is shaped otherwise (a map of
types, a bare list, two kinds of documents) overrides `parse_payload` (and hands a list to `parse_records`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from scrapers.base import Source
from scrapers.errors import ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.parsing import list_field, load_json


class JsonApiSource(Source):
    api_url: ClassVar[str] = ""
    records_key: ClassVar[str] = ""  # `{"<records_key>": [record, ...]}`: the list parse_record reads
    # True: a payload that is no JSON object is a ParseError naming what it is (before its records are read)
    object_payload: ClassVar[bool] = False

    def urls(self) -> list[str]:
        """The first URL of each document series fetched, in order."""
        return [self.api_url]

    def request_headers(self) -> dict[str, str] | None:
        """The headers of every request."""
        return None

    def next_url(self, document: RawDocument, documents: list[RawDocument]) -> str | None:
        """The page after `document` (the last of `documents`, fetched so far) of a paged API; None: it was the last."""
        return None

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        headers = self.request_headers()
        documents: list[RawDocument] = []
        for first in self.urls():
            url: str | None = first
            while url:
                document = await client.get(url, allowed_hosts=self.hosts, headers=headers)
                documents.append(document)
                url = self.next_url(document, documents)
        return documents

    def parse(self, documents: list[RawDocument]) -> list:
        records = []
        for index, document in enumerate(documents):
            records.extend(self.parse_payload(self.load(document), index, document))
        return records

    def load(self, document: RawDocument) -> Any:
        """A document's JSON; a ParseError when it is not JSON."""
        return load_json(document, self.id)

    def parse_payload(self, payload: Any, index: int, document: RawDocument) -> list:
        """The rows of one document (`index`: its place in the run, the rows' document_index)."""
        if self.object_payload and not isinstance(payload, dict):
            raise ParseError(f"{self.id}: {document.url} is {type(payload).__name__}, expected an object")
        return self.parse_records(list_field(payload, self.records_key, self.id), index)

    def parse_records(self, records: list, index: int) -> list:
        """The rows of a list of records, one parse_record call each."""
        rows = []
        for number, record in enumerate(records):
            rows.extend(self.parse_record(record, index, number))
        return rows

    def parse_record(self, record: Any, index: int, number: int) -> list:
        """The rows of one entry of the records list (`number`: its place in the list)."""
        raise NotImplementedError
