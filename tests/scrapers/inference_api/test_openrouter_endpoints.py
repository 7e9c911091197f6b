"""OpenRouter's per-provider endpoint lists: whole REAL saved /api/v1/models/{slug}/endpoints responses, parsed one
price per endpoint, normalized per million tokens and loaded; the fetch of one list per mapped model; failure shapes."""

from __future__ import annotations

import asyncio
import csv
import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from conftest import FIXTURES, ROOT, raw_document

from scrapers.errors import ParseError
from scrapers.http import HttpClient
from scrapers.inference_api.openrouter_endpoints import (
    OpenRouterEndpoints,
    endpoints_url,
    mapped_slugs,
    provider_id,
)
from scrapers.replay import OFFLINE_HTTP, RecordedServer, rewrite_to
from warehouse.store import db
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest

SOURCE = OpenRouterEndpoints()
CUT = FIXTURES / "openrouter" / "openrouter_endpoints_capture_2026-08_cut_6_models.json"
# the saved file is {model slug: that model's whole response}; each response is served as its own document
RESPONSES: dict[str, dict] = json.loads(CUT.read_text())
OBSERVED = datetime(2026, 8, 15, 12, 0, tzinfo=UTC)


def documents(responses: dict[str, dict] = RESPONSES) -> list:
    return [raw_document(json.dumps(body).encode(), endpoints_url(slug)) for slug, body in responses.items()]


def prices() -> dict:
    return {(price.model_slug, price.provider): price for price in SOURCE.parse(documents())}


def test_every_endpoint_of_the_real_lists_is_one_exact_price():
    parsed = SOURCE.parse(documents())
    assert len(parsed) == 25  # 3 + 1 + 13 + 2 + 4 + 3 endpoints, every one priced, Google's two as one
    assert [p.provider for p in parsed if p.model_slug == "meta-llama/llama-3.1-70b-instruct"] == [
        "deepinfra", "amazon-bedrock", "coreweave"]
    by_key = prices()
    deepinfra = by_key["meta-llama/llama-3.1-70b-instruct", "deepinfra"]
    assert (deepinfra.usd_per_input_token, deepinfra.usd_per_output_token) == (Decimal("0.0000004"),) * 2
    assert (deepinfra.quantization, deepinfra.context_length, deepinfra.source) == ("fp8", 131072, SOURCE.id)
    assert by_key["meta-llama/llama-3.1-70b-instruct", "amazon-bedrock"].quantization is None  # "unknown"
    assert by_key["mistralai/mistral-small-3.2-24b-instruct", "venice"].usd_per_input_token == Decimal(
        "0.00000009375")
    assert by_key["deepseek/deepseek-chat-v3-0324", "deepinfra"].quantization == "fp4"
    # published prompt/completion, the discount (0.25) not applied
    assert by_key["meta-llama/llama-3.3-70b-instruct", "sambanova"].usd_per_input_token == Decimal("0.00000045")
    # Google lists two endpoints of Llama 3.3 (google-vertex and its us-central1 region): one price, its cheapest
    assert sum(1 for p in parsed if (p.model_slug, p.provider) == ("meta-llama/llama-3.3-70b-instruct", "google")) == 1


def test_a_run_loads_per_million_prices_one_per_provider(home):
    run = land(SOURCE.id, OBSERVED, documents(), "stale_capture")
    record = ingest(SOURCE, run, "test")
    assert (record.status, record.rows_parsed, record.rows_loaded, record.rows_rejected) == ("loaded", 25, 25, 0)
    with db.connect() as connection:
        loaded = {(row[0], row[1]): row[2:] for row in connection.execute(
            "SELECT model_slug, provider, usd_per_million_input_tokens, usd_per_million_output_tokens, "
            "context_length FROM raw.api_token_prices").fetchall()}
    assert loaded["qwen/qwen-2.5-72b-instruct", "deepinfra"] == (Decimal("0.36"), Decimal("0.4"), 32768)
    assert loaded["meta-llama/llama-3.3-70b-instruct", "novita"] == (Decimal("0.135"), Decimal("0.4"), 12288)
    assert loaded["meta-llama/llama-3.3-70b-instruct", "cloudflare"][:2] == (Decimal("0.293"), Decimal("2.253"))
    assert loaded["meta-llama/llama-3.3-70b-instruct", "google"][2] == 128000


@pytest.mark.parametrize("body, message", [
    (b"<html><title>Just a moment...</title></html>", "is not JSON"),
    (b'{"data": []}', "is not the"),
    (b'{"error": {"code": 404, "message": "Model not found"}}', "is not the"),
    (b'{"data": {"endpoints": []}}', "missing field 'id'"),
    (b'{"data": {"id": "a/b", "endpoints": {"name": "x"}}}', "endpoints is dict, expected a list"),
    (b'{"data": {"id": "a/b", "endpoints": [{"pricing": {"prompt": "0.1", "completion": "0.1"}}]}}',
     "missing field 'provider_name'"),
    (b'{"data": {"id": "a/b", "endpoints": [{"provider_name": "X", "pricing": {"prompt": "1e-7$", '
     b'"completion": "0.1"}}]}}', "a/b X pricing.prompt"),
])
def test_a_changed_or_broken_list_is_a_parse_error(body, message):
    with pytest.raises(ParseError, match=message.replace("$", r"\$")):
        SOURCE.parse([raw_document(body, endpoints_url("a/b"))])


def test_an_endpoint_without_a_token_price_is_no_offer():
    body = b'{"data": {"id": "a/b", "endpoints": [{"provider_name": "X", "pricing": {"image": "0.04"}}]}}'
    assert SOURCE.parse([raw_document(body, endpoints_url("a/b"))]) == []


def test_provider_names_become_lowercase_ids():
    assert [provider_id(name) for name in ("DeepInfra", "Amazon Bedrock", "Google AI Studio", "Mancer 2")] == [
        "deepinfra", "amazon-bedrock", "google-ai-studio", "mancer-2"]


def test_fetch_asks_for_the_endpoints_of_every_mapped_model_but_free_tiers(tmp_path):
    aliases = tmp_path / "aliases.csv"
    aliases.write_text(
        "source,model_slug,model_id,note\n"
        "openrouter,meta-llama/llama-3.1-70b-instruct,llama-3.1-70b,x\n"
        "openrouter,qwen/qwen-2.5-72b-instruct,qwen2.5-72b,x\n"
        "openrouter,openai/gpt-oss-120b:free,gpt-oss-120b,x\n"
        "other,mistralai/mistral-small-3.2-24b-instruct,x,x\n")
    routes = {}
    for number, slug in enumerate(("meta-llama/llama-3.1-70b-instruct", "qwen/qwen-2.5-72b-instruct")):
        (tmp_path / f"{number}.json").write_text(json.dumps(RESPONSES[slug]))
        routes[endpoints_url(slug).split("://", 1)[1]] = f"{number}.json"
    source = OpenRouterEndpoints(aliases_csv=aliases)

    async def fetch():
        with RecordedServer(bundle_dir=tmp_path) as server:
            server.routes = routes
            async with HttpClient(OFFLINE_HTTP, rewrite=rewrite_to(server.base_url)) as client:
                return await source.fetch(client), server.requests

    fetched, requests = asyncio.run(fetch())
    assert requests == list(routes)  # no :free variant, no other source's slug
    assert [document.url for document in fetched] == [
        "https://openrouter.ai/api/v1/models/meta-llama/llama-3.1-70b-instruct/endpoints",
        "https://openrouter.ai/api/v1/models/qwen/qwen-2.5-72b-instruct/endpoints"]
    assert len(source.parse(fetched)) == 5


def test_the_seed_slugs_are_fetched_and_the_fixture_maps_only_reference_models():
    slugs = mapped_slugs()
    assert len(slugs) == len(set(slugs)) >= 20 and not any(":" in slug for slug in slugs)
    with (ROOT / "models" / "seeds" / "api_model_aliases.csv").open(newline="") as file:
        mapped = {row["model_slug"] for row in csv.DictReader(file) if row["source"] == "openrouter"}
    # of the six saved models, the two our seed maps; a fine-tune, a later checkpoint and non-reference models not
    assert {slug for slug in RESPONSES if slug in mapped} == {
        "meta-llama/llama-3.1-70b-instruct", "qwen/qwen-2.5-72b-instruct"}
