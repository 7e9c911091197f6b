"""Together AI's model list: the per-token API price of every chat and language model it serves.

fetch: `GET https://api.together.xyz/v1/models` with `Authorization: Bearer <TOGETHER_API_KEY>` (the list needs a
key). Format, read from a real saved response (tests/fixtures/together/, tests/fixtures/PROVENANCE.md): a bare JSON
array `[{"id": "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo", "type": "chat", "display_name": ...,
"context_length": 131072, "pricing": {"hourly": 0, "input": 0.88, "output": 0.88, "base": 0, "finetune": 0}, ...},
...]`.
- Prices are USD per MILLION tokens, as JSON numbers. Together writes some of them with binary float noise
  (`0.18000000000000002`, `0.5900000000000001`, `0.060000000000000005`): the number is read from the JSON text as an
  exact Decimal (never through a float), then rounded half-even to 1e-9 USD per million tokens, which removes the
  noise (0.18000000000000002 -> 0.18) and changes no real price (Together publishes cents and tenths of a cent).
  The TokenPrice holds that per-million figure divided by 10^6 (USD per token), exactly.
- Only `type` "chat" and "language" (base-model completions) are per-token text generation: image, video, audio,
  transcribe, embedding, rerank and moderation models (and any other type) are skipped.
- 0 input and 0 output is skipped: on this list it marks a model without a serverless per-token price (image and
  video models, the MoA-1 mixture-of-agents endpoint, dedicated-only uploads), not a free tier. A single 0 beside a
  price is kept as published. A negative price is kept as read: the integrity check sets it aside.
- A model without an input or output price is no per-token offer: skipped.
- `hourly`, `base` and `finetune` (dedicated-endpoint and fine-tuning prices) are not read.
"""

from __future__ import annotations

import decimal
import json
from decimal import Decimal

from scrapers.base import Expectations, TokenPrice
from scrapers.errors import ParseError
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, money

MODELS_URL = "https://api.together.xyz/v1/models"
TOKEN_TYPES = frozenset({"chat", "language"})  # text generation priced per token
PER_MILLION_QUANTUM = Decimal("0.000000001")  # 1e-9 USD per million tokens: below any price, above float noise
TOKENS_PER_MILLION_EXPONENT = -6


def usd_per_token(per_million: Decimal) -> Decimal:
    """A price per million tokens as written (float noise and all) -> USD per token, exactly, noise rounded off."""
    rounded = per_million.quantize(PER_MILLION_QUANTUM, decimal.ROUND_HALF_EVEN)
    return rounded.scaleb(TOKENS_PER_MILLION_EXPONENT).normalize()


class TogetherModels(JsonApiSource):
    id = "together"
    kind = "api"
    provider = "together"
    records = "token_prices"
    description = "Together AI model list: USD per input and output token of each chat and language model (API prices)"
    pricing_types = ("per_token",)
    hosts = ("api.together.xyz",)
    api_key_env = "TOGETHER_API_KEY"
    status = (
        "parser tested on 28 whole entries of a REAL saved /v1/models response (captured on or after 2026-01-09, "
        "23 priced chat/language models); needs TOGETHER_API_KEY"
    )
    # the cut holds 23 priced chat/language models; the saved full list about 80
    expectations = Expectations(frozenset(), min_offers=20)
    offline = Recording(
        "stale_capture", "LaxmanNandi/MCH-Research@70bc7d5f together_models.json: 28 whole entries of a REAL "
        "/v1/models answer (fetched on or after 2026-01-09), every day",
        (Served(MODELS_URL, "stale_capture_models_28_entries.json",
                fixture="together/together_models_capture_undated_mch_research_cut_28_entries.json"),))
    api_url = MODELS_URL

    def request_headers(self) -> dict[str, str]:
        return self.bearer_headers()

    def load(self, document: RawDocument) -> object:
        try:
            # parse_float=Decimal: the number exactly as written, so float noise is seen and rounded on purpose
            return json.loads(document.body, parse_float=Decimal)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ParseError(f"{self.id}: {document.url} is not JSON ({error})") from None

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[TokenPrice]:
        if not isinstance(payload, list):
            raise ParseError(f"{self.id}: {document.url} is not the bare [...] model list")
        return self.parse_records(payload, index)

    def parse_record(self, entry: object, index: int, number: int) -> list[TokenPrice]:
        if not isinstance(entry, dict):
            raise ParseError(f"{self.id}: a model list entry is {type(entry).__name__}, expected an object")
        slug = field(entry, "id", self.id, "a model")
        model_type = field(entry, "type", self.id, slug)
        if model_type not in TOKEN_TYPES:
            return []
        pricing = entry.get("pricing") or {}
        if not isinstance(pricing, dict):
            raise ParseError(f"{self.id}: {slug} pricing = {pricing!r} is not an object")
        per_million_in = money(_text(pricing.get("input")), f"{slug} pricing.input", self.id)
        per_million_out = money(_text(pricing.get("output")), f"{slug} pricing.output", self.id)
        if per_million_in is None or per_million_out is None:
            return []
        if per_million_in == 0 and per_million_out == 0:
            return []  # no serverless per-token price on this list (see the module docstring)
        context = entry.get("context_length")
        return [TokenPrice(
            source=self.id, provider=self.provider, model_slug=slug,
            usd_per_input_token=usd_per_token(per_million_in), usd_per_output_token=usd_per_token(per_million_out),
            context_length=context if isinstance(context, int) and not isinstance(context, bool) and context > 0
            else None,
            document_index=index,
        )]


def _text(value: object) -> object:
    """A Decimal read from the JSON text, as its exact string for parsing.money; anything else unchanged."""
    return str(value) if isinstance(value, Decimal) else value
