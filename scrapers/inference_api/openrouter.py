"""OpenRouter's public model list: the per-token API price of every model it routes, open-weight ones included.

fetch: `GET https://openrouter.ai/api/v1/models` (no key). Format, read from real saved responses
(tests/fixtures/openrouter/, tests/fixtures/PROVENANCE.md): `{"data": [{"id": "meta-llama/llama-3.1-70b-instruct",
"context_length": 131072, "pricing": {"prompt": "0.0000004", "completion": "0.0000004", ...}, ...}, ...]}`.
- Prices are USD per TOKEN, as decimal strings ("0.000000039"): read exactly, never through a float.
- One price per model: what OpenRouter charges for it (provider `openrouter`); the per-provider prices behind it are
  in `/api/v1/models/{id}/endpoints`, not read here (no real saved payload of it was found).
- `:free` variants price at "0": rate-limited free tiers, kept as published (the models flag them, marts never take
  them as the cheapest price). Per-song or per-image models (google/lyria-*) also write "0" per token.
- Routers write "-1" (openrouter/auto: the price of whichever model it picks): kept as read, set aside by the
  integrity check.
- A model without a prompt or completion price is no per-token offer: skipped.
"""

from __future__ import annotations

from scrapers.base import Expectations, TokenPrice
from scrapers.errors import ParseError
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

MODELS_URL = "https://openrouter.ai/api/v1/models"


class OpenRouterModels(JsonApiSource):
    id = "openrouter"
    kind = "api"
    provider = "openrouter"
    records = "token_prices"
    description = "OpenRouter public model list: USD per input and output token of each model (API prices)"
    pricing_types = ("per_token",)
    hosts = ("openrouter.ai",)
    status = (
        "parser tested on 28 whole entries of a REAL saved /api/v1/models response (April 2026); the offline "
        "replay serves them on every day (flagged synthetic: undated)"
    )
    # the recording holds 28 entries (27 with a usable price); the live list holds a few hundred
    expectations = Expectations(frozenset(), min_offers=20)
    offline = Recording(
        "stale_capture", "skissue/gptel-openrouter-models@0083ca15 openrouter-models.json: 28 whole entries of a REAL "
        "/api/v1/models snapshot (fetched on or after 2026-04-13) in the API's envelope; every day",
        # the fixture is a `jq -c '.data | sort_by(.id)'` snapshot, put back byte for byte into the API's envelope
        (Served(MODELS_URL, "stale_capture_2026-04_models_28_entries.json",
                fixture="openrouter/openrouter_models_capture_2026-04_cut_28_entries.json", raw=True,
                pick=lambda entries: b'{"data":' + entries.rstrip(b"\n") + b"}\n"),))
    api_url = MODELS_URL
    records_key = "data"

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[TokenPrice]:
        if not isinstance(payload, dict):
            raise ParseError(f"{self.id}: {document.url} is not the {{\"data\": [...]}} model list")
        return super().parse_payload(payload, index, document)

    def parse_record(self, entry: dict, index: int, number: int) -> list[TokenPrice]:
        slug = field(entry, "id", self.id, "a model")
        pricing = entry.get("pricing") or {}
        prompt = money(pricing.get("prompt"), f"{slug} pricing.prompt", self.id)
        completion = money(pricing.get("completion"), f"{slug} pricing.completion", self.id)
        if prompt is None or completion is None:
            return []
        context = entry.get("context_length")
        return [TokenPrice(
            source=self.id, provider=self.provider, model_slug=slug, usd_per_input_token=prompt,
            usd_per_output_token=completion, context_length=context if isinstance(context, int) else None,
            document_index=index,
        )]
