"""`gpuprices backfill skypilot`: a local catalog clone's git history loaded as observations at commit times."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime

import duckdb
import pytest
from conftest import FIXTURES, RECORDINGS

from flows.cli.main import main
from warehouse.store.paths import database_path


def _commit(repo, files: dict[str, str], when: str, message: str) -> None:
    for relative, fixture in files.items():
        target = repo / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RECORDINGS / "skypilot" / fixture, target)
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.test", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.test"}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", message], check=True, env=env)


@pytest.fixture
def catalog_repo(tmp_path):
    """A catalog repo in skypilot-catalog's layout with three real catalogs committed on three dates."""
    repo = tmp_path / "skypilot-catalog"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, {"catalogs/v7/lambda/vms.csv": "lambda_2026-04-02.csv"}, "2026-04-02T12:00:00+00:00", "lambda 1")
    _commit(repo, {"catalogs/v7/lambda/vms.csv": "lambda_2026-04-20.csv",
                   "catalogs/v7/vast/vms.csv": "vast_2026-04-29.csv"}, "2026-04-20T08:30:00+00:00", "lambda 2 + vast")
    _commit(repo, {"README.md": "README.md"}, "2026-04-21T08:30:00+00:00", "no catalog change")
    return repo


def _runs(home):
    with duckdb.connect(str(database_path()), read_only=True) as connection:
        return connection.sql(
            "SELECT source, observed_at, status, trigger FROM raw.ingest_runs ORDER BY observed_at, source"
        ).fetchall(), connection.sql("SELECT count(*) FROM raw.offers").fetchone()[0]


def test_backfill_loads_each_catalog_commit_at_its_commit_time_once(home, catalog_repo, capsys):
    assert main(["backfill", "skypilot", "--repo", str(catalog_repo), "--no-build"]) == 0
    runs, offers = _runs(home)
    assert [(source, observed_at.astimezone(UTC), status) for source, observed_at, status, _ in runs] == [
        ("skypilot-lambda", datetime(2026, 4, 2, 12, 0, tzinfo=UTC), "loaded"),
        ("skypilot-lambda", datetime(2026, 4, 20, 8, 30, tzinfo=UTC), "loaded"),
        ("skypilot-vast", datetime(2026, 4, 20, 8, 30, tzinfo=UTC), "loaded"),
    ]
    assert {trigger for *_, trigger in runs} == {"backfill"}
    assert "backfill: 3 catalog commits: 3 loaded" in capsys.readouterr().out
    # a second backfill of the same history changes nothing
    assert main(["backfill", "skypilot", "--repo", str(catalog_repo), "--no-build"]) == 0
    assert "3 already_loaded" in capsys.readouterr().out
    assert _runs(home) == (runs, offers)


def test_backfill_since_skips_older_commits(home, catalog_repo):
    assert main(["backfill", "skypilot", "--repo", str(catalog_repo), "--since", "2026-04-10", "--no-build",
                 "--clouds", "lambda"]) == 0
    runs, _ = _runs(home)
    assert [(source, observed_at.astimezone(UTC).date().isoformat()) for source, observed_at, *_ in runs] == [
        ("skypilot-lambda", "2026-04-20")
    ]


def test_a_commit_that_refreshed_v7_and_v8_is_one_observation_read_from_v8(home, tmp_path):
    repo = tmp_path / "skypilot-catalog"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, {"catalogs/v7/vast/vms.csv": "vast_2026-04-29.csv", "catalogs/v8/vast/vms.csv": "v8/vast/vms.csv"},
            "2026-04-29T17:29:04+00:00", "upstream refreshes both schema versions at once")
    assert main(["backfill", "skypilot", "--repo", str(repo), "--no-build", "--clouds", "vast"]) == 0
    runs, offers = _runs(home)
    assert [(source, status) for source, _, status, _ in runs] == [("skypilot-vast", "loaded")]
    with duckdb.connect(str(database_path()), read_only=True) as connection:
        urls = connection.sql("SELECT url FROM raw.landing_documents").fetchall()
    assert len(urls) == 1 and urls[0][0].endswith("catalogs/v8/vast/vms.csv")
    assert offers == 67  # the v8 file's offers (the v7 file holds 64)


def test_backfill_of_a_folder_that_is_not_a_git_repo_fails_clearly(home, tmp_path, capsys):
    assert main(["backfill", "skypilot", "--repo", str(tmp_path), "--no-build"]) == 2  # one line, no traceback
    err = capsys.readouterr().err
    assert "not a git repository" in err and err.count("\n") == 1, err


def test_ecb_history_backfill_loads_every_rate_once_and_a_truncated_file_loads_nothing(home, tmp_path):
    import duckdb

    from warehouse.ingest.backfill import backfill_ecb

    history = FIXTURES / "ecb" / "eurofxref-hist.zip"
    truncated = tmp_path / "eurofxref-hist.zip"
    truncated.write_bytes(history.read_bytes()[:100_000])
    broken = backfill_ecb(truncated)
    assert broken.status == "parse_error" and "truncated" in broken.error

    first = backfill_ecb(history)
    assert first.status == "loaded" and first.rows_loaded > 200_000
    again = backfill_ecb(history)
    assert again.status == "already_loaded"
    with duckdb.connect(str(home / "gpuprices.duckdb"), read_only=True) as connection:
        total, usd = connection.execute(
            "SELECT count(*), max(rate) FILTER (WHERE quote_currency = 'USD' AND rate_date = '2026-10-30') "
            "FROM raw.fx_rates").fetchone()
    assert total == first.rows_loaded and str(usd) == "1.11720000"
