"""Landing, normalization, integrity and loading: idempotent, all-or-nothing, never losing an observation."""

from __future__ import annotations

import gzip
import json
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction

import duckdb
import polars as pl
import pytest
from conftest import RECORDINGS, document

from scrapers.base import Expectations, Offer
from scrapers.cloud.aws import AwsEc2
from scrapers.cloud.azure import AzureRetailPrices
from scrapers.errors import FetchError
from scrapers.http import RawDocument
from scrapers.registry import all_sources
from warehouse.ingest import load, pipeline
from warehouse.store import db, landing
from warehouse.ingest.integrity import check
from warehouse.store.landing import land, read_landed
from warehouse.ingest.normalize import normalize, price_per_unit
from warehouse.ingest.pipeline import (
    fetch_and_land,
    ingest,
    ingest_landed_runs,
    record_failure,
    records_observed_at,
)
from warehouse.store.schema import DROPPED_OFFER_COLUMNS, RAW_TABLES, create_raw_schema
from warehouse.store.status import render, staleness, status

OBSERVED = datetime(2026, 4, 2, 23, 0, tzinfo=UTC)


def counts():
    with db.connect() as connection:
        return {
            table: connection.execute(f"SELECT count(*) FROM raw.{table}").fetchone()[0]
            for table in ("offers", "ingest_runs", "quarantine", "landing_documents")
        }


def land_lambda(observed=OBSERVED):
    return land("skypilot-lambda", observed, [document("skypilot/lambda_2026-04-02.csv")])


def test_landing_is_compressed_hashed_and_written_once(home):
    first = land_lambda()
    second = land_lambda()
    assert first.run_id == second.run_id and first.directory == second.directory
    manifest = json.loads((first.directory / "manifest.json").read_text())
    entry = manifest["documents"][0]
    assert entry["bytes"] == len(document("skypilot/lambda_2026-04-02.csv").body)
    assert gzip.decompress((first.directory / entry["file"]).read_bytes()) == first.documents[0].body
    assert first.directory.parent.name == "2026-04-02" and first.directory.parent.parent.name == "skypilot-lambda"


def test_a_corrupt_landed_file_is_detected(home):
    run = land_lambda()
    (run.directory / run.document_files[0]).write_bytes(gzip.compress(b"tampered"))
    with pytest.raises(ValueError, match="sha256 mismatch"):
        read_landed(run.directory)


def test_loading_the_same_source_run_twice_adds_nothing(home):
    source = all_sources()["skypilot-lambda"]
    record = ingest(source, land_lambda(), "test")
    assert record.status == "loaded" and record.rows_loaded == 255
    before = counts()
    again = ingest(source, land_lambda(), "test")
    assert again.status == "already_loaded" and counts() == before


def test_a_repeated_document_loads_the_rows_a_fresh_parse_would(home, monkeypatch):
    """The replay's repeat (warehouse/ingest/pipeline.py repeated_documents): the second day of the same bytes is not parsed
    again, and loads what parsing it would have loaded, with its own run id, time and landing references."""
    source = all_sources()["skypilot-lambda"]
    days = [OBSERVED, OBSERVED.replace(day=3), OBSERVED.replace(day=4)]
    ingest(source, land_lambda(days[1]), "test")  # the reference: parsed, without the repeat

    def rows(observed):
        with db.connect() as connection:
            return connection.execute("SELECT * FROM raw.offers WHERE observed_at = ? ORDER BY offer_id, pricing_type",
                                      [observed]).fetchall()

    expected = rows(days[1])
    with db.connect() as connection:
        connection.execute("DELETE FROM raw.offers; DELETE FROM raw.ingest_runs; DELETE FROM raw.landing_documents")
    with pipeline.repeated_documents():
        first = ingest(source, land_lambda(days[0]), "test")
        monkeypatch.setattr(type(source), "parse", lambda self, documents: pytest.fail("parsed again"))
        landed = land_lambda(days[1])
        second = ingest(source, landed, "test")
        third = ingest(all_sources()["skypilot-lambda"], land_lambda(days[2]), "test")
    assert "parse" in first.stage_seconds and "parse" not in second.stage_seconds
    assert [r.status for r in (first, second, third)] == ["loaded"] * 3
    assert second.rows_parsed == first.rows_parsed and second.rows_loaded == first.rows_loaded == 255
    assert rows(days[1]) == expected and len(rows(days[0])) == len(rows(days[2])) == 255
    with db.connect() as connection:
        refs = connection.execute("SELECT DISTINCT run_id, observed_at, landing_ref FROM raw.offers "
                                  "WHERE observed_at = ?", [days[1]]).fetchall()
    assert refs == [(second.run_id, days[1], landed.landing_ref(0))]


def pending_lambda(day: int, break_offer_ids: bool = False) -> load.PendingLoad:
    """A checked skypilot-lambda run of April `day`, ready to load; `break_offer_ids`: its rows violate NOT NULL."""
    source = all_sources()["skypilot-lambda"]
    run = land_lambda(OBSERVED.replace(day=day))
    checked = check(normalize(source.parse(run.documents), run, source.parser_version), source.expectations)
    if break_offer_ids:
        checked = replace(checked, accepted=checked.accepted.with_columns(pl.lit(None, pl.String).alias("offer_id")))
    record = load.IngestRecord(run_id=run.run_id, parser_version=source.parser_version, source=source.id,
                               status="loaded", observed_at=run.observed_at, started_at=OBSERVED,
                               finished_at=OBSERVED, rows_loaded=checked.accepted.height)
    return load.PendingLoad(run, record, checked)


def test_runs_that_wait_for_the_writer_load_together_and_a_bad_one_fails_alone(home, monkeypatch):
    groups = []

    def spy(connection, loads):
        groups.append(sorted(load.record.observed_at.day for load in loads))
        return real_load_runs(connection, loads)

    real_load_runs = pipeline.load_runs
    monkeypatch.setattr(pipeline, "load_runs", spy)
    loads = [pending_lambda(2), pending_lambda(3), pending_lambda(4, break_offer_ids=True)]
    outcomes = {}

    def load_one(pending):
        try:
            outcomes[pending.record.observed_at.day] = pipeline._load_together(pending).status
        except duckdb.Error as error:
            outcomes[pending.record.observed_at.day] = type(error).__name__

    with db.connect():  # the writer is busy: the three loads queue
        threads = [threading.Thread(target=load_one, args=(pending,)) for pending in loads]
        for thread in threads:
            thread.start()
        while len(pipeline._waiting) < 3:
            time.sleep(0.01)
    for thread in threads:
        thread.join(timeout=60)
    # one group of three failed on the bad run, then each run alone: the good ones loaded, the bad one raised its own
    assert groups == [[2, 3, 4], [2], [3], [4]]
    assert outcomes == {2: "loaded", 3: "loaded", 4: "ConstraintException"}
    with db.connect() as connection:
        days = connection.execute("SELECT DISTINCT day(observed_at) FROM raw.ingest_runs ORDER BY 1").fetchall()
        offers = connection.execute("SELECT count(*) FROM raw.offers").fetchone()[0]
    assert days == [(2,), (3,)] and offers == 2 * 255


def test_a_run_whose_writer_cannot_open_fails_and_is_not_loaded_later(home, monkeypatch):
    refused = pending_lambda(2)
    with monkeypatch.context() as patch:
        patch.setattr(db, "_open_writer", lambda: (_ for _ in ()).throw(duckdb.IOException("Could not set lock")))
        with pytest.raises(duckdb.IOException):
            pipeline._load_together(refused)
    assert pipeline._load_together(pending_lambda(3)).status == "loaded"  # the next load takes only its own run
    with db.connect() as connection:
        days = connection.execute("SELECT day(observed_at) FROM raw.ingest_runs").fetchall()
    assert days == [(3,)] and not pipeline._waiting


def test_a_group_load_writes_what_loading_each_run_alone_writes(home):
    with db.connect() as connection:
        load.load_runs(connection, [pending_lambda(2), pending_lambda(3)])
        together = {table: connection.execute(f"SELECT * EXCLUDE (quarantined_at) FROM raw.{table} ORDER BY ALL")
                    .fetchall() if table == "quarantine" else
                    connection.execute(f"SELECT * FROM raw.{table} ORDER BY ALL").fetchall()
                    for table in ("offers", "landing_documents", "quarantine")}
        connection.execute("DELETE FROM raw.offers; DELETE FROM raw.ingest_runs; DELETE FROM raw.landing_documents;"
                           "DELETE FROM raw.quarantine")
        for day in (2, 3):
            load.load_runs(connection, [pending_lambda(day)])
        alone = {table: connection.execute(f"SELECT * EXCLUDE (quarantined_at) FROM raw.{table} ORDER BY ALL")
                 .fetchall() if table == "quarantine" else
                 connection.execute(f"SELECT * FROM raw.{table} ORDER BY ALL").fetchall()
                 for table in ("offers", "landing_documents", "quarantine")}
        runs = connection.execute("SELECT count(*), sum(rows_loaded) FROM raw.ingest_runs").fetchone()
    assert together == alone and len(together["offers"]) == 2 * 255 and runs == (2, 2 * 255)


def test_a_load_that_fails_midway_leaves_no_rows(home, monkeypatch):
    source = all_sources()["skypilot-lambda"]

    def explode(connection, records):
        raise RuntimeError("killed between the offers insert and the ingest_runs insert")

    with monkeypatch.context() as patch, pytest.raises(RuntimeError):
        patch.setattr(load, "insert_ingest_records", explode)
        ingest(source, land_lambda(), "test")
    assert counts()["offers"] == 0 and counts()["ingest_runs"] == 0
    assert ingest(source, land_lambda(), "test").status == "loaded"  # the next run completes


def test_a_result_missing_expected_gpus_is_quarantined_whole(home):
    source = all_sources()["skypilot-lambda"]
    strict = replace(source.expectations, expected_gpu_ids=frozenset({"b200-180gb", "tpu-v5p-95gb"}))
    source.expectations = strict  # an instance attribute: the registry builds new instances per call
    record = ingest(source, land_lambda(), "test")
    assert record.status == "quarantined" and "tpu-v5p-95gb" in record.error
    with db.connect() as connection:
        reasons = connection.execute("SELECT scope, reason FROM raw.quarantine").fetchall()
    assert counts()["offers"] == 0
    assert ("result", "missing_expected_gpus: tpu-v5p-95gb") in reasons


def test_zero_price_row_is_quarantined_and_the_rest_loads(home):
    run = land("azure", OBSERVED, [document("azure/synthetic_documented_format_gpu_items.json")], "synthetic")
    source = AzureRetailPrices()
    source.expectations = Expectations(frozenset({"h100-sxm5-80gb"}), min_offers=1, max_rejected_share=0.5)
    record = ingest(source, run, "test")
    assert record.status == "loaded" and record.rows_rejected == 1
    with db.connect() as connection:
        quarantined = connection.execute("SELECT reason, detail FROM raw.quarantine").fetchall()
        prices = connection.execute("SELECT min(price), bool_and(is_synthetic) FROM raw.offers").fetchone()
    assert len(quarantined) == 1 and quarantined[0][0] == "non_positive_price"
    assert "|synthetic-7|" in json.loads(quarantined[0][1])["offer_id"]  # the $0 item, with what it was
    assert prices[0] > 0 and prices[1] is True  # nothing at $0 loaded; rows from a synthetic file say so


def test_reparse_with_a_new_parser_version_adds_rows_and_keeps_the_old(home):
    source = all_sources()["skypilot-lambda"]
    first = source.parser_version
    ingest(source, land_lambda(), "test")
    source.parser_version = first + 1
    record = ingest(source, read_landed(land_lambda().directory), "reparse")
    assert record.status == "loaded"
    with db.connect() as connection:
        versions = connection.execute(
            "SELECT parser_version, count(*) FROM raw.offers GROUP BY 1 ORDER BY 1"
        ).fetchall()
    assert versions == [(first, 255), (first + 1, 255)]


def test_ingest_landed_runs_picks_up_fetched_but_unloaded_runs(home):
    land_lambda()
    land_lambda(datetime(2026, 4, 3, 23, 0, tzinfo=UTC))
    records = ingest_landed_runs(all_sources(), trigger="load")
    assert [r.status for r in records] == ["loaded", "loaded"]
    assert ingest_landed_runs(all_sources(), trigger="load") == []


def offer(**changes) -> Offer:
    base = Offer(source="t", channel="cloud", provider="t", offer_id="o", raw_gpu_name="H100", gpu_id="h100-sxm5-80gb",
                 gpu_count=Fraction(8), pricing_type="on_demand", price=Decimal("98.32"), currency="USD",
                 price_unit="instance_hour")
    return replace(base, **changes)


def test_per_gpu_hour_is_exact_decimal():
    assert price_per_unit(offer()) == Decimal("12.290000")
    assert price_per_unit(offer(price=Decimal("1"), gpu_count=Fraction(3))) == Decimal("0.333333")
    assert price_per_unit(offer(price=Decimal("2.5"), price_unit="gpu_hour")) == Decimal("2.500000")
    assert price_per_unit(offer(currency="EUR")) == Decimal("12.290000")  # in its own currency: USD in the models
    assert price_per_unit(offer(gpu_count=None)) is None


@pytest.mark.parametrize(
    "offers, reason",
    [
        ([], "empty_result"),
        ([offer(offer_id=str(i)) for i in range(3)] + [offer(offer_id="b200", gpu_id="b200-180gb", price=Decimal("0.08"))],
         None),
    ],
)
def test_integrity_rules(home, offers, reason):
    run = land_lambda()
    frame = normalize(offers, run, 1)
    result = check(frame, Expectations(frozenset({"h100-sxm5-80gb"}), min_offers=1, max_rejected_share=0.5))
    if reason:
        assert any(r.startswith(reason) for r in result.result_reasons)
    else:
        # the $0.01-per-GPU-hour B200 (0.08 / 8 GPUs) is held back; the sane H100 rows pass
        assert result.passed
        assert result.rejected.get_column("reason").to_list() == ["price_out_of_band"]
        assert result.accepted.height == 3


def test_relative_outlier_and_too_many_rejections(home):
    run = land_lambda()
    rows = [offer(offer_id=str(i)) for i in range(6)] + [offer(offer_id="x", price=Decimal("8.0"))]  # 1.00 vs 12.29
    frame = normalize(rows, run, 1)
    result = check(frame, Expectations(frozenset({"h100-sxm5-80gb"}), max_rejected_share=0.1))
    assert result.rejected.get_column("reason").to_list() == ["relative_outlier"]
    assert any(r.startswith("too_many_rejected_rows") for r in result.result_reasons)


def test_a_source_without_its_api_key_is_skipped_with_a_clear_message(home, monkeypatch):
    import asyncio

    from scrapers.errors import MissingCredentials

    class KeyedSource(AzureRetailPrices):
        id = "keyed"
        api_key_env = "GPUPRICES_TEST_KEY"

    monkeypatch.delenv("GPUPRICES_TEST_KEY", raising=False)
    with pytest.raises(MissingCredentials, match="set GPUPRICES_TEST_KEY") as raised:
        asyncio.run(fetch_and_land(KeyedSource(), client=None, observed_at=OBSERVED))
    record = record_failure("keyed", 1, OBSERVED, raised.value, OBSERVED, "test")
    assert record.status == "skipped" and counts()["ingest_runs"] == 1 and counts()["offers"] == 0


def test_an_older_warehouse_gets_the_new_column_names_and_keeps_its_values(tmp_path):
    from warehouse.store.schema import RAW_TABLES, RENAMED_COLUMNS, create_raw_schema

    connection = duckdb.connect(str(tmp_path / "older.duckdb"))
    connection.execute("CREATE SCHEMA raw")
    for table in ("raw.offers", "raw.ingest_runs"):  # as an older version created them
        columns = RAW_TABLES[table]
        for renamed_table, old, new in RENAMED_COLUMNS:
            if renamed_table == table:
                columns = columns.replace(f"{new} ", f"{old} ", 1)
        connection.execute(f"CREATE TABLE {table} ({columns})")
    connection.execute("INSERT INTO raw.ingest_runs (run_id, parser_version, source, status, observed_at, started_at, "
                       "finished_at, duration_s, documents_fetched, bytes_fetched, offers_parsed, offers_loaded, "
                       "offers_rejected, is_synthetic, trigger) VALUES ('r', 1, 's', 'loaded', now(), now(), now(), "
                       "0, 1, 1, 7, 6, 1, false, 'daily')")
    create_raw_schema(connection)
    create_raw_schema(connection)  # again: nothing left to rename
    assert connection.execute("SELECT rows_parsed, rows_loaded, rows_rejected FROM raw.ingest_runs").fetchall() == [
        (7, 6, 1)]
    offer_columns = [row[0] for row in connection.execute("DESCRIBE raw.offers").fetchall()]
    assert "includes_host_vm" in offer_columns and "bundled" not in offer_columns


def test_an_older_warehouse_moves_its_legacy_usd_unit_prices_then_drops_the_legacy_columns(tmp_path):
    """raw.offers as loads before 2026-11 left it: a USD rental with its per-GPU-hour price only in
    price_per_gpu_hour_usd gets it as price_per_unit (an exact copy); a row that has price_per_unit keeps its own; a
    EUR rental and a card whose legacy figures no model read keep theirs; then both legacy columns are gone."""
    connection = duckdb.connect(str(tmp_path / "older.duckdb"))
    connection.execute("CREATE SCHEMA raw")
    columns = RAW_TABLES["raw.offers"].replace(  # as an older version created it
        "price_role             VARCHAR NOT NULL,",
        "price_role VARCHAR NOT NULL, price_usd DECIMAL(24, 10), price_per_gpu_hour_usd DECIMAL(18, 6),")
    assert "price_per_gpu_hour_usd" in columns
    connection.execute(f"CREATE TABLE raw.offers ({columns})")
    insert = ("INSERT INTO raw.offers (run_id, parser_version, observed_at, source, channel, provider, offer_id, "
              "raw_gpu_name, pricing_type, price, currency, price_unit, price_role, includes_host_vm, landing_ref, "
              "is_synthetic, price_usd, price_per_gpu_hour_usd, price_per_unit) "
              "VALUES (?, 1, '2026-10-01 12:00:00+00', 's', ?, 'p', ?, 'H100', ?, ?, ?, ?, 'selling', true, 'ref', false, "
              "?, ?, ?)")
    legacy = [  # run_id, channel, offer_id, pricing_type, price, currency, price_unit, usd, per GPU-hour usd, per unit
        ("r", "cloud", "legacy-usd", "on_demand", "19.92", "USD", "instance_hour", "19.92", "2.490000", None),
        ("r", "cloud", "both", "on_demand", "2.50", "USD", "gpu_hour", "2.50", "2.500000", "2.500000"),
        ("r", "cloud", "eur", "spot", "1.10", "EUR", "gpu_hour", None, None, "1.100000"),
        ("r", "retail", "card", "purchase", "1599.99", "USD", "card", "1599.99", "7.000000", None),
    ]
    for run_id, channel, offer_id, pricing_type, price, currency, unit, usd, hour_usd, per_unit in legacy:
        connection.execute(insert, [run_id, channel, offer_id, pricing_type, Decimal(price), currency, unit,
                                    usd and Decimal(usd), hour_usd and Decimal(hour_usd),
                                    per_unit and Decimal(per_unit)])
    observed_before = connection.execute(
        "SELECT offer_id, price, currency, price_unit FROM raw.offers ORDER BY offer_id").fetchall()
    create_raw_schema(connection)
    create_raw_schema(connection)  # again: nothing left to move or drop
    offer_columns = {row[0] for row in connection.execute("DESCRIBE raw.offers").fetchall()}
    assert not offer_columns & set(DROPPED_OFFER_COLUMNS)
    assert dict(connection.execute("SELECT offer_id, price_per_unit FROM raw.offers").fetchall()) == {
        "legacy-usd": Decimal("2.490000"), "both": Decimal("2.500000"), "eur": Decimal("1.100000"), "card": None}
    assert connection.execute(  # the observation itself is untouched
        "SELECT offer_id, price, currency, price_unit FROM raw.offers ORDER BY offer_id").fetchall() == observed_before


def test_every_raw_gpu_name_is_resolved_once_by_the_one_resolver_before_a_build(home):
    from scrapers.gpu_names import resolve_gpu_id
    from warehouse.store.build import refresh_gpu_name_matches

    def offer_row(provider, name, day):
        return (f"r-{provider}-{day}", 1, f"2026-04-{day:02d} 12:00:00+00", provider, "cloud", provider, name, name,
                "on_demand", 1, "USD", "gpu_hour", "selling", True, "ref", False)

    insert = ("INSERT INTO raw.offers (run_id, parser_version, observed_at, source, channel, provider, offer_id, "
              "raw_gpu_name, pricing_type, price, currency, price_unit, price_role, includes_host_vm, landing_ref, "
              "is_synthetic) VALUES (?, ?, ?::TIMESTAMPTZ, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    with db.connect() as connection:
        connection.executemany(insert, [offer_row("gcp", "A100", 2), offer_row("vast", "A100", 2),
                                        offer_row("vast", "Mystery GPU", 2)])
        assert refresh_gpu_name_matches(connection) == 3  # a full build: every name
        matches = {(s, n): g for s, n, g in connection.execute("SELECT * FROM meta.gpu_name_matches").fetchall()}
        # the provider scope first, then a global alias: the same name, two GPUs, as the parsers resolve them
        assert matches == {(s, n): resolve_gpu_id(n, s) for s, n in matches}
        assert matches[("gcp", "A100")] != matches[("vast", "A100")] and matches[("vast", "Mystery GPU")] is None
        connection.executemany(insert, [offer_row("gcp", "T4", 3), offer_row("gcp", "A100", 3)])
        # an incremental build of day 3 adds the one name it has not seen; a day with no offers adds nothing
        assert refresh_gpu_name_matches(connection, [datetime(2026, 4, 3).date()]) == 1
        assert refresh_gpu_name_matches(connection, [datetime(2026, 4, 9).date()]) == 0
        assert connection.execute("SELECT gpu_id FROM meta.gpu_name_matches WHERE raw_gpu_name = 'T4'").fetchone()[0]
    # a name with no GPU is reported (before the first build, from the rows' own gpu_id: NULL in every row here)
    report = status()
    assert ("vast", "Mystery GPU") in [(u["source"], u["raw_gpu_name"]) for u in report["unmatched_gpu_names"]]
    assert "'Mystery GPU'" in render(report).split("Unmatched GPU names")[1]


def test_a_sources_staleness_follows_the_carry_forward_limit():
    assert staleness(None, 3) == "never loaded"
    assert staleness(0, 3) == "in the newest day's figures"  # no clock: freshness is warehouse/store/freshness.py's
    assert staleness(3, 3).startswith("stale: last good snapshot carried forward (3 of 3 days)")
    assert staleness(4, 3).startswith("stale: dropped")
    assert staleness(400, 3, imported=True).startswith("imported history")  # history, not a feed


def test_a_spooled_body_is_landed_from_its_file_and_a_big_landed_body_is_read_back_spooled(home, monkeypatch):
    # the AWS source's offer file (the one source whose bodies may pass the 25 MB cap, so the only one spooled)
    body = (RECORDINGS / "aws" / "synthetic_documented_format_us-east-1_index.json").read_bytes()
    url = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json"
    spool = home / "spool" / "fetched"
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.write_bytes(body)
    spooled = RawDocument(url=url, status=200, body=b"", fetched_at=OBSERVED, spool=spool)
    in_memory = RawDocument(url=url, status=200, body=body, fetched_at=OBSERVED)
    run = land("aws", OBSERVED, [spooled], "synthetic")
    assert run.run_id == landing.compute_run_id("aws", OBSERVED, [in_memory])  # the same observation either way
    assert gzip.decompress((run.directory / run.document_files[0]).read_bytes()) == body
    monkeypatch.setattr(landing, "SPOOL_ABOVE_BYTES", 1000)  # this body counts as very large when read back
    again = read_landed(run.directory)
    assert again.documents[0].body == b"" and again.documents[0].spool.read_bytes() == body
    source = AwsEc2(regions=("us-east-1",))
    record = ingest(source, again, "test")
    assert record.status == "loaded" and record.rows_loaded > 0 and record.bytes_fetched == len(body)
    assert not again.documents[0].spool.exists()  # parsed: the spool file is gone, the landed copy stays
    assert len(source.parse([in_memory])) == record.rows_parsed


def test_the_records_of_an_observation_time_come_back_as_written(home):
    # what a distributed run's parent reads back from the shards' loads
    source = all_sources()["skypilot-lambda"]
    loaded = ingest(source, land_lambda(), "daily")
    failed = record_failure("vast", 1, OBSERVED, FetchError("HTTP 503 from https://x.test/"), OBSERVED, "daily")
    records = {r.source: r for r in records_observed_at(OBSERVED)}
    assert set(records) == {"skypilot-lambda", "vast"}
    assert records["skypilot-lambda"].rows_loaded == loaded.rows_loaded and records["vast"].error == failed.error
