"""`gpuprices backfill skypilot --repo PATH`: years of history from a local clone of a SkyPilot catalog repo.

The catalog repos commit every refresh of `<cloud>/vms.csv`, so `git log -- <path>` is a price time series:
each commit is loaded as one observation of `skypilot-<cloud>` at its COMMIT time (when the prices were
published), through the same land -> parse -> check -> load path as the daily run. Layouts understood:
`catalogs/v8/<cloud>/vms.csv`, `catalogs/v7/...`, `catalogs/v6/...`, `catalogs/v5/...`
(skypilot-org/skypilot-catalog) and `<cloud>/vms.csv` (anycloud-sh/catalog). A commit that updated a cloud in
several schema versions at once is one observation, read from the newest. Idempotent: the run id is a hash of
source, time and body, so a commit already loaded is skipped (and not even parsed again).

History is checked with relaxed expectations: an old catalog cannot hold a GPU launched after it, so "missing
expected GPU" does not apply; the row rules (bands, $0, outliers) and the minimum offer count still do.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from scrapers.cloud.skypilot import SKYPILOT_EXPECTATIONS, SkyPilotCatalog
from scrapers.http import HttpClient, RawDocument
from scrapers.reference.ecb import HISTORY_URL, EcbReferenceRates
from warehouse.store import db
from warehouse.store.landing import land, sha256
from warehouse.ingest.load import IngestRecord
from warehouse.ingest.pipeline import ingest

LAYOUTS = ("catalogs/v8/{cloud}/vms.csv", "catalogs/v7/{cloud}/vms.csv", "catalogs/v6/{cloud}/vms.csv",
           "catalogs/v5/{cloud}/vms.csv", "{cloud}/vms.csv")  # newest first


@dataclass(frozen=True)
class CatalogCommit:
    cloud: str
    path: str
    commit: str
    committed_at: datetime


class GitError(RuntimeError):
    """git could not read the repository (no such folder, not a clone): one line, exit 2 (flows/cli/pipeline.py)."""


def _git(repo: Path, *args: str) -> bytes:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if result.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed in {repo}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def catalog_commits(repo: Path, clouds: list[str], since: date | None = None,
                    until: date | None = None) -> list[CatalogCommit]:
    """Every commit that changed a cloud's vms.csv, oldest first: one per cloud and commit, from the newest layout
    it changed (upstream refreshes v7 and v8 in the same commit: two observations of one moment would count
    twice)."""
    commits: list[CatalogCommit] = []
    seen: set[tuple[str, str]] = set()
    for cloud in clouds:
        for layout in LAYOUTS:
            path = layout.format(cloud=cloud)
            args = ["log", "--format=%H %cI", "--no-renames"]
            if since:
                args.append(f"--since={since.isoformat()}T00:00:00Z")
            if until:
                args.append(f"--until={until.isoformat()}T23:59:59Z")
            for line in _git(repo, *args, "--", path).decode().splitlines():
                sha, committed = line.split(" ", 1)
                if (cloud, sha) in seen:
                    continue
                seen.add((cloud, sha))
                committed_at = datetime.fromisoformat(committed).astimezone(UTC)
                commits.append(CatalogCommit(cloud, path, sha, committed_at))
    return sorted(commits, key=lambda c: (c.committed_at, c.cloud, c.path))


def _catalog_source(cloud: str) -> SkyPilotCatalog:
    expectations = dataclasses.replace(SKYPILOT_EXPECTATIONS[cloud], expected_gpu_ids=frozenset(), min_offers=1)
    return SkyPilotCatalog(cloud, expectations)


def backfill_skypilot(repo: Path, clouds: list[str] | None = None, since: date | None = None,
                      until: date | None = None) -> Iterator[tuple[int, int, CatalogCommit, IngestRecord | None]]:
    """Load every catalog commit; yields (number, total, commit, record) for progress. A commit in which the file
    was deleted yields record None."""
    repo = repo.resolve()
    _git(repo, "rev-parse", "--git-dir")  # a clear error when PATH is not a git repository
    clouds = clouds or sorted(SKYPILOT_EXPECTATIONS)
    commits = catalog_commits(repo, clouds, since, until)
    sources = {cloud: _catalog_source(cloud) for cloud in clouds}
    for number, commit in enumerate(commits, start=1):
        try:
            body = _git(repo, "show", f"{commit.commit}:{commit.path}")
        except RuntimeError:  # the commit deleted or moved the file
            yield number, len(commits), commit, None
            continue
        document = RawDocument(
            url=f"git+file://{repo}@{commit.commit}/{commit.path}", status=200, body=body,
            fetched_at=commit.committed_at, content_type="text/csv",
        )
        source = sources[commit.cloud]
        run = land(source.id, commit.committed_at, [document], "captured")
        yield number, len(commits), commit, ingest(source, run, trigger="backfill")


def backfill_ecb(history_file: Path | None = None, observed_at: datetime | None = None) -> IngestRecord:
    """Load the ECB history file (every rate since 1999) as one rates run observed now (or at `observed_at`: the
    offline run's bundled copy, so a replay is the same whenever it runs): from a downloaded `eurofxref-hist.zip`,
    or fetched from the ECB. A rate several runs hold counts once, from the latest observation
    (int_fx_rates__daily)."""
    source = EcbReferenceRates(url=HISTORY_URL)
    observed_at = observed_at or datetime.now(UTC).replace(microsecond=0)
    if history_file is not None:
        documents = [RawDocument(url=history_file.resolve().as_uri(), status=200, body=history_file.read_bytes(),
                                 fetched_at=observed_at, content_type="application/zip")]
    else:
        async def fetch() -> list[RawDocument]:
            async with HttpClient() as client:
                return await source.fetch(client)

        documents = asyncio.run(fetch())
    # The same history file twice is one observation: skip it when an identical file already loaded.
    with db.connect() as connection:
        loaded_before = connection.execute(
            """SELECT runs.run_id FROM raw.landing_documents AS documents
               JOIN raw.ingest_runs AS runs USING (run_id)
               WHERE documents.source = ? AND documents.sha256 = ? AND runs.status = 'loaded' LIMIT 1""",
            [source.id, sha256(documents[0].body)],
        ).fetchone()
    if loaded_before:
        return IngestRecord(run_id=loaded_before[0], parser_version=source.parser_version, source=source.id,
                            status="already_loaded", observed_at=observed_at, started_at=observed_at,
                            finished_at=observed_at, trigger="backfill")
    return ingest(source, land(source.id, observed_at, documents), trigger="backfill")
