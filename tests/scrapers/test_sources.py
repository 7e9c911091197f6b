"""What every source shares: the registry, the offline recordings each declares, the bundled recordings parsed and
checked as the offline run does."""

from __future__ import annotations

import ast
import json

from conftest import FIXTURES, RECORDINGS, ROOT, raw_document

from dev.recordings.build_bundle import declared_entry
from scrapers.base import Source
from scrapers.offline import Generated, Recording
from scrapers.registry import SOURCE_IDS, SOURCE_PACKAGES, all_sources, discover

SOURCES = all_sources()
INDEX = json.loads((RECORDINGS / "index.json").read_text())["recordings"]
# the package each kind of source lives in
PACKAGE_OF_KIND = {"cloud": "scrapers.cloud", "retail": "scrapers.retail", "api": "scrapers.inference_api",
                      "fx": "scrapers.reference"}


def declared_ids(path) -> set[str]:
    """The `id = "..."` of every class in a source file, read from its text (not imported)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if (isinstance(statement, ast.Assign) and [getattr(t, "id", None) for t in statement.targets] == ["id"]
                        and isinstance(statement.value, ast.Constant)):
                    found.add(statement.value.value)
    return found


def test_the_registry_finds_every_source_class_in_the_source_packages():
    assert SOURCE_IDS == tuple(sorted(SOURCE_IDS)) == tuple(discover())
    on_disk = set()
    for package in SOURCE_PACKAGES:
        for path in (ROOT / package.replace(".", "/")).rglob("*.py"):
            on_disk |= declared_ids(path)
    # a module the walk missed (a folder without __init__.py) would leave its ids out
    assert on_disk <= set(SOURCE_IDS), sorted(on_disk - set(SOURCE_IDS))
    assert {source_id for source_id in SOURCE_IDS if source_id.startswith("skypilot-")} and len(SOURCE_IDS) > 60
    for source_id, source in SOURCES.items():
        assert isinstance(source, Source) and source.id == source_id
        assert type(source).__module__.startswith(PACKAGE_OF_KIND[source.kind] + "."), source_id


def test_the_bundle_is_what_the_sources_declare():
    """recordings/index.json and the files written from fixtures are what `Source.offline` says (rebuild with
    `uv run python -m dev.recordings.build_bundle` after changing a declaration or its fixture)."""
    by_source: dict[str, list[dict]] = {}
    for entry in INDEX:
        by_source.setdefault(entry["source"], []).append(entry)
    assert set(by_source) <= set(SOURCES), sorted(set(by_source) - set(SOURCES))
    provenance = (FIXTURES / "PROVENANCE.md").read_text()
    for source_id, source in SOURCES.items():
        declaration, entries = source.offline, by_source.get(source_id, [])
        if declaration is None:
            assert not entries, f"{source_id} declares no offline recording but index.json has one"
        elif isinstance(declaration, Generated):
            assert entries, f"{source_id}: {declaration.generator} wrote nothing"
        else:
            assert isinstance(declaration, Recording)
            entry, files = declared_entry(source_id, declaration)
            assert [json.loads(json.dumps(entry))] == entries, f"{source_id}: index.json is stale"
            for relative, body in files.items():
                kept = (RECORDINGS / relative).read_bytes()
                assert body is None or body == kept, f"recordings/{relative} is stale"
            for served in declaration.served:
                assert served.fixture is None or served.fixture.rsplit("/", 1)[-1] in provenance, \
                    f"{served.fixture}: say where it came from in tests/fixtures/PROVENANCE.md"
        for entry in entries:
            assert all((RECORDINGS / relative).is_file() for relative in entry["routes"].values()), source_id


def _recorded_documents():
    """Each direct source's bundled recordings (recordings/), as the documents its fetch would receive."""
    from scrapers.replay import BUNDLE_DIR, load_recordings

    for recording in load_recordings():
        if recording["source"].startswith("skypilot-"):
            continue
        documents = [
            raw_document((BUNDLE_DIR / relative).read_bytes(), f"https://{route}")
            for route, relative in recording["routes"].items()
            if not route.endswith("/oauth2/token")  # a credential response: never landed
        ]
        yield recording["source"], recording["recorded_at"], documents, recording["overrides"]


def test_every_bundled_recording_parses_passes_integrity_and_keeps_names_dbt_can_resolve():
    from scrapers.gpu_names import resolve_gpu_id
    from scrapers.registry import all_sources
    from warehouse.store.landing import LandedRun
    from warehouse.ingest.pipeline import RECORD_KINDS

    seen = set()
    for source_id, recorded_at, documents, overrides in _recorded_documents():
        source = all_sources({source_id: overrides})[source_id]  # configured as the offline run configures it
        records = source.parse(documents)
        assert records, source_id
        if source.records == "offers":
            for offer in records:
                if offer.reject_reason:
                    continue  # quarantined, never stored: its raw name is the whole title, and no GPU is claimed
                # dbt resolves gpu_id again from (raw_gpu_name, provider): the parser must store the name it resolved
                assert resolve_gpu_id(offer.raw_gpu_name, offer.provider) == offer.gpu_id, (source_id, offer.raw_gpu_name)
        kind = RECORD_KINDS[source.records]  # the pipeline's own normalize and check for this kind of record
        run = LandedRun(source_id, "r", recorded_at, "synthetic", FIXTURES, documents, ["d"] * len(documents))
        frame = kind.normalize(records, run, source.parser_version)
        result = kind.check(frame, source.expectations)
        assert frame.height == len(records) and result.passed, (source_id, recorded_at, result.result_reasons)
        seen.add(source_id)
    sources = all_sources()
    assert len({sources[s].provider for s in seen if sources[s].kind == "cloud"}) >= 12
    assert {s for s in seen if sources[s].kind == "retail"} == {
        "newegg", "bestbuy", "amazon", "ebay", "microcenter", "jd", "shops"}
