"""`gpuprices bench KIND ...` runs dev/bench_KIND.py as a child process with the same arguments (the runtime never
imports dev/: tests/test_layout.py); without dev/ (an installed wheel) it says so in one line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from flows.cli import tools
from flows.cli.main import main


@pytest.mark.parametrize("kind", tools.BENCHES)
def test_every_benchmark_is_a_dev_module_run_with_the_same_arguments(kind, monkeypatch):
    ran = []
    monkeypatch.setattr(tools.subprocess, "run", lambda command, **kwargs: ran.append((command, kwargs))
                        or subprocess.CompletedProcess(command, 3))
    assert main(["bench", kind, "--some-option", "7", "--flag"]) == 3  # the child's exit status
    (command, kwargs), = ran
    module = "bench_" + kind.replace("-", "_")
    assert (ROOT / "dev" / f"{module}.py").is_file()
    assert command == [sys.executable, "-P", "-m", f"dev.{module}", "--some-option", "7", "--flag"]
    assert kwargs["env"]["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)


def test_a_benchmark_without_dev_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tools, "PROJECT_ROOT", tmp_path)  # an installed wheel: no dev/ beside the packages
    assert main(["bench", "build", "--years", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only a checkout of the repository has" in err, err


def test_the_child_reads_its_own_options():
    result = subprocess.run([sys.executable, "-m", "flows.cli", "bench", "fetch", "--help"], capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: gpuprices bench fetch") and "--latency-ms" in result.stdout
