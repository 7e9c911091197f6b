"""Together AI's model list (per-token API prices): whole entries of a real saved /v1/models response, parsed with
its float noise rounded off, normalized per million tokens and loaded; the key; the failure shapes; the alias seed."""

from __future__ import annotations

import asyncio
import csv
import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from conftest import FIXTURES, ROOT, raw_document

from scrapers.errors import MissingCredentials, ParseError
from scrapers.http import RawDocument
from scrapers.inference_api.together import MODELS_URL, TogetherModels, usd_per_token
from warehouse.store import db
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest

SOURCE = TogetherModels()
CUT = FIXTURES / "together" / "together_models_capture_undated_mch_research_cut_28_entries.json"
RESPONSE = CUT.read_bytes()  # the response is a bare array: the cut is served as it is
OBSERVED = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
SKIPPED = {
    "cartesia/sonic": "audio", "Qwen/Qwen-Image": "image", "togethercomputer/m2-bert-80M-32k-retrieval": "embedding",
    "openai/whisper-large-v3": "transcribe", "togethercomputer/MoA-1": "chat at 0 / 0",
}


def prices_by_slug() -> dict:
    return {price.model_slug: price for price in SOURCE.parse([raw_document(RESPONSE, MODELS_URL)])}


def test_every_priced_chat_and_language_model_of_the_real_list_is_read():
    entries = json.loads(RESPONSE)
    prices = prices_by_slug()
    assert len(entries) == 28 and len(prices) == 23
    assert set(SKIPPED) == {entry["id"] for entry in entries} - set(prices)
    llama = prices["meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo"]
    assert (llama.usd_per_input_token, llama.usd_per_output_token) == (Decimal("0.00000088"), Decimal("0.00000088"))
    assert (llama.source, llama.provider, llama.context_length) == ("together", "together", 131072)
    deepseek = prices["deepseek-ai/DeepSeek-V3.1"]
    assert (deepseek.usd_per_input_token, deepseek.usd_per_output_token) == (Decimal("6E-7"), Decimal("0.0000017"))
    assert prices["meta-llama/Llama-3-70b-hf"].usd_per_output_token == Decimal("9E-7")  # type "language": kept
    assert prices["moonshotai/Kimi-K2-Instruct-0905"].usd_per_input_token == Decimal("0.000001")  # JSON integer 1


def test_float_noise_in_the_json_text_is_rounded_off_not_carried():
    assert b'"input":0.18000000000000002,"output":0.5900000000000001' in RESPONSE  # as Together wrote it
    scout = prices_by_slug()["meta-llama/Llama-4-Scout-17B-16E-Instruct"]
    assert (scout.usd_per_input_token, scout.usd_per_output_token) == (Decimal("1.8E-7"), Decimal("5.9E-7"))
    assert usd_per_token(Decimal("0.060000000000000005")) == Decimal("6E-8")
    assert usd_per_token(Decimal("0.0000000015")) == Decimal("2E-15")  # half-even at 1e-9 USD per million
    assert usd_per_token(Decimal(65)) == Decimal("0.000065")


def test_a_run_loads_per_million_prices(home):
    run = land(SOURCE.id, OBSERVED, [raw_document(RESPONSE, MODELS_URL)], "stale_capture")
    record = ingest(SOURCE, run, "test")
    assert (record.status, record.rows_parsed, record.rows_loaded, record.rows_rejected) == ("loaded", 23, 23, 0)
    with db.connect() as connection:
        loaded = {row[0]: row[1:] for row in connection.execute(
            "SELECT model_slug, usd_per_million_input_tokens, usd_per_million_output_tokens, context_length, "
            "provider, is_synthetic FROM raw.api_token_prices").fetchall()}
    assert loaded["meta-llama/Llama-4-Scout-17B-16E-Instruct"] == (
        Decimal("0.18"), Decimal("0.59"), 1048576, "together", True)
    assert loaded["deepseek-ai/DeepSeek-R1"][:2] == (Decimal(3), Decimal(7))
    assert loaded["openai/gpt-oss-120b"][:3] == (Decimal("0.15"), Decimal("0.6"), 131072)


def test_zero_prices_other_types_and_missing_prices():
    body = json.dumps([
        {"id": "a/free-looking", "type": "chat", "pricing": {"input": 0, "output": 0}},
        {"id": "a/half", "type": "chat", "pricing": {"input": 0, "output": 0.5}},
        {"id": "a/unpriced", "type": "chat"},
        {"id": "a/rerank", "type": "rerank", "pricing": {"input": 0.1, "output": 0.1}},
        {"id": "a/negative", "type": "language", "pricing": {"input": -1, "output": -1}},
    ]).encode()
    parsed = {p.model_slug: p for p in SOURCE.parse([raw_document(body, MODELS_URL)])}
    assert set(parsed) == {"a/half", "a/negative"}
    assert (parsed["a/half"].usd_per_input_token, parsed["a/half"].usd_per_output_token) == (0, Decimal("5E-7"))
    assert parsed["a/negative"].usd_per_input_token == Decimal("-0.000001")  # kept: the integrity check sets it aside
    assert parsed["a/half"].context_length is None


@pytest.mark.parametrize("body, message", [
    (b"<html><title>Just a moment...</title></html>", "is not JSON"),
    (b'{"data": []}', "is not the bare"),
    (b'{"error": {"message": "Invalid API key provided"}}', "is not the bare"),
    (b'["x"]', "entry is str, expected an object"),
    (b'[{"type": "chat", "pricing": {"input": 0.1, "output": 0.1}}]', "missing field 'id'"),
    (b'[{"id": "a/b", "pricing": {"input": 0.1, "output": 0.1}}]', "missing field 'type' in a/b"),
    (b'[{"id": "a/b", "type": "chat", "pricing": {"input": "0.1$", "output": 0.1}}]', "a/b pricing.input"),
    (b'[{"id": "a/b", "type": "chat", "pricing": [0.1, 0.1]}]', "a/b pricing"),
])
def test_a_changed_or_broken_list_is_a_parse_error(body, message):
    with pytest.raises(ParseError, match=message.replace("$", r"\$")):
        SOURCE.parse([raw_document(body, MODELS_URL)])


class RecordingClient:
    def __init__(self):
        self.calls = []

    async def get(self, url, *, allowed_hosts, headers=None, **_):
        self.calls.append((url, allowed_hosts, headers))
        return RawDocument(url=url, status=200, body=RESPONSE, fetched_at=OBSERVED, content_type="application/json")


def test_fetch_needs_the_key_and_sends_it_as_a_bearer_token(monkeypatch):
    monkeypatch.delenv("TOGETHER_API_KEY", raising=False)
    client = RecordingClient()
    with pytest.raises(MissingCredentials, match="TOGETHER_API_KEY"):
        asyncio.run(SOURCE.fetch(client))
    assert client.calls == []  # no request without the key
    monkeypatch.setenv("TOGETHER_API_KEY", "test-key")
    documents = asyncio.run(SOURCE.fetch(client))
    assert client.calls == [
        ("https://api.together.xyz/v1/models", ("api.together.xyz",), {"Authorization": "Bearer test-key"})]
    assert len(SOURCE.parse(documents)) == 23


def test_seed_rows_for_together_map_listed_models_to_reference_models():
    with (ROOT / "models" / "seeds" / "reference_models.csv").open(newline="") as file:
        reference = {row["model_id"] for row in csv.DictReader(file)}
    with (ROOT / "models" / "seeds" / "api_model_aliases.csv").open(newline="") as file:
        mapped = {row["model_slug"]: row["model_id"] for row in csv.DictReader(file) if row["source"] == SOURCE.id}
    assert set(mapped.values()) <= reference
    priced = prices_by_slug()
    # every mapped slug the saved list holds is a priced chat model; a later checkpoint is never mapped
    assert all(slug in priced for slug in mapped if slug in {entry["id"] for entry in json.loads(RESPONSE)})
    for later_checkpoint in ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2-Instruct-0905",
                             "Qwen/Qwen3-235B-A22B-Instruct-2507-tput"):
        assert later_checkpoint not in mapped, later_checkpoint
