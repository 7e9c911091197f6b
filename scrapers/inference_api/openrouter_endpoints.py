"""OpenRouter's per-provider prices: for each model we map, what every provider behind OpenRouter charges per token.

fetch: `GET https://openrouter.ai/api/v1/models/{author}/{slug}/endpoints` (no key), one request per model slug the
alias seed maps for the `openrouter` source (models/seeds/api_model_aliases.csv, read at fetch time). `:free`
variants are left out: they are rate-limited tiers of the same model, not a provider's price.

Format, read from real saved responses (tests/fixtures/openrouter/, tests/fixtures/PROVENANCE.md):
`{"data": {"id": "meta-llama/llama-3.1-70b-instruct", "name": ..., "endpoints": [{"name": "DeepInfra | ...",
"provider_name": "DeepInfra", "tag": "deepinfra/turbo", "quantization": "fp8", "context_length": 131072,
"pricing": {"prompt": "0.0000004", "completion": "0.0000004", "discount": 0, ...}, "status": 0, ...}, ...]}}`.
- One price per provider and model: provider = `provider_name` as a lowercase id ("Amazon Bedrock" ->
  amazon-bedrock). A provider can list several endpoints of one model (Google: `google-vertex` and
  `google-vertex/us-central1`): its cheapest is kept (output price first).
- Prices are USD per TOKEN as decimal strings, read exactly. `discount` and the long-prompt `overrides` tiers are
  not applied: the prompt/completion figures are kept as published.
- `quantization` is kept when the endpoint states one; OpenRouter writes "unknown" when it does not (-> None).
- An endpoint without a prompt or completion price is no per-token offer: skipped.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from config.settings import PROJECT_ROOT
from scrapers.base import Expectations, TokenPrice
from scrapers.errors import ParseError
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import field, list_field, money

API_URL = "https://openrouter.ai/api/v1/models"
ALIASES_CSV = PROJECT_ROOT / "models" / "seeds" / "api_model_aliases.csv"
ALIAS_SOURCE = "openrouter"  # the seed rows whose slugs are fetched: OpenRouter's own model ids
UNSTATED_QUANTIZATION = "unknown"
# The offline recording: the models of the real saved answers (one fixture holds them, by slug), in its order
_RECORDED = "openrouter/openrouter_endpoints_capture_2026-08_cut_6_models.json"
RECORDED_SLUGS = ("meta-llama/llama-3.1-70b-instruct", "nousresearch/hermes-3-llama-3.1-70b",
                  "meta-llama/llama-3.3-70b-instruct", "qwen/qwen-2.5-72b-instruct", "deepseek/deepseek-chat-v3-0324",
                  "mistralai/mistral-small-3.2-24b-instruct")

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class EndpointTokenPrice(TokenPrice):
    """A TokenPrice of one provider endpoint, with the quantization the endpoint states (None: not stated)."""

    quantization: str | None = None


def endpoints_url(model_slug: str) -> str:
    return f"{API_URL}/{model_slug}/endpoints"


def provider_id(provider_name: str) -> str:
    """"Amazon Bedrock" -> "amazon-bedrock", "DeepInfra" -> "deepinfra"."""
    return _NON_ALNUM.sub("-", provider_name.lower()).strip("-")


def mapped_slugs(aliases_csv: Path = ALIASES_CSV) -> list[str]:
    """The OpenRouter model slugs the alias seed maps, in its order, without `:free` (or other `:`) variants."""
    with aliases_csv.open(newline="") as file:
        slugs = [row["model_slug"] for row in csv.DictReader(file) if row["source"] == ALIAS_SOURCE]
    return list(dict.fromkeys(slug for slug in slugs if ":" not in slug))


def _cost(price: TokenPrice) -> tuple:
    # a provider with two endpoints of one model (google-vertex and google-vertex/us-central1) is one price: its
    # cheapest, output first (what serving mostly pays for)
    return price.usd_per_output_token, price.usd_per_input_token


class OpenRouterEndpoints(JsonApiSource):
    id = "openrouter-endpoints"
    kind = "api"
    provider = "openrouter"
    records = "token_prices"
    description = ("OpenRouter per-provider endpoints: USD per input and output token each provider charges for each "
                   "mapped model (API prices)")
    pricing_types = ("per_token",)
    hosts = ("openrouter.ai",)
    status = (
        "parser tested on 6 whole REAL saved /api/v1/models/{slug}/endpoints responses (August 2026, 26 endpoints); "
        "fetches one per mapped model slug"
    )
    # live: about 20 mapped models with at least one endpoint each
    expectations = Expectations(frozenset(), min_offers=20)
    offline = Recording(
        "stale_capture", "UbaJaz/Digital_Minds_Research@09c283e3 openrouter_endpoints.json: 6 REAL per-model "
        "/endpoints responses (August 2026); the replay asks for those 6 models only, every day",
        tuple(Served(endpoints_url(slug), f"stale_capture_2026-08_{slug.replace('/', '__')}.json", fixture=_RECORDED,
                     pick=slug) for slug in RECORDED_SLUGS),
        overrides={"model_slugs": list(RECORDED_SLUGS)})

    def __init__(self, aliases_csv: Path = ALIASES_CSV, model_slugs: list[str] | None = None):
        self.aliases_csv = aliases_csv
        self.model_slugs = model_slugs  # which models to ask for (the offline replay: the ones recorded); None: seed

    def urls(self) -> list[str]:
        slugs = self.model_slugs if self.model_slugs is not None else mapped_slugs(self.aliases_csv)
        return [endpoints_url(slug) for slug in slugs]

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[TokenPrice]:
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, dict):
            raise ParseError(f"{self.id}: {document.url} is not the {{\"data\": {{...}}}} endpoint list")
        slug = field(data, "id", self.id, document.url)
        cheapest: dict[str, TokenPrice] = {}
        for endpoint in list_field(data, "endpoints", self.id, slug):
            price = self._price(slug, endpoint, index)
            held = cheapest.get(price.provider) if price is not None else None
            if price is not None and (held is None or _cost(price) < _cost(held)):
                cheapest[price.provider] = price
        return list(cheapest.values())

    def _price(self, slug: str, endpoint: dict, index: int) -> TokenPrice | None:
        name = field(endpoint, "provider_name", self.id, f"an endpoint of {slug}")
        if not isinstance(name, str) or not provider_id(name):
            raise ParseError(f"{self.id}: {slug} endpoint provider_name = {name!r} is not a provider name")
        pricing = endpoint.get("pricing") or {}
        where = f"{slug} {name}"
        prompt = money(pricing.get("prompt"), f"{where} pricing.prompt", self.id)
        completion = money(pricing.get("completion"), f"{where} pricing.completion", self.id)
        if prompt is None or completion is None:
            return None
        context = endpoint.get("context_length")
        quantization = endpoint.get("quantization")
        return EndpointTokenPrice(
            source=self.id, provider=provider_id(name), model_slug=slug, usd_per_input_token=prompt,
            usd_per_output_token=completion, context_length=context if isinstance(context, int) else None,
            document_index=index,
            quantization=quantization if isinstance(quantization, str) and quantization != UNSTATED_QUANTIZATION
            else None,
        )
