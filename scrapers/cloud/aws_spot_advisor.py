"""AWS Spot Instance Advisor data (public, no key): how often each GPU instance type's spot instances were
interrupted, per region and operating system, as AWS publishes it.

Facts (a real copy of the file, tests/fixtures/aws/; the Spot Instance Advisor page reads the same file):
- `GET https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json` -> `{instance_types: {<type>: {emr, cores,
  ram_gb}}, ranges: [{index, label, dots, max}], spot_advisor: {<region>: {<os>: {<type>: {s, r}}}}, global_rate}`;
- `r` is the type's interruption band, an index into `ranges` ("<5%" .. ">20%": the share of the type's spot
  instances AWS interrupted over the trailing month); each range's `max` is its published upper edge in percent
  (5, 11, 16, 22, 100 in the copy read: the labels and edges are AWS's, kept as published);
- `s` is the spot price's saving over on-demand, in percent (AWS's figure; spot prices themselves need signed EC2
  calls and are not fetched, scrapers/cloud/aws.py);
- the operating systems are `Linux` and `Windows`.
Only the GPU instance families the AWS price list source prices (aws.FAMILY_GPU) are kept; an `r` that names no
range, or a missing field, is a ParseError (a changed file never loads wrong bands).
"""

from __future__ import annotations

from scrapers.base import Expectations, SpotInterruptionBand
from scrapers.cloud.aws import gpu_family
from scrapers.errors import ParseError
from scrapers.http import RawDocument
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field

ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"


class AwsSpotAdvisor(JsonApiSource):
    id = "aws-spot-advisor"
    provider = "aws"
    records = "spot_interruptions"
    description = "AWS Spot Instance Advisor: each GPU instance type's interruption band and spot saving, per region"
    pricing_types = ("spot_interruption",)
    hosts = ("spot-bid-advisor.s3.amazonaws.com",)
    status = (
        "parser tested on a real excerpt of the file (us-west-2 and us-east-1, Linux, every NVIDIA GPU type; a 2026 "
        "copy); offline replay serves the excerpt on every day (stale capture); live file not fetched from here"
    )
    # the excerpt holds 86 bands of priced GPU types in two regions; the live file holds every region
    expectations = Expectations(frozenset(), min_offers=20)
    offline = Recording(
        "stale_capture", "alexei-led/spotinfo@4105b47a internal/spot/data/spot-advisor-data.json: a REAL copy of "
        "spot-advisor-data.json (that repository's manifest records a fetch on 2026-08-10), us-west-2 and "
        "us-east-1 Linux GPU excerpt; every day",
        (Served(ADVISOR_URL, "stale_capture_2026_spot_advisor_us-west-2_us-east-1_linux_gpu.json",
                fixture="aws/spotinfo_spot_advisor_us-west-2_us-east-1_linux_gpu_excerpt.json"),))
    api_url = ADVISOR_URL
    object_payload = True

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[SpotInterruptionBand]:
        if not isinstance(payload, dict):
            raise ParseError(f"{self.id}: {document.url} is {type(payload).__name__}, expected an object")
        ranges = self._ranges(field(payload, "ranges", self.id))
        regions = field(payload, "spot_advisor", self.id)
        if not isinstance(regions, dict):
            raise ParseError(f"{self.id}: spot_advisor is {type(regions).__name__}, expected an object")
        bands = []
        for region, systems in regions.items():
            if not isinstance(systems, dict):
                raise ParseError(f"{self.id}: spot_advisor.{region} is {type(systems).__name__}, expected an object")
            for operating_system, types in systems.items():
                if not isinstance(types, dict):
                    raise ParseError(f"{self.id}: spot_advisor.{region}.{operating_system} is not an object")
                for instance_type, advice in types.items():
                    if gpu_family(instance_type) is None:
                        continue  # not a GPU type the warehouse prices
                    bands.append(self._band(region, operating_system, instance_type, advice, ranges, index))
        return bands

    def _ranges(self, value: object) -> dict[int, tuple[str, int]]:
        """index -> (label, max) of the published ranges."""
        ranges = {}
        for entry in as_list(value, "ranges", self.id):
            number, label, edge = (field(entry, key, self.id, "ranges[]") for key in ("index", "label", "max"))
            if not isinstance(number, int) or not isinstance(edge, int) or not isinstance(label, str):
                raise ParseError(f"{self.id}: range {entry!r} is not an index, a label and a max")
            ranges[number] = (label, edge)
        return ranges

    def _band(self, region: str, operating_system: str, instance_type: str, advice: object,
              ranges: dict[int, tuple[str, int]], index: int) -> SpotInterruptionBand:
        where = f"{region} {operating_system} {instance_type}"
        band, saving = field(advice, "r", self.id, where), field(advice, "s", self.id, where)
        if band not in ranges or isinstance(band, bool):
            raise ParseError(f"{self.id}: {where} has band {band!r}, which no published range names")
        if not isinstance(saving, int) or isinstance(saving, bool) or not 0 <= saving <= 100:
            raise ParseError(f"{self.id}: {where} has saving {saving!r}, not a percent")
        label, edge = ranges[band]
        return SpotInterruptionBand(
            source=self.id, provider=self.provider, region=region, operating_system=operating_system,
            instance_type=instance_type, interruption_band=label, interruption_band_index=band,
            interruption_max_pct=edge, spot_savings_pct=saving, document_index=index,
        )
