"""OpenRouter's model list (per-token API prices): whole entries of a real saved response, parsed, normalized per
million tokens, checked and loaded into raw.api_token_prices; its failure shapes; the alias seed and the recording."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from conftest import FIXTURES, RECORDINGS, ROOT, raw_document

from scrapers.errors import ParseError
from scrapers.inference_api.openrouter import MODELS_URL, OpenRouterModels
from scrapers.registry import all_sources
from scrapers.replay import load_recordings, replay_plan
from warehouse.store import db
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest

SOURCE = OpenRouterModels()
CUT = FIXTURES / "openrouter" / "openrouter_models_capture_2026-04_cut_28_entries.json"
# the snapshot repository stores `jq -c '.data | sort_by(.id)'` of the response: the API's envelope put back
RESPONSE = b'{"data":' + CUT.read_bytes().rstrip(b"\n") + b"}"
OBSERVED = datetime(2026, 4, 14, 23, 0, tzinfo=UTC)


def prices_by_slug() -> dict:
    return {price.model_slug: price for price in SOURCE.parse([raw_document(RESPONSE, MODELS_URL)])}


def test_every_entry_of_the_real_list_is_read_exactly_per_token():
    prices = prices_by_slug()
    assert len(prices) == 28
    llama = prices["meta-llama/llama-3.1-70b-instruct"]
    assert (llama.usd_per_input_token, llama.usd_per_output_token) == (Decimal("0.0000004"), Decimal("0.0000004"))
    assert (llama.provider, llama.context_length) == ("openrouter", 131072)
    gpt_oss = prices["openai/gpt-oss-120b"]
    assert gpt_oss.usd_per_input_token == Decimal("0.000000039")  # no float on the way: 3.9e-08 exactly
    assert prices["openai/gpt-oss-120b:free"].usd_per_output_token == 0  # a free tier, kept as published
    assert prices["openrouter/auto"].usd_per_input_token == -1  # a router: "depends on the model it picks"


def test_a_run_loads_per_million_prices_and_sets_the_router_aside(home):
    run = land(SOURCE.id, OBSERVED, [raw_document(RESPONSE, MODELS_URL)], "stale_capture")
    record = ingest(SOURCE, run, "test")
    assert (record.status, record.rows_parsed, record.rows_loaded, record.rows_rejected) == ("loaded", 28, 27, 1)
    with db.connect() as connection:
        loaded = {row[0]: row[1:] for row in connection.execute(
            "SELECT model_slug, usd_per_million_input_tokens, usd_per_million_output_tokens, is_synthetic "
            "FROM raw.api_token_prices").fetchall()}
        quarantined = connection.execute("SELECT scope, reason, detail FROM raw.quarantine").fetchall()
    assert loaded["openai/gpt-oss-120b"] == (Decimal("0.039"), Decimal("0.19"), True)  # undated capture: flagged
    assert loaded["qwen/qwen3-235b-a22b"][:2] == (Decimal("0.455"), Decimal("1.82"))
    assert loaded["google/gemma-3-4b-it:free"][:2] == (0, 0)
    assert "openrouter/auto" not in loaded
    assert [(scope, reason, json.loads(detail)["model_slug"]) for scope, reason, detail in quarantined] == [
        ("row", "variable_price", "openrouter/auto")]


def test_too_few_prices_hold_the_whole_result_back(home):
    one_model = b'{"data":[' + json.dumps(json.loads(CUT.read_text())[0]).encode() + b"]}"
    record = ingest(SOURCE, land(SOURCE.id, OBSERVED, [raw_document(one_model, MODELS_URL)]), "test")
    assert record.status == "quarantined" and "too_few_prices: 1 accepted" in record.error
    with db.connect() as connection:
        assert connection.execute("SELECT count(*) FROM raw.api_token_prices").fetchone()[0] == 0


@pytest.mark.parametrize("body, message", [
    (b"<html><title>Just a moment...</title></html>", "is not JSON"),
    (b'{"data": {"id": "x"}}', "data is dict, expected a list"),
    (b'[{"id": "x"}]', "is not the"),
    (b'{"data": [{"pricing": {"prompt": "0.1", "completion": "0.1"}}]}', "missing field 'id'"),
    (b'{"data": [{"id": "a/b", "pricing": {"prompt": "0.1$", "completion": "0.1"}}]}', "a/b pricing.prompt"),
])
def test_a_changed_or_broken_list_is_a_parse_error(body, message):
    with pytest.raises(ParseError, match=message.replace("$", r"\$")):
        SOURCE.parse([raw_document(body, MODELS_URL)])


def test_a_model_without_a_token_price_is_no_offer():
    body = b'{"data": [{"id": "a/image-only", "pricing": {"image": "0.04"}}, {"id": "a/b", "pricing": {}}]}'
    assert SOURCE.parse([raw_document(body, MODELS_URL)]) == []


def aliases() -> dict[str, str]:
    with (ROOT / "models" / "seeds" / "api_model_aliases.csv").open(newline="") as file:
        return {row["model_slug"]: row["model_id"] for row in csv.DictReader(file) if row["source"] == "openrouter"}


def test_the_seed_maps_the_same_models_and_never_a_fine_tune_or_a_later_checkpoint():
    with (ROOT / "models" / "seeds" / "reference_models.csv").open(newline="") as file:
        reference = {row["model_id"] for row in csv.DictReader(file)}
    mapped = aliases()
    assert set(mapped.values()) <= reference
    listed = {slug: mapped.get(slug) for slug in prices_by_slug()}
    assert sum(model_id is not None for model_id in listed.values()) == 23
    assert len({model_id for model_id in listed.values() if model_id}) == 21
    assert listed["meta-llama/llama-3.1-70b-instruct"] == "llama-3.1-70b"
    assert listed["openai/gpt-oss-120b:free"] == "gpt-oss-120b"
    for unmapped in ("nousresearch/hermes-3-llama-3.1-405b", "qwen/qwen3-235b-a22b-2507", "openai/gpt-5.4",
                     "google/lyria-3-pro-preview", "openrouter/auto"):
        assert listed[unmapped] is None, unmapped


def test_the_offline_replay_serves_the_real_list_on_every_day():
    recordings = [r for r in load_recordings() if r["source"] == SOURCE.id]
    assert [r["data_origin"] for r in recordings] == ["stale_capture"]
    served = RECORDINGS / recordings[0]["routes"]["openrouter.ai/api/v1/models"]
    assert served.read_bytes().rstrip(b"\n") == RESPONSE  # the fixture's entries, byte for byte, in the envelope
    plan = replay_plan(load_recordings())
    assert all(SOURCE.id in day.sources for day in plan)
    assert all_sources()[SOURCE.id].records == "token_prices"
