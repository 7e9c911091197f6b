"""AWS Spot Instance Advisor: a real excerpt of spot-advisor-data.json (tests/fixtures/aws; origin in
tests/fixtures/PROVENANCE.md) parsed into interruption bands of the GPU instance types, loaded into
raw.spot_interruption_bands; its failure shapes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import document, fixture_json, json_document

from scrapers.cloud.aws import FAMILY_GPU
from scrapers.cloud.aws_spot_advisor import ADVISOR_URL, AwsSpotAdvisor
from scrapers.errors import ParseError
from warehouse.store import db
from warehouse.store.landing import land
from warehouse.ingest.pipeline import ingest

EXCERPT = "aws/spotinfo_spot_advisor_us-west-2_us-east-1_linux_gpu_excerpt.json"
SOURCE = AwsSpotAdvisor()
OBSERVED = datetime(2026, 4, 14, 23, 0, tzinfo=UTC)


def bands_by_type(region: str = "us-east-1") -> dict:
    return {band.instance_type: band for band in SOURCE.parse([document(EXCERPT)]) if band.region == region}


def test_every_gpu_type_of_the_real_excerpt_gets_its_published_band_and_saving():
    assert len(SOURCE.parse([document(EXCERPT)])) == 86
    bands = bands_by_type()
    assert len(bands) == 43  # 58 entries: 4 CPU types and 11 of GPU families the price list does not price left out
    p5 = bands["p5.48xlarge"]
    assert (p5.region, p5.operating_system, p5.provider) == ("us-east-1", "Linux", "aws")
    assert (p5.interruption_band, p5.interruption_band_index, p5.interruption_max_pct, p5.spot_savings_pct) == (
        "<5%", 0, 5, 57)
    # AWS's edges are its own: the "5-10%" band ends at 11, "10-15%" at 16, "15-20%" at 22
    assert (bands["g6e.2xlarge"].interruption_band, bands["g6e.2xlarge"].interruption_max_pct) == ("5-10%", 11)
    assert (bands["p6-b200.48xlarge"].interruption_band, bands["p6-b200.48xlarge"].interruption_max_pct) == (
        "10-15%", 16)
    assert (bands["p4d.24xlarge"].interruption_band, bands["p4d.24xlarge"].interruption_max_pct) == ("15-20%", 22)
    assert (bands["g4dn.xlarge"].interruption_band, bands["g4dn.xlarge"].spot_savings_pct) == ("10-15%", 60)
    assert (bands["p3.2xlarge"].interruption_band, bands["p3.2xlarge"].interruption_max_pct) == (">20%", 100)
    # only the GPU families the AWS price list source prices: no CPU type, no g6f/gr6f/g7e
    assert {name.split(".")[0] for name in bands} <= set(FAMILY_GPU)
    assert "c5d.9xlarge" not in bands and "g7e.12xlarge" not in bands and "g6f.large" not in bands


def test_the_same_type_has_its_own_band_in_each_region():
    east, west = bands_by_type("us-east-1"), bands_by_type("us-west-2")
    assert len(west) == 43  # 59 entries: 4 CPU types and 12 of unpriced GPU families (p6-b300, g7e, g6f, gr6f) out
    assert (east["p5.48xlarge"].interruption_band, west["p5.48xlarge"].interruption_band) == ("<5%", "<5%")
    assert (east["p5.48xlarge"].spot_savings_pct, west["p5.48xlarge"].spot_savings_pct) == (57, 69)
    assert (east["p4d.24xlarge"].interruption_band, west["p4d.24xlarge"].interruption_band) == ("15-20%", ">20%")
    assert (east["g6e.xlarge"].spot_savings_pct, west["g6e.xlarge"].spot_savings_pct) == (50, 36)
    assert "p6-b300.48xlarge" not in west  # a family the AWS price list source does not price


def test_a_run_loads_the_bands_flagged_as_a_stale_capture(home):
    run = land(SOURCE.id, OBSERVED, [document(EXCERPT)], "stale_capture")
    record = ingest(SOURCE, run, "test")
    assert (record.status, record.rows_parsed, record.rows_loaded, record.rows_rejected) == ("loaded", 86, 86, 0)
    with db.connect() as connection:
        loaded = {row[0]: row[1:] for row in connection.execute(
            "SELECT instance_type, interruption_band, interruption_max_pct, spot_savings_pct, is_synthetic "
            "FROM raw.spot_interruption_bands WHERE region = 'us-east-1'").fetchall()}
    assert loaded["p5en.48xlarge"] == ("<5%", 5, 67, True)
    assert loaded["g5.xlarge"] == (">20%", 100, 56, True)


def test_too_few_bands_hold_the_whole_result_back(home):
    payload = fixture_json(EXCERPT)
    linux = payload["spot_advisor"]["us-east-1"]["Linux"]
    payload["spot_advisor"] = {"us-east-1": {"Linux": {"p5.48xlarge": linux["p5.48xlarge"]}}}
    record = ingest(SOURCE, land(SOURCE.id, OBSERVED, [json_document(payload, ADVISOR_URL)]), "test")
    assert record.status == "quarantined" and "too_few_bands: 1 read" in record.error
    with db.connect() as connection:
        assert connection.execute("SELECT count(*) FROM raw.spot_interruption_bands").fetchone()[0] == 0


def changed(edit) -> dict:
    payload = fixture_json(EXCERPT)
    edit(payload)
    return payload


@pytest.mark.parametrize("payload, message", [
    (changed(lambda p: p.pop("ranges")), "missing field 'ranges'"),
    (changed(lambda p: p["spot_advisor"]["us-east-1"]["Linux"]["p5.48xlarge"].update(r=5)),
     "us-east-1 Linux p5.48xlarge has band 5, which no published range names"),
    (changed(lambda p: p["spot_advisor"]["us-east-1"]["Linux"]["p5.48xlarge"].pop("s")), "missing field 's'"),
    (changed(lambda p: p["spot_advisor"]["us-east-1"]["Linux"]["g5.xlarge"].update(s="56%")), "not a percent"),
    (changed(lambda p: p["ranges"][0].update(max="5")), "is not an index, a label and a max"),
    (changed(lambda p: p.update(spot_advisor=[])), "spot_advisor is list"),
    ([], "expected an object"),
])
def test_a_changed_file_is_a_parse_error_never_wrong_bands(payload, message):
    with pytest.raises(ParseError, match=message):
        SOURCE.parse([json_document(payload, ADVISOR_URL)])
