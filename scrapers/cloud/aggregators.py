"""Who rents an offer an aggregator lists: the one naming rule for the aggregator catalogs of SkyPilot (Shadeform,
Prime Intellect, Spheron) and for Prime Intellect's own API, so one cloud has one provider id whichever source saw it.
"""

from __future__ import annotations

# Names aggregators use for clouds we know under another id (the direct sources' provider ids).
PROVIDER_IDS = {
    "lambdalabs": "lambda", "crusoecloud": "crusoe", "datacrunch": "verda", "data-crunch": "verda",
    "massed-compute": "massedcompute", "spheron-ai": "spheron", "latitude": "latitudesh",
    "primecompute": "primeintellect",
}
# Prime Intellect names its own data centres dc_<name> (SkyPilot's Prime Intellect fetcher): its own capacity
_OWN_PREFIX = {"primeintellect": "dc_"}


def renting_provider(named: str, aggregator: str) -> tuple[str, str | None]:
    """(provider, via) of an offer `aggregator` lists as rented by `named`: via is None when it is the
    aggregator's own capacity."""
    name = named.strip().lower()
    provider = PROVIDER_IDS.get(name, name)
    own_prefix = _OWN_PREFIX.get(aggregator)
    if own_prefix and name.startswith(own_prefix):
        provider = aggregator
    return provider, None if provider == PROVIDER_IDS.get(aggregator, aggregator) else aggregator
