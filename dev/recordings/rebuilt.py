"""Recordings rebuilt or made up by a rule, day by day or in the documented format, for sources whose real answers we
do not hold whole: the AWS offer files (made-up GPU prices in the real structure) and the ECB daily files (rebuilt from
the real history file). The sources name these functions in their `offline` declaration; build_bundle.py calls each
with the source id. What each served document is, and how honest it is, is in its recording's `data_origin` and
`note`; everything but `captured` loads with is_synthetic = true.
"""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import date, timedelta
from decimal import Decimal

from dev.recordings.common import FIRST_DAY, FIXTURES, LAST_DAY, REPLAY_START, recording, write_bytes, write_json
from scrapers.cloud import aws
from scrapers.reference.ecb import DAILY_URL


def aws_offer_files(source_id: str) -> list[dict]:
    """`aws`: one made-up offer file per recorded region; the source is told to read those regions only."""
    return [recording(source_id, "synthetic", "made-up GPU prices in the real offer-file structure", {
        url: write_json(f"aws/synthetic_documented_format_{region}_index.json", offer_file)
        for region, url, offer_file in _aws_offer_files()}, overrides={"regions": list(_AWS_REGION_FACTOR)})]


# AWS: no real GPU offer file exists in our samples. These made-up prices (USD per instance-hour, roughly the list
# prices' order of magnitude) go into the real structure; reserved terms are made up as fractions of on-demand.
_AWS_SYNTHETIC = {
    "p5.48xlarge": ("8", "55.04"), "p4d.24xlarge": ("8", "21.96"), "p4de.24xlarge": ("8", "27.45"),
    "g5.xlarge": ("1", "1.006"), "g5.12xlarge": ("4", "5.672"), "g5.48xlarge": ("8", "16.288"),
    "g6.xlarge": ("1", "0.8048"), "g6e.xlarge": ("1", "1.861"), "g4dn.xlarge": ("1", "0.526"),
    "g4dn.12xlarge": ("4", "3.912"), "p3.2xlarge": ("1", "3.06"), "c5.large": ("0", "0.085"),
}
_AWS_REGION_FACTOR = {"us-east-1": Decimal("1"), "us-west-2": Decimal("1"), "eu-west-1": Decimal("1.08"),
                      "ap-northeast-1": Decimal("1.24")}


def _aws_offer_files():
    for region, factor in _AWS_REGION_FACTOR.items():
        products, on_demand, reserved = {}, {}, {}
        for number, (instance_type, (gpus, price)) in enumerate(_AWS_SYNTHETIC.items()):
            sku = f"SYNTHETIC{region.replace('-', '').upper()}{number:03d}"
            attributes = {"instanceType": instance_type, "regionCode": region, "operatingSystem": "Linux",
                          "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
                          "licenseModel": "No License required", "gpu": gpus}
            products[sku] = {"sku": sku, "productFamily": "Compute Instance", "attributes": attributes}
            # the Windows twin every real file has: the parser must drop it
            products[sku + "W"] = {"sku": sku + "W", "productFamily": "Compute Instance",
                                   "attributes": {**attributes, "operatingSystem": "Windows"}}
            hourly = (Decimal(price) * factor).quantize(Decimal("0.0001"))
            on_demand[sku] = {f"{sku}.JRTCKXETXF": {"offerTermCode": "JRTCKXETXF", "sku": sku, "termAttributes": {},
                              "priceDimensions": {f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                  "unit": "Hrs", "description": "synthetic", "pricePerUnit": {"USD": str(hourly)}}}}}
            on_demand[sku + "W"] = {f"{sku}W.JRTCKXETXF": {"offerTermCode": "JRTCKXETXF", "sku": sku + "W",
                                    "termAttributes": {}, "priceDimensions": {f"{sku}W.JRTCKXETXF.6YS6EN2CT7": {
                                        "unit": "Hrs", "pricePerUnit": {"USD": str(hourly * 2)}}}}}
            reserved[sku] = {
                f"{sku}.HU7G6KETJZ": {"offerTermCode": "HU7G6KETJZ", "sku": sku, "termAttributes": {
                    "LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "Partial Upfront"},
                    "priceDimensions": {
                        f"{sku}.HU7G6KETJZ.2TG2D8R56U": {"unit": "Quantity", "description": "Upfront Fee",
                                                         "pricePerUnit": {"USD": str(int(hourly * 2628))}},
                        f"{sku}.HU7G6KETJZ.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {
                            "USD": str((hourly * Decimal("0.3")).quantize(Decimal("0.0001")))}}}},
                f"{sku}.38NPMPTW36": {"offerTermCode": "38NPMPTW36", "sku": sku, "termAttributes": {
                    "LeaseContractLength": "3yr", "OfferingClass": "standard", "PurchaseOption": "All Upfront"},
                    "priceDimensions": {f"{sku}.38NPMPTW36.2TG2D8R56U": {
                        "unit": "Quantity", "description": "Upfront Fee", "pricePerUnit": {"USD": str(int(hourly * 10500))}}}},
            }
        offer_file = {"formatVersion": "v1.0", "disclaimer": "SYNTHETIC: made-up prices in the documented structure",
                      "offerCode": "AmazonEC2", "version": "synthetic", "publicationDate": REPLAY_START,
                      "products": products, "terms": {"OnDemand": on_demand, "Reserved": reserved}}
        yield region, aws.OFFER_URL.format(region=region), offer_file


def ecb_daily_files(source_id: str) -> list[dict]:
    """`ecb-fx`: the ECB daily file of every replay day, rebuilt from the real history file (tests/fixtures/ecb):
    the row of the last business day on or before that day, in the daily file's layout, zipped like eurofxref.zip."""
    with zipfile.ZipFile(FIXTURES / "ecb" / "eurofxref-hist.zip") as archive:
        rows = list(csv.reader(io.StringIO(archive.read("eurofxref-hist.csv").decode())))
    header, history = rows[0], {row[0]: row for row in rows[1:]}
    recordings = []
    day, last = date.fromisoformat(FIRST_DAY), date.fromisoformat(LAST_DAY)
    while day <= last:
        business_day = max(d for d in history if d <= day.isoformat())
        row = history[business_day]
        quoted = [(currency, value) for currency, value in zip(header[1:], row[1:], strict=False)
                  if currency and value and value != "N/A"]
        published = date.fromisoformat(business_day)
        text = (", ".join(["Date"] + [c for c, _ in quoted]) + ", \n"
                + ", ".join([f"{published.day:02d} {published:%B %Y}"] + [v for _, v in quoted]) + ", \n")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as daily:
            daily.writestr(zipfile.ZipInfo("eurofxref.csv", date_time=(published.year, published.month,
                                                                       published.day, 16, 0, 0)), text)
        relative = write_bytes(f"ecb/reconstructed_eurofxref_{day.isoformat()}.zip", buffer.getvalue())
        recordings.append(recording(
            source_id, "reconstructed",
            f"NOT a capture: the daily file rebuilt from the real ECB history file (rates of {business_day})",
            {DAILY_URL: relative}, recorded_at=f"{day.isoformat()}T16:00:00+00:00"))
        day += timedelta(days=1)
    return recordings
