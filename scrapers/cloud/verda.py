"""Verda (formerly DataCrunch) instance types (OAuth client credentials): on-demand and spot per instance-hour.

Facts (SkyPilot fetch_verda, gpuhunt's fixtures in tests/fixtures/verda/):
- `POST /v1/oauth2/token` (client_credentials) -> `access_token`; then `GET /v1/instance-types` (a list) and
  `GET /v1/instance-availability` (`[{location_code, availabilities: [instance_type...]}]`);
- `price_per_hour` and `spot_price` are DECIMAL STRINGS for the whole instance, `currency` "usd";
- `gpu.number_of_gpus` 0 = a CPU node. The instance type ("1H100.80S.30V") is the offer; availability gives the
  locations that can start it now. A type available nowhere is still priced: kept with in_stock = false.
The token response is never landed (it is a credential); only the two catalog documents are.
"""

from __future__ import annotations

import asyncio
import json
import os
from fractions import Fraction

from scrapers.base import Expectations, Offer, Source
from scrapers.errors import FetchError, MissingCredentials, ParseError
from scrapers.gpu_names import resolve_first
from scrapers.http import HttpClient, RawDocument
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, load_json, money

API_BASE = "https://api.verda.com/v1"
CLIENT_ID_ENV = "VERDA_CLIENT_ID"


class Verda(Source):
    id = "verda"
    provider = "verda"
    description = "Verda (DataCrunch) instance types + availability: on-demand and spot per instance-hour"
    pricing_types = ("on_demand", "spot")
    hosts = ("api.verda.com",)
    api_key_env = "VERDA_CLIENT_SECRET"
    extra_credential_envs = (CLIENT_ID_ENV,)
    status = "parser tested on gpuhunt's fixtures (exact shape, values may be invented); offline replay serves them (flagged synthetic)"
    expectations = Expectations(frozenset({"h100-sxm5-80gb"}), min_offers=2)
    offline = Recording(
        "synthetic", "gpuhunt fixtures (shape exact, values may be invented)",
        (Served(f"{API_BASE}/oauth2/token", "synthetic_token_response.json",
                body={"access_token": "offline-replay-not-a-token", "token_type": "Bearer", "expires_in": 3600}),
         Served(f"{API_BASE}/instance-types", "gpuhunt_fixture_instance_types.json",
                fixture="verda/gpuhunt_verda_fixtures.json", pick="fixture:raw_instance_types"),
         Served(f"{API_BASE}/instance-availability", "gpuhunt_fixture_instance_availability.json",
                fixture="verda/gpuhunt_verda_fixtures.json", pick="fixture:availabilities")))

    async def fetch(self, client: HttpClient) -> list[RawDocument]:
        secret = self.require_key()
        client_id = os.environ.get(CLIENT_ID_ENV)
        if not client_id:
            raise MissingCredentials(f"{self.id}: skipped, set {CLIENT_ID_ENV} and {self.api_key_env}")
        token_response = await client.post(
            f"{API_BASE}/oauth2/token", allowed_hosts=self.hosts,
            json={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
        )
        try:
            token = json.loads(token_response.body)["access_token"]
        except (ValueError, KeyError, TypeError):
            raise FetchError(f"{self.id}: the token endpoint gave no access_token") from None
        headers = {"Authorization": f"Bearer {token}"}
        return list(await asyncio.gather(
            client.get(f"{API_BASE}/instance-types", allowed_hosts=self.hosts, headers=headers),
            client.get(f"{API_BASE}/instance-availability", allowed_hosts=self.hosts, headers=headers),
        ))

    def parse(self, documents: list[RawDocument]) -> list[Offer]:
        by_kind = {document.url.rstrip("/").rsplit("/", 1)[-1]: (i, document) for i, document in enumerate(documents)}
        if "instance-types" not in by_kind:
            raise ParseError(f"{self.id}: no instance-types document among {sorted(by_kind)}")
        index, types_document = by_kind["instance-types"]
        locations: dict[str, list[str]] = {}
        if "instance-availability" in by_kind:
            availability = load_json(by_kind["instance-availability"][1], self.id)
            for entry in as_list(availability, "instance-availability", self.id):
                for instance_type in field(entry, "availabilities", self.id, "instance-availability"):
                    locations.setdefault(instance_type, []).append(field(entry, "location_code", self.id))
        offers = []
        for item in as_list(load_json(types_document, self.id), "instance-types", self.id):
            offers.extend(self._offers(item, locations, index))
        return offers

    def _offers(self, item: dict, locations: dict[str, list[str]], index: int) -> list[Offer]:
        name = field(item, "instance_type", self.id, "instance-types[]")
        count = int(field(field(item, "gpu", self.id, name), "number_of_gpus", self.id, name) or 0)
        if count <= 0:
            return []
        memory = (item.get("gpu_memory") or {}).get("size_in_gigabytes")
        per_gpu_memory = int(memory) // count if memory else None
        raw_name, gpu_id = resolve_first(
            [item.get("name"), f"{item.get('model')} {per_gpu_memory}GB" if per_gpu_memory else None, name], "verda"
        )
        currency = str(field(item, "currency", self.id, name)).upper()
        offers = []
        for pricing_type, key in (("on_demand", "price_per_hour"), ("spot", "spot_price")):
            price = money(item.get(key), f"{name} {key}", self.id)
            if price is None:
                continue
            for region in locations.get(name) or [None]:
                offers.append(
                    Offer(
                        source=self.id, channel="cloud", provider=self.provider, offer_id=f"{name}|{region or 'none'}",
                        title=item.get("description"), raw_gpu_name=raw_name, gpu_id=gpu_id,
                        gpu_count=Fraction(count), pricing_type=pricing_type, price=price, currency=currency,
                        price_unit="instance_hour", region=region, instance_type=name,
                        in_stock=region is not None, document_index=index,
                    )
                )
        return offers
