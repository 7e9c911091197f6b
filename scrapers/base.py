"""The Source interface and the offer record every parser returns.

A source is three things: `fetch` (network -> raw documents), a pure `parse` (raw documents -> offers) and
`expectations` (what a sane fresh result looks like, checked before anything is loaded); it also declares its
`offline` recording (scrapers/offline.py). scrapers/registry.py finds every Source class by its `source_ids()`.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import os
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import ClassVar

from scrapers.errors import MissingCredentials, ParseError
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Generated, Recording

from config.settings import PROJECT_ROOT

# Who sells (one word from the scraper's Offer to the marts): a cloud's list price, a peer-to-peer marketplace's
# per-machine ask, or a shop's card. A source declares its offers' channel itself (rental_channel).
CHANNELS = ("cloud", "marketplace", "retail")
MARKETPLACE_PROVIDERS_CSV = PROJECT_ROOT / "models" / "seeds" / "marketplace_providers.csv"  # dbt loads it too


@functools.cache
def marketplace_providers() -> frozenset[str]:
    """The providers whose rentals are hosts' per-machine asks (models/seeds/marketplace_providers.csv)."""
    with open(MARKETPLACE_PROVIDERS_CSV, newline="") as handle:
        return frozenset(row["provider"] for row in csv.DictReader(handle))


def rental_channel(provider: str, seller_type: str | None = None) -> str:
    """A rental's channel as its source declares it: "marketplace" for a marketplace provider's asks (Vast.ai,
    TensorDock, Akash, and those a SkyPilot catalog lists) and RunPod's community cloud, else "cloud"."""
    if provider in marketplace_providers() or seller_type == "community_cloud":
        return "marketplace"
    return "cloud"
# `reserved`: a published commitment of another term than 12 or 36 months (term_months says which: Civo's 6 and 24
# months, Together's 1-, 3- and 6-month tiers); it is in no market (the term markets are reserved_1y / reserved_3y)
# and reaches marts.gpu_term_prices_daily with every other term.
PRICING_TYPES = ("on_demand", "spot", "reserved_1y", "reserved_3y", "reserved", "purchase")


def term_pricing_type(months: int) -> str:
    """A commitment's pricing type by its term: 12 months reserved_1y, 36 reserved_3y, any other term `reserved`."""
    return {12: "reserved_1y", 36: "reserved_3y"}.get(months, "reserved")
# What one price is per. `instance_term` = the total for a whole reservation term (Azure reservations).
PRICE_UNITS = ("gpu_hour", "instance_hour", "instance_term", "card")


@dataclass
class Offer:
    """One price seen for one product, as the parser read it (before normalization adds USD figures)."""

    source: str
    channel: str
    provider: str
    offer_id: str
    raw_gpu_name: str
    gpu_id: str | None
    gpu_count: Fraction | None
    pricing_type: str
    price: Decimal
    currency: str
    price_unit: str
    region: str | None = None
    title: str | None = None
    term_months: int | None = None
    includes_host_vm: bool = True  # the price includes the host VM (False: a GPU-only part, e.g. a GCP GPU SKU)
    instance_type: str | None = None
    condition: str | None = None
    seller_type: str | None = None
    in_stock: bool | None = None
    url: str | None = None
    document_index: int = 0  # which raw document of the run it came from
    price_role: str = "selling"  # selling | list | shipping (a shipping charge is its own row)
    # Set by a parser for a listing that is not a sellable GPU card (a prebuilt PC, a box, a part): the integrity
    # check quarantines the row with this reason instead of loading it.
    reject_reason: str | None = None
    # The aggregator a rental was seen through (a SkyPilot Shadeform row rented by Crusoe: provider crusoe, via
    # shadeform); None when the provider lists it itself. The same offer seen both ways is one offer.
    via: str | None = None
    # How the offer's GPUs are linked, where the source says so: sxm | pcie_nvlink | nvlink | pcie; None = not said.
    interconnect: str | None = None
    # The network between the offer's nodes, where the source says so: infiniband | roce | ethernet; None = not said.
    cluster_network: str | None = None
    # The host's reliability as a marketplace publishes it (vast.ai `reliability2`: a share of 0-1 from the host's
    # uptime history); None = not published. The marketplaces' interruption figure (AWS's is SpotInterruptionBand).
    host_reliability: Decimal | None = None

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class FxRate:
    """One reference exchange rate as published: `rate` units of `quote_currency` buy one `base_currency`."""

    source: str
    rate_date: date
    base_currency: str
    quote_currency: str
    rate: Decimal
    document_index: int = 0


@dataclass(frozen=True)
class TokenPrice:
    """One per-token API price of a language model as a price list publishes it: USD per token of prompt (input)
    and of completion (output). A negative price is kept as read: the integrity check sets it aside."""

    source: str
    provider: str  # who sells the API access at this price
    model_slug: str  # the model as the price list names it (e.g. meta-llama/llama-3.1-70b-instruct)
    usd_per_input_token: Decimal
    usd_per_output_token: Decimal
    context_length: int | None = None
    document_index: int = 0


@dataclass(frozen=True)
class SpotInterruptionBand:
    """How often a cloud's spot instances of one type were interrupted, as the cloud publishes it per region and
    operating system: a band of the share of instances interrupted over the trailing month (AWS Spot Instance
    Advisor: "<5%" .. ">20%", each with its published upper edge in percent) and the spot price's published saving
    over on-demand, in percent. Figures as published: the band is AWS's range, not a measured rate."""

    source: str
    provider: str
    region: str
    operating_system: str  # as published (Linux, Windows)
    instance_type: str
    interruption_band: str  # the band's label as published ("<5%", "5-10%", ... ">20%")
    interruption_band_index: int  # its place in the published ranges, 0 = least interrupted
    interruption_max_pct: int  # the band's published upper edge, percent of instances interrupted
    spot_savings_pct: int  # the published saving of the spot price over on-demand, percent
    document_index: int = 0


@dataclass(frozen=True)
class Expectations:
    """What a sane fresh result of a source looks like. Checked on every result before it is loaded."""

    expected_gpu_ids: frozenset[str]
    min_offers: int = 1
    # per-GPU band of the USD price per GPU-hour (low, high); GPUs not listed use scrapers.integrity.DEFAULT_BANDS
    price_bands: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)
    max_rejected_share: float = 0.2


class Source:
    """Base for every source module. Subclasses set the class attributes and implement fetch + parse."""

    id: ClassVar[str]
    kind: ClassVar[str] = "cloud"  # what the source is: cloud | retail | api (per-token prices) | fx (exchange rates)
    provider: ClassVar[str]
    description: ClassVar[str] = ""
    pricing_types: ClassVar[tuple[str, ...]] = ()
    hosts: ClassVar[tuple[str, ...]] = ()  # redirects are only followed within these
    api_key_env: ClassVar[str | None] = None
    extra_credential_envs: ClassVar[tuple[str, ...]] = ()  # e.g. an OAuth client id beside the secret
    status: ClassVar[str] = ""  # for the README source table: what is known to work and how it was tested
    parser_version: ClassVar[int] = 1
    expectations: ClassVar[Expectations]
    # What parse() returns: "offers" (prices, into raw.offers), "fx_rates" (FxRate rows, into raw.fx_rates),
    # "token_prices" (TokenPrice rows, into raw.api_token_prices) or "spot_interruptions" (SpotInterruptionBand rows,
    # into raw.spot_interruption_bands).
    records: ClassVar[str] = "offers"
    # What the offline run serves it (scrapers/offline.py); None: no offline recording, parser tests only.
    offline: ClassVar[Recording | Generated | None] = None

    @classmethod
    def source_ids(cls) -> tuple[str, ...]:
        """The source ids this class provides (scrapers/registry.py finds them): its `id`; none for a base class."""
        return (cls.id,) if isinstance(getattr(cls, "id", None), str) else ()

    @classmethod
    def create(cls, source_id: str, overrides: dict) -> Source:
        """The source `source_id`, configured with `overrides` (constructor settings)."""
        return cls(**overrides)

    def require_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise MissingCredentials(f"{self.id}: skipped, set {self.api_key_env} to enable this source")
        return key

    def require_watch_list(self) -> None:
        """Sources that fetch what the watch list names raise NothingToWatch when it names nothing."""

    def bearer_headers(self) -> dict[str, str]:
        """`Authorization: Bearer <key>` from the source's key variable (MissingCredentials when it is unset)."""
        return {"Authorization": f"Bearer {self.require_key()}"}

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        raise NotImplementedError

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        """Pure: the same documents always give the same offers. Raises ParseError on a wrong shape."""
        raise NotImplementedError


class PricingPage(Source):
    """A source that reads one public HTML price page (no key): fetch GETs `page_url`, parse reads each page's text
    with `parse_page`, which raises ParseError when the price table it knows is gone (a redesign never loads zero
    offers silently)."""

    page_url: ClassVar[str]

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        return [await client.get(self.page_url, allowed_hosts=self.hosts, headers={"accept": "text/html"})]

    def parse(self, documents: list[RawDocument]) -> list:
        records = []
        for index, document in enumerate(documents):
            try:
                html = document.text
            except UnicodeDecodeError:
                raise ParseError(f"{self.id}: {document.url} is not UTF-8 text") from None
            records.extend(self.parse_page(html, index))
        return records

    def parse_page(self, html: str, index: int) -> list:
        raise NotImplementedError
