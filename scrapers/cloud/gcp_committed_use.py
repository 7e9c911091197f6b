"""Google Cloud committed-use prices of the GPU machine types (no key), from the public cost calculator's price file.

Facts (a real excerpt of the file in recordings/gcp-committed-use/, tests/fixtures/PROVENANCE.md):
- `GET https://raw.githubusercontent.com/Cyclenerd/google-cloud-pricing-cost-calculator/master/pricing.yml`: one
  YAML file (about 2.5 MB, Apache-2.0) that its author rebuilds from Google's Cloud Billing Catalog (the SKUs of
  each machine's vCPUs, memory and GPUs, summed per machine type and region) and republishes as it changes. It holds
  `about.generated` (when it was built: "Thu Mar  6 03:53:56 2025") and `compute.instance.<machine type>`: the GPU
  count under the GPU's key (`a100: 1`), `cpu`, `ram`, and `cost.<region>` with `hour` (on demand), `hour_spot`,
  `month` (= hour x 730), `month_1y` and `month_3y` (the 1- and 3-year committed-use price of a month of 730
  hours), `month_spot`, all USD for the whole machine (GPUs, vCPUs and memory).
- Read: the 1- and 3-year committed-use prices of every machine type with GPUs, as `reserved_1y` / `reserved_3y` per
  instance-hour: month_1y / 730 (the file's own month), term 12 / 36 months, gpu_count the GPU count, region the
  region. A machine's GPUs are its one key besides `cost`, `cpu`, `ram` and `local-ssd` (`a100`, `a100-80gb`,
  `h100-80gb`, `h100-80gb-mega`, `l4`: the GPU names SkyPilot's GCP catalog uses too, resolved by the same gcp
  aliases); two such keys on one machine are a ParseError (never guessed), a machine with none (n1, e2, c3...) has no
  GPU and is not read, and a key no alias knows (a new GPU, or a new non-GPU count) loads as an unmatched GPU name,
  shown by `gpuprices status`, never dropped. On-demand and spot are not read (the Billing Catalog source `gcp` and
  the SkyPilot catalog give those).
- A price missing or zero is skipped for that term and region (not offered there: the excerpt's A2 Ultra machines
  list no committed price), never a zero; one that is not a number is a ParseError. The file states no currency beyond its Catalog's (USD).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import yaml

from scrapers.base import Expectations, Offer, Source, term_pricing_type
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Recording, Served
from scrapers.parsing import money

PRICING_URL = ("https://raw.githubusercontent.com/Cyclenerd/google-cloud-pricing-cost-calculator/master/"
               "pricing.yml")
HOURS_PER_MONTH = Decimal(730)  # the file's month: its `month` is `hour` x 730
TEN_DECIMALS = Decimal("1e-10")  # raw.offers keeps prices to 10 decimals
TERM_MONTHS = {"month_1y": 12, "month_3y": 36}  # the file's committed-use columns and their terms
MACHINE_KEYS = {"cost", "cpu", "ram", "local-ssd"}  # a machine's keys that are not its GPUs


def _load(text: str, source_id: str) -> dict:
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ParseError(f"{source_id}: not YAML{where}: {getattr(error, 'problem', error)}") from None
    if not isinstance(data, dict):
        raise ParseError(f"{source_id}: the file is {type(data).__name__}, not a mapping")
    return data


def _price(value, where: str, source_id: str) -> Decimal | None:
    """A monthly price as written (scrapers.parsing.money); None for a missing or zero one (not offered there)."""
    price = money(value, where, source_id)
    if price is not None and price < 0:
        raise ParseError(f"{source_id}: {where}: price {value!r} is not a positive amount")
    return price if price else None


class GcpCommittedUse(Source):
    id = "gcp-committed-use"
    provider = "gcp"
    description = ("Google Cloud committed-use (1- and 3-year) prices of the A2, A3 and G2 GPU machine types, from the "
                   "public cost calculator's price file built from the Cloud Billing Catalog (USD per instance-hour)")
    pricing_types = ("reserved_1y", "reserved_3y")
    hosts = ("raw.githubusercontent.com",)
    status = ("parser tested on a real excerpt of the price file (generated 2024-11-07: 22 GPU machine types in "
              "4 regions); no live call made")
    expectations = Expectations(frozenset({"a100-sxm4-40gb", "h100-sxm5-80gb", "l4-24gb"}), min_offers=12)
    offline = Recording(
        "stale_capture",
        "Cyclenerd/google-cloud-pricing-cost-calculator@082120d2 pricing.yml (generated 2024-11-07, Apache-2.0): a REAL "
        "excerpt "
        "(its GPU machine types in 4 regions), every day",
        (Served(PRICING_URL, "stale_capture_2024-11-07_pricing_yml_gpu_excerpt.yml"),),
    )

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(PRICING_URL, allowed_hosts=self.hosts)]

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        offers: list[Offer] = []
        for index, document in enumerate(documents):
            try:
                text = document.text
            except UnicodeDecodeError:
                raise ParseError(f"{self.id}: {document.url} is not UTF-8 text") from None
            offers.extend(self._parse_file(_load(text, self.id), index))
        if not offers:
            raise ParseError(f"{self.id}: no committed-use price of a GPU machine type in the file")
        return offers

    def _parse_file(self, data: dict, index: int) -> list[Offer]:
        generated = (data.get("about") or {}).get("generated") if isinstance(data.get("about"), dict) else None
        instances = (data.get("compute") or {}).get("instance") if isinstance(data.get("compute"), dict) else None
        if not isinstance(instances, dict) or not instances:
            raise ParseError(f"{self.id}: no compute.instance mapping: reshaped")
        offers = []
        for machine_type, entry in instances.items():
            if not isinstance(entry, dict):
                raise ParseError(f"{self.id}: {machine_type}: not a mapping")
            listed = {name: value for name, value in entry.items() if name not in MACHINE_KEYS}
            if not listed:
                continue  # no GPU: a CPU machine type
            if len(listed) != 1:
                raise ParseError(f"{self.id}: {machine_type}: more than one GPU key {sorted(listed)}")
            (gpu_name, gpus), = listed.items()
            if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0:
                raise ParseError(f"{self.id}: {machine_type}: GPU count {gpu_name}: {gpus!r} is not a whole number")
            if not isinstance(entry.get("cost"), dict):
                raise ParseError(f"{self.id}: {machine_type}: no cost mapping")
            gpu_name = str(gpu_name)
            for region, prices in entry["cost"].items():
                if not isinstance(prices, dict):
                    raise ParseError(f"{self.id}: {machine_type} {region}: prices are not a mapping")
                for column, months in TERM_MONTHS.items():
                    pricing_type = term_pricing_type(months)
                    where = f"{machine_type} {region} {column}"
                    monthly = _price(prices.get(column), where, self.id)
                    if monthly is None:
                        continue
                    offers.append(Offer(
                        source=self.id, channel="cloud", provider=self.provider,
                        offer_id=f"{machine_type}|{region}|{pricing_type}",
                        title=(f"{machine_type} ({gpus} x {gpu_name}) {months // 12}-year committed use, "
                               f"{monthly} USD a month of 730 h (price file generated {generated or 'undated'})"),
                        raw_gpu_name=gpu_name, gpu_id=resolve_gpu_id(gpu_name, self.provider),
                        gpu_count=Fraction(gpus), pricing_type=pricing_type, term_months=months,
                        price=(monthly / HOURS_PER_MONTH).quantize(TEN_DECIMALS), currency="USD",
                        price_unit="instance_hour",
                        region=str(region), instance_type=machine_type, url=PRICING_URL, document_index=index,
                    ))
        return offers
