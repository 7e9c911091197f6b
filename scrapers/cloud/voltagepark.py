"""Voltage Park (no key): on-demand H100 prices of the bare-metal nodes (ethernet and InfiniBand) and the VM presets.

Facts (real responses saved by getcomputable/gpu-index, its voltagepark collector and tests; the bare-metal data
model of AlignmentResearch/voltage-park-sdk; tests/fixtures/voltagepark/):
- `GET https://cloud-api.voltagepark.com/api/v1/bare-metal/locations` (no auth: the logged-out dashboard's call) ->
  `{results: [{id (location UUID), gpu_count_ethernet, gpu_price_ethernet ("1.99"), gpu_count_infiniband,
  gpu_price_infiniband ("2.49"), reserved_gpu_count_infiniband_cluster_one/_two, specs_per_node: {gpu_model
  ("h100-sxm5-80gb"), gpu_count (8), cpu_model, cpu_count, ram_gb, storage_gb}}], total_result_count, has_previous,
  has_next}`.
- The two prices are USD per GPU-HOUR (the dashboard multiplies them by the GPUs rented; the provider prints
  "$1.99/GPU/hour"), never per node: one offer per network (ethernet, InfiniBand) of the same on-demand node.
  The payload names no currency: USD (the provider's own dollar prints).
- `gpu_count_<network>` is how many GPUs can be rented now: 0 -> in_stock false (the price is still published).
- The location `id` is an opaque UUID, not a place: the region is left empty; the id keys the offer.
- Offer.interconnect says how the GPUs are linked (SXM, from the model name); the node network (ethernet or
  InfiniBand) is Offer.cluster_network, and in the offer id and instance type.
- One page today (total_result_count 1): `has_next` true or a total that is not the page's length is a ParseError
  (rows this fetch never saw), as is a new `*gpu_price*` field (a price tier this parser does not know).
- `GET https://cloud-api.voltagepark.com/api/v1/instant-deploy-presets/` (no auth; deprecated in the API spec per
  gpu-index) -> `[{id, resources: {gpus: {"h100-sxm5-80gb": {count}}, vcpu_count, ram_gb, storage_gb},
  operating_system, compute_rate_hourly ("15.120000"), storage_rate_hourly ("0.800000"),
  location_ids_with_availability: [location UUID]}]`: the instant VMs. `compute_rate_hourly` is USD per
  INSTANCE-hour (15.12 for 8 GPUs, 1.89 for one); the storage rate is billed beside it and is not added. A preset is
  in stock when some location has it available.
- The marketing /pricing page holds no numeric price ("Contact for pricing"): not read.
"""

from __future__ import annotations

from fractions import Fraction

from scrapers.base import Expectations, Offer
from scrapers.errors import ParseError
from scrapers.gpu_names import resolve_gpu_id
from scrapers.http import RawDocument
from scrapers.interconnect import interconnect_of
from scrapers.json_api import JsonApiSource
from scrapers.offline import Recording, Served
from scrapers.parsing import as_list, field, list_field, money

API_BASE = "https://cloud-api.voltagepark.com/api/v1"
LOCATIONS_URL = f"{API_BASE}/bare-metal/locations"
PRESETS_URL = f"{API_BASE}/instant-deploy-presets/"
# (network, price field, available-GPUs field) of a bare-metal location
NETWORKS = (
    ("ethernet", "gpu_price_ethernet", "gpu_count_ethernet"),
    ("infiniband", "gpu_price_infiniband", "gpu_count_infiniband"),
)
_KNOWN_PRICE_FIELDS = frozenset(price_field for _, price_field, _ in NETWORKS)


def _count(value: object, what: str, source_id: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ParseError(f"{source_id}: {what} = {value!r} is not a count")
    return value


class VoltagePark(JsonApiSource):
    id = "voltagepark"
    provider = "voltagepark"
    description = "Voltage Park H100 bare metal per network (USD per GPU-hour) and instant VM presets (per VM-hour)"
    pricing_types = ("on_demand",)
    hosts = ("cloud-api.voltagepark.com",)
    status = (
        "parser tested on real responses saved by getcomputable/gpu-index (bare-metal locations 2026-08-22, VM "
        "presets 2026-08-25; their UUIDs are stand-ins); no live call made"
    )
    expectations = Expectations(frozenset({"h100-sxm5-80gb"}), min_offers=2)
    offline = Recording(
        "stale_capture", "REAL bare-metal locations (2026-08-22) and instant-deploy presets (2026-08-25) answers "
        "(getcomputable/gpu-index@055204ad; its ids are stand-ins), every day",
        (Served(LOCATIONS_URL, "stale_capture_2026-08-22_bare_metal_locations.json",
                fixture="voltagepark/bare_metal_locations_capture_2026-08-22_gpu_index.json"),
         Served(PRESETS_URL, "stale_capture_2026-08-25_instant_deploy_presets.json",
                fixture="voltagepark/instant_deploy_presets_capture_2026-08-25_gpu_index.json")))

    def urls(self) -> list[str]:
        return [LOCATIONS_URL, PRESETS_URL]

    def request_headers(self) -> dict[str, str]:
        return {"accept": "application/json"}

    def parse_payload(self, payload: object, index: int, document: RawDocument) -> list[Offer]:
        if isinstance(payload, dict) and "results" in payload:
            return self._location_offers(payload, index)
        if isinstance(payload, list):
            return self.parse_records(payload, index)  # the presets
        raise ParseError(f"{self.id}: {document.url} is neither the locations page nor the presets list")

    def _location_offers(self, payload: dict, index: int) -> list[Offer]:
        results = list_field(payload, "results", self.id, "locations")
        total = field(payload, "total_result_count", self.id, "locations")
        if payload.get("has_next") or total != len(results):
            raise ParseError(f"{self.id}: locations is paged ({len(results)} of {total} rows, has_next "
                             f"{payload.get('has_next')!r}): rows would be missed")
        offers = []
        for number, location in enumerate(results):
            where = f"location {number}"
            location_id = str(field(location, "id", self.id, where))
            unknown = sorted(key for key in location if "gpu_price" in key and key not in _KNOWN_PRICE_FIELDS)
            if unknown:
                raise ParseError(f"{self.id}: {where} has price fields this parser does not know: {unknown}")
            specs = field(location, "specs_per_node", self.id, where)
            model = field(specs, "gpu_model", self.id, where)
            if not isinstance(model, str) or not model.strip():
                raise ParseError(f"{self.id}: {where} specs_per_node.gpu_model = {model!r} is not a GPU name")
            node_gpus = _count(field(specs, "gpu_count", self.id, where), f"{where} gpu_count", self.id)
            if node_gpus == 0:
                continue  # a location without GPUs prices nothing
            for network, price_field, count_field in NETWORKS:
                price = money(field(location, price_field, self.id, where), f"{where} {price_field}", self.id)
                if price is None or price <= 0:
                    raise ParseError(f"{self.id}: {where} {price_field} = {location[price_field]!r} is not a price")
                available = _count(field(location, count_field, self.id, where), f"{where} {count_field}", self.id)
                instance_type = f"bare metal {node_gpus}x {model} {network}"
                offers.append(Offer(
                    source=self.id, channel="cloud", provider=self.provider,
                    offer_id=f"bare-metal|{location_id}|{network}", title=instance_type, raw_gpu_name=model,
                    gpu_id=resolve_gpu_id(model, self.id), gpu_count=Fraction(node_gpus), pricing_type="on_demand",
                    price=price, currency="USD", price_unit="gpu_hour", instance_type=instance_type,
                    in_stock=available > 0, interconnect=interconnect_of(model), cluster_network=network,
                    document_index=index,
                ))
        return offers

    def parse_record(self, preset: object, index: int, number: int) -> list[Offer]:
        """One instant-deploy preset: one VM offer."""
        where = f"preset {number}"
        preset_id = str(field(preset, "id", self.id, where))
        resources = field(preset, "resources", self.id, where)
        gpus = field(resources, "gpus", self.id, where)
        if not isinstance(gpus, dict) or len(gpus) != 1:
            raise ParseError(f"{self.id}: {where} resources.gpus = {gpus!r} is not one GPU model")
        (model, gpu), = gpus.items()
        count = _count(field(gpu, "count", self.id, where), f"{where} gpus count", self.id)
        price = money(field(preset, "compute_rate_hourly", self.id, where), f"{where} compute_rate_hourly", self.id)
        if price is None or price <= 0 or count == 0:
            raise ParseError(f"{self.id}: {where} has no compute_rate_hourly or no GPU")
        locations = as_list(field(preset, "location_ids_with_availability", self.id, where),
                            f"{where} location_ids_with_availability", self.id)
        instance_type = f"instant VM {count}x {model} {resources.get('vcpu_count')} vCPU"
        return [Offer(
            source=self.id, channel="cloud", provider=self.provider, offer_id=f"instant-vm|{preset_id}",
            title=instance_type, raw_gpu_name=model, gpu_id=resolve_gpu_id(model, self.id),
            gpu_count=Fraction(count), pricing_type="on_demand", price=price, currency="USD",
            price_unit="instance_hour", instance_type=instance_type, in_stock=bool(locations),
            interconnect=interconnect_of(model), document_index=index,
        )]
