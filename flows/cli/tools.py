"""`gpuprices bench fetch|build|aws|scale-out|import`: benchmarks that print figures. They live in dev/ (development
tools, not shipped in the wheel), so they run from a checkout: the command runs `python -m dev.bench_<kind>` with
the same arguments as a child process, and the runtime packages never import dev/ (tests/test_layout.py)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from config.settings import PROJECT_ROOT
from flows.cli.common import UsageError

BENCHES = ("fetch", "build", "aws", "scale-out", "import")


def bench_command(kind: str, arguments: list[str]) -> list[str] | None:
    """The child process that runs benchmark `kind` (dev/bench_<kind>.py), or None when dev/ is not there (an
    installed wheel). -P: the checkout's dev/ (PYTHONPATH), never a dev/ in the current folder."""
    module = "bench_" + kind.replace("-", "_")
    if not (PROJECT_ROOT / "dev" / f"{module}.py").is_file():
        return None
    return [sys.executable, "-P", "-m", f"dev.{module}", *arguments]


def cmd_bench(args) -> int:
    command = bench_command(args.kind, args.arguments)
    if command is None:  # one line, exit status 2 (flows/cli/main.py)
        raise UsageError(f"bench {args.kind}: the benchmarks are in dev/, which only a checkout of the repository "
                         f"has (no dev/ under {PROJECT_ROOT})")
    path = os.pathsep.join(part for part in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if part)
    return subprocess.run(command, env={**os.environ, "PYTHONPATH": path}, check=False).returncode


def register(commands) -> None:
    bench = commands.add_parser(
        "bench", help="benchmarks that print figures (fetch: against the local server; build: synthetic history; "
                 "aws: a large synthetic offer file; import: a long price history imported and built); "
                 "run from a checkout (dev/)",
        description="Run a benchmark of dev/ (python -m dev.bench_KIND) with the options after KIND; "
                    "`gpuprices bench KIND --help` lists them.")
    bench.add_argument("kind", choices=BENCHES)
    bench.add_argument("arguments", nargs=argparse.REMAINDER, help="the benchmark's own options")
    bench.set_defaults(func=cmd_bench)
