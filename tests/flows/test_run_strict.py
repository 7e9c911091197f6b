"""`gpuprices run --strict`: a scheduler that must hear of any failed source gets exit status 3; without it a run
that loaded something exits 0 (and 1 only when nothing loaded: tests/flows/test_nothing_loads.py). The offline
run of the last bundled day with the fault plan's truncated RunPod answer (a parse_error) beside a good source."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, gpuprices

pytestmark = pytest.mark.slow  # offline runs: Prefect flows

DAY = "2026-05-01"
RUN = ("run", "--offline", "--since", DAY, "--sources", "runpod,skypilot-vast", "--no-build")


def test_strict_exits_3_on_one_failed_source_and_a_plain_run_exits_0(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUPRICES_FAULTS", str(FIXTURES / "faults" / "plan.json"))
    home = tmp_path / "home"
    plain = gpuprices(home, *RUN, check=False)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert "1 loaded, 1 parse_error" in plain.stdout
    # the same observation again, strict: the parse error stands (already_parse_error) and fails the run
    strict = gpuprices(home, *RUN, "--strict", check=False)
    assert strict.returncode == 3, (strict.stdout[-2000:], strict.stderr[-2000:])
    errors = [line for line in strict.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: --strict: 1 of 2 source-runs did not load: runpod (already_parse_error)"], errors
    assert "Traceback" not in strict.stdout + strict.stderr
