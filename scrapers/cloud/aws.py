"""AWS EC2 bulk price list (public, no key): on-demand and reserved (1y/3y) prices of GPU instance types.

Facts (AWS Price List bulk API; the offer-file structure of the lyft/awspricing fixture in
tests/fixtures/aws/; SkyPilot fetch_aws's filters):
- per region: `GET https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json`
  -> `{products: {<sku>: {productFamily, attributes}}, terms: {OnDemand: {<sku>: {<term>: {priceDimensions,
  termAttributes}}}, Reserved: {...}}}`;
- one instance type has 5-20 products: keep operatingSystem Linux, tenancy Shared, preInstalledSw NA,
  capacitystatus Used, licenseModel "No License required" (else licences, dedicated hosts and reservations of
  capacity leak in);
- `pricePerUnit.USD` is a decimal string per instance-hour ("Hrs"); a reserved term is a pair: an "Upfront Fee"
  (unit "Quantity") plus an hourly rate. We store the exact TOTAL of the term (upfront + hourly x hours of the
  term, `instance_term`), one offer per purchase option of the standard offering class;
- the GPU count is the `gpu` attribute; the GPU model is not in the file: it comes from the instance family
  (AWS's accelerated-computing instance docs), table below. Other families are not GPU instances and are skipped;
- spot prices need signed EC2 API calls (DescribeSpotPriceHistory): not fetched (see the README).
Per-region files are hundreds of MB each: they are streamed to a spool file (never held in memory), landed gzipped
from it, and read with an incremental JSON parser (ijson) in three passes (products, then the OnDemand and
Reserved terms of the GPU products only), so memory stays bounded whatever the file size (`gpuprices bench aws`).
Every commercial region is read (REGIONS, or GPUPRICES_AWS_REGIONS): regions without GPU instances give no rows.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from fractions import Fraction

import ijson

from config import settings
from scrapers.base import Expectations, Offer, Source
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated
from scrapers.parsing import field, money

OFFER_URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"
# Every commercial region (AWS's region list, 2026); one without GPU instances simply gives no rows.
REGIONS = (
    "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1", "ca-west-1", "mx-central-1", "sa-east-1",
    "eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1", "eu-central-2", "eu-north-1", "eu-south-1", "eu-south-2",
    "il-central-1", "me-south-1", "me-central-1", "af-south-1", "ap-south-1", "ap-south-2", "ap-east-1",
    "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3",
    "ap-southeast-4", "ap-southeast-5", "ap-southeast-7",
)
MAX_OFFER_FILE_BYTES = 2 * 1024**3
HOURS_IN_TERM = {"1yr": 8760, "3yr": 26280}
TERM_TYPES = {"1yr": ("reserved_1y", 12), "3yr": ("reserved_3y", 36)}
# instance family -> GPU name (AWS-scoped aliases in models/seeds/gpu_aliases.csv).
FAMILY_GPU = {
    "p6-b200": "B200", "p5en": "H200", "p5e": "H200", "p5": "H100", "p4de": "A100-80GB", "p4d": "A100",
    "p3dn": "V100-32GB", "p3": "V100", "g6e": "L40S", "g6": "L4", "gr6": "L4", "g5": "A10G", "g4dn": "T4",
}
_KEEP = {
    "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
    "licenseModel": "No License required",
}


def gpu_family(instance_type: str) -> str | None:
    family = instance_type.split(".", 1)[0]
    return family if family in FAMILY_GPU else None


class AwsEc2(Source):
    id = "aws"
    provider = "aws"
    description = "AWS EC2 bulk price list per region: on-demand and reserved (1y/3y, standard) GPU instances"
    pricing_types = ("on_demand", "reserved_1y", "reserved_3y")
    hosts = ("pricing.us-east-1.amazonaws.com",)
    status = (
        "parser tested on the real offer-file structure (lyft/awspricing, non-GPU 2016 rows) and a synthetic "
        "documented-format GPU file; offline replay serves the synthetic file (flagged synthetic)"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb", "a10g-24gb", "t4-16gb"}), min_offers=10)
    offline = Generated("dev.recordings.rebuilt:aws_offer_files",
                        "made-up GPU prices in the real offer-file structure, for 4 regions (flagged synthetic)")

    def __init__(self, regions: tuple[str, ...] | list[str] | None = None):
        self.regions = tuple(regions or settings.aws_regions() or REGIONS)

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        # independent files: fetched concurrently (the client's per-host gate spaces them), each streamed to disk
        return list(await asyncio.gather(*(
            client.get(OFFER_URL.format(region=region), allowed_hosts=self.hosts, max_bytes=MAX_OFFER_FILE_BYTES,
                       spool=True)
            for region in self.regions
        )))

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers = []
        for index, document in enumerate(documents):
            try:
                offers.extend(self._parse_offer_file(document, index))
            except ijson.JSONError as error:  # a truncated or broken file
                raise ParseError(f"{self.id}: {document.url} is not a complete offer file ({error})") from None
        return offers

    def _parse_offer_file(self, document: RawDocument, index: int) -> list[Offer]:
        """Streamed: one product or one SKU's terms in memory at a time; only GPU products are kept."""
        products, seen = {}, 0
        with document.open() as stream:
            for sku, product in ijson.kvitems(stream, "products"):
                seen += 1
                attributes = product.get("attributes") if isinstance(product, dict) else None
                if isinstance(attributes, dict) and gpu_family(attributes.get("instanceType", "")):
                    products[sku] = product
        if not seen:
            raise ParseError(f"{self.id}: {document.url} has no products (not an EC2 offer file?)")
        terms: dict[str, dict] = {"OnDemand": {}, "Reserved": {}}
        for term_type, kept in terms.items():
            if not products:
                break
            with document.open() as stream:
                for sku, terms_of_sku in ijson.kvitems(stream, f"terms.{term_type}"):
                    if sku in products:
                        kept[sku] = terms_of_sku
        offers = []
        for sku, product in products.items():
            offers.extend(self._offers(sku, product, terms, index))
        return offers

    def _offers(self, sku: str, product: dict, terms: dict, index: int) -> list[Offer]:
        attributes = field(product, "attributes", self.id, sku)
        instance_type = attributes.get("instanceType", "")
        family = gpu_family(instance_type)
        if family is None or any(attributes.get(key) != value for key, value in _KEEP.items()):
            return []
        gpu_count = int(attributes.get("gpu") or 0)
        if gpu_count <= 0:
            raise ParseError(f"{self.id}: GPU instance {instance_type} (sku {sku}) has gpu = {attributes.get('gpu')!r}")
        gpu_name = FAMILY_GPU[family]
        region = attributes.get("regionCode") or attributes.get("location")
        common = dict(
            source=self.id, channel="cloud", provider=self.provider, raw_gpu_name=gpu_name,
            gpu_id=resolve_gpu_id(gpu_name, "aws"), gpu_count=Fraction(gpu_count), currency="USD",
            region=region, instance_type=instance_type, document_index=index,
        )
        offers = []
        for term_code, term in (terms.get("OnDemand", {}).get(sku) or {}).items():
            hourly, _ = self._dimensions(term, sku)
            if hourly is not None:
                offers.append(Offer(**common, offer_id=f"{sku}|{term_code}", title=f"{instance_type} on-demand",
                                    pricing_type="on_demand", price=hourly, price_unit="instance_hour"))
        for term_code, term in (terms.get("Reserved", {}).get(sku) or {}).items():
            attributes_of_term = term.get("termAttributes") or {}
            length = attributes_of_term.get("LeaseContractLength")
            if attributes_of_term.get("OfferingClass") != "standard" or length not in TERM_TYPES:
                continue
            hourly, upfront = self._dimensions(term, sku)
            total = (upfront or Decimal(0)) + (hourly or Decimal(0)) * HOURS_IN_TERM[length]
            pricing_type, months = TERM_TYPES[length]
            option = attributes_of_term.get("PurchaseOption", "")
            offers.append(Offer(**common, offer_id=f"{sku}|{term_code}", title=f"{instance_type} {length} {option}",
                                pricing_type=pricing_type, term_months=months, price=total,
                                price_unit="instance_term"))
        return offers

    def _dimensions(self, term: dict, sku: str) -> tuple[Decimal | None, Decimal | None]:
        hourly = upfront = None
        for dimension in (term.get("priceDimensions") or {}).values():
            price = money((dimension.get("pricePerUnit") or {}).get("USD"), f"{sku} pricePerUnit", self.id)
            if dimension.get("unit") == "Hrs":
                hourly = price
            elif dimension.get("unit") == "Quantity":
                upfront = price
        return hourly, upfront
