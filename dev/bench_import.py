"""`gpuprices bench import`: a long price history through `gpuprices import prices --bad-rows quarantine` and the
dbt build, timed, with the peak memory read from the kernel.

By default the file is REAL: the first `--rows` rows (330,000) of the bundled GCP list-price history
(recordings/history/gcp_list_prices, weekly 2022-2025, four markets, per instance-hour in USD), whose regions that
list a machine without its GPU part the integrity rules hold back (quarantine). `--synthetic` generates a history of
the same shape instead (deterministically: a hash of the row, no random state; the file's name says synthetic),
~0.6% of its rows a machine without its GPUs; `--file` takes any long-format CSV in the import's columns.

`gpuprices import prices FILE --bad-rows quarantine` (the import, then the dbt build, full: the home is new) runs as a
child process in a temporary data home, as a user runs it; the parent times it and reads its peak resident memory
from the kernel (ru_maxrss, from wait4). Targets on the 2-core reference machine: import + build <= 20 s and
peak memory <= 600 MB.

`--case memory` measures instead what a careless or hostile file costs (issue 39), each through the same command:
`blank-lines`, a gzipped file of a header, one row and 1 GiB of blank lines (~1 MB on disk; it took the machine
before the import streamed), and `history-repeated`, the whole real GCP history repeated to ~300 MB (2.9M rows; each
day's offers seven times over, so the day's last price stands). Target: peak memory under 1 GB for each.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from config.settings import PROJECT_ROOT, use_data_home

BUNDLED_GCP_HISTORY = PROJECT_ROOT / "recordings" / "history" / "gcp_list_prices" / "gcp_gpu_prices.csv.gz"
TARGET_SECONDS = 20.0
TARGET_PEAK_MB = 600.0
MEMORY_CASE_TARGET_MB = 1024.0  # --case memory: a hostile or huge file, peak under 1 GB
CASES = ("first-rows", "blank-lines", "history-repeated", "memory")
SOURCE = "gcp-history"
FIRST_WEEK = date(2022, 11, 7)
WEEKS = 182  # ~3.5 years
BAD_SHARE = Decimal("0.006")  # a region listing the machine without its GPU part
# GCP's GPU names (its own scope in models/seeds/gpu_aliases.csv), USD per GPU-hour on demand, machine sizes
SHAPES = {
    "A100": ("3.67", (1, 2, 4, 8, 16)), "A100-80GB": ("5.07", (1, 2, 4, 8)), "H100": ("11.06", (1, 2, 4, 8)),
    "H100-MEGA": ("11.80", (8,)), "H200": ("10.85", (8,)), "B200": ("14.90", (8,)), "V100": ("2.48", (1, 2, 4, 8)),
    "P100": ("1.46", (1, 2, 4)), "P4": ("0.60", (1, 2, 4)), "L4": ("0.71", (1, 2, 4, 8)), "T4": ("0.35", (1, 2, 4)),
}
MARKETS = {"on_demand": Decimal("1"), "spot": Decimal("0.35"), "reserved_1y": Decimal("0.63"),
           "reserved_3y": Decimal("0.45")}
REGIONS = [f"{area}-{side}{number}" for area in ("us", "europe", "asia", "me", "southamerica", "australia",
                                                  "northamerica", "africa")
           for side in ("central", "east", "west", "south", "north") for number in (1,)][:40]
HEADER = "observed_at,gpu,market,price,currency,provider,region,per,gpu_count\n"


def _unit(*key) -> Decimal:
    """A deterministic number in [0, 1) from the key."""
    digest = hashlib.blake2b("|".join(map(str, key)).encode(), digest_size=8).digest()
    return Decimal(int.from_bytes(digest, "big") % 1_000_000) / 1_000_000


def generate(path: Path, rows: int = 330_000) -> int:
    """Write the synthetic GCP-shaped history (about `rows` rows); returns the rows written."""
    machines = [(gpu, count) for gpu, (_, counts) in SHAPES.items() for count in counts]
    # the (region, machine) pairs listed: a deterministic choice of as many as give about `rows` rows
    listed = sorted(((region, gpu, count) for region in REGIONS for gpu, count in machines),
                    key=lambda pair: _unit("listed", *pair))[:max(1, round(rows / (WEEKS * len(MARKETS))))]
    written = 0
    with path.open("w") as handle:
        handle.write(HEADER)
        for week in range(WEEKS):
            day = FIRST_WEEK + timedelta(weeks=week)
            lines = []
            for region, gpu, count in listed:
                base = Decimal(SHAPES[gpu][0]) * count * (Decimal("0.9") + _unit("region", region) / 5)
                drift = 1 - Decimal(week // 26) * Decimal("0.02")  # a list-price cut every half year
                for market, factor in MARKETS.items():
                    price = base * drift * factor
                    if market == "spot":  # spot moves every week
                        price *= Decimal("0.8") + _unit("spot", region, gpu, count, week) * Decimal("0.4")
                    if _unit("bad", region, gpu, count, market, week) < BAD_SHARE:
                        price *= Decimal("0.04")  # the VM alone: its GPU part missing from the list
                    lines.append(f"{day}T00:00:00Z,{gpu},{market},{price.quantize(Decimal('0.0001'))},USD,gcp,"
                                 f"{region},instance_hour,{count}\n")
            handle.writelines(lines)
            written += len(lines)
    return written


def _run(home: Path, *args: str) -> tuple[str, float, float, float]:
    """`gpuprices ARGS` in a child process on `home`: (stdout, seconds, CPU seconds, the child's peak RSS in MB)."""
    with tempfile.TemporaryFile("w+") as stderr, use_data_home(home):  # the child inherits the data home
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "flows.cli", *args], cwd=PROJECT_ROOT,
                                 stdout=subprocess.PIPE, stderr=stderr, text=True)
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        stderr.seek(0)
        errors = stderr.read()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"gpuprices {' '.join(args)} failed (exit {child.returncode}): {errors[-2000:]}")
    return output, seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # KiB on Linux


def first_rows_of_bundled_history(path: Path, rows: int = 330_000) -> int:
    """The header and the first `rows` rows of the bundled real GCP history, as a plain CSV; returns the rows."""
    written = 0
    with gzip.open(BUNDLED_GCP_HISTORY, "rt", encoding="utf-8", newline="") as source, \
            path.open("w", encoding="utf-8", newline="") as target:
        target.write(source.readline())
        for line in source:
            if written == rows:
                break
            target.write(line)
            written += 1
    return written


def blank_lines_file(path: Path, gib: float = 1.0) -> int:
    """A gzipped CSV of a header, one real row of the GCP history and `gib` GiB of blank lines; returns its size on
    disk."""
    with gzip.open(BUNDLED_GCP_HISTORY, "rt", encoding="utf-8", newline="") as source:
        header, row = source.readline(), source.readline()
    blank = b"\n" * (64 * 1024**2)
    with gzip.open(path, "wb", compresslevel=6) as target:
        target.write((header + row).encode())
        for _ in range(round(gib * 16)):
            target.write(blank)
    return path.stat().st_size


def repeated_history_file(path: Path, megabytes: float = 300.0) -> tuple[int, int]:
    """The whole bundled real GCP history (header once) repeated until the file holds `megabytes` MB; returns
    (rows, bytes)."""
    with gzip.open(BUNDLED_GCP_HISTORY, "rb") as source:
        header = source.readline()
        body = source.read()
    times = max(1, round(megabytes * 1e6 / len(body)))
    with path.open("wb") as target:
        target.write(header)
        for _ in range(times):
            target.write(body)
    return body.count(b"\n") * times, path.stat().st_size


def _memory_case(home: Path, file: Path) -> list[str]:
    summary, seconds, cpu_s, peak_mb = _run(home, "import", "prices", str(file), "--source", SOURCE,
                                            "--bad-rows", "quarantine")
    return [f"  {line}" for line in summary.strip().splitlines()[:1]] + [
        f"  gpuprices import prices --bad-rows quarantine (import, then the dbt build): {seconds:.1f} s (CPU "
        f"{cpu_s:.1f} s); peak memory {peak_mb:.0f} MB (target < {MEMORY_CASE_TARGET_MB:.0f} MB): "
        f"{'OK' if peak_mb < MEMORY_CASE_TARGET_MB else 'OVER'}"]


def machine_speed_s() -> float:
    """Seconds for 20M additions in a pure-Python loop: how fast the machine runs right now (on this 2-core machine
    it varies by a third from hour to hour), printed beside the figures so that runs of different hours compare."""
    started = time.perf_counter()
    total = 0
    for number in range(20_000_000):
        total += number
    return time.perf_counter() - started


def bench_import(rows: int = 330_000, file: Path | None = None, keep: bool = False, synthetic: bool = False,
                 runs: int = 1, case: str = "first-rows") -> str:
    work = Path(tempfile.mkdtemp(prefix="gpuprices-bench-import-"))
    try:
        if case != "first-rows":
            lines = []
            if case in ("blank-lines", "memory"):
                blank = work / "blank_lines_1GiB.csv.gz"
                lines.append(f"bench import --case blank-lines: a header, one real GCP row and 1 GiB of blank lines, "
                             f"gzipped: {blank_lines_file(blank) / 1e6:.1f} MB on disk")
                lines += _memory_case(work / "home-blank", blank)
            if case in ("history-repeated", "memory"):
                repeated = work / "gcp_list_prices_repeated.csv"
                written, size = repeated_history_file(repeated)
                lines.append(f"bench import --case history-repeated: the real bundled GCP list-price history "
                             f"repeated, {written:,} rows, {size / 1e6:.0f} MB")
                lines += _memory_case(work / "home-repeated", repeated)
            if keep:
                lines.append(f"  kept: {work}")
            return "\n".join(lines)
        if file is None and not synthetic:
            file = work / f"gcp_list_prices_first_{rows}.csv"
            written = first_rows_of_bundled_history(file, rows)
            origin = f"the real bundled GCP list-price history, its first {written} rows"
        elif file is None:
            file = work / f"gcp_list_prices_SYNTHETIC_{rows}.csv"
            started = time.perf_counter()
            written = generate(file, rows)
            origin = (f"synthetic GCP-shaped history, {written} rows (generated in "
                      f"{time.perf_counter() - started:.1f} s)")
        else:
            origin = f"{file} (as given)"
        lines = [f"bench import: {origin}; {file.stat().st_size / 1e6:.1f} MB"]
        for run in range(1, runs + 1):
            home = work / f"home-{run}"
            speed = machine_speed_s()
            # what a user runs: one command, the import and then the build in the same process
            summary, seconds, cpu_s, peak_mb = _run(home, "import", "prices", str(file), "--source", SOURCE,
                                                    "--bad-rows", "quarantine")
            if run == 1:
                lines += [f"  {line}" for line in summary.strip().splitlines()]
            lines += [
                f"  run {run}: gpuprices import prices --bad-rows quarantine (import, then the dbt build: full, the "
                f"home is new): {seconds:.1f} s (CPU {cpu_s:.1f} s) (target <= {TARGET_SECONDS:.0f} s): "
                f"{'OK' if seconds <= TARGET_SECONDS else 'OVER'}; peak memory {peak_mb:.0f} MB (target <= "
                f"{TARGET_PEAK_MB:.0f} MB): {'OK' if peak_mb <= TARGET_PEAK_MB else 'OVER'}",
                f"    (wall time of the command, Python start-up included, on {os.cpu_count()} cores; load average "
                f"{os.getloadavg()[0]:.1f}; machine speed just before: {speed:.2f} s for 20M Python additions: the "
                "figures move with it)",
            ]
        if keep:
            lines.append(f"  kept: {work}")
        return "\n".join(lines)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """`gpuprices bench import [options]` runs this (python -m dev.bench_import)."""
    parser = argparse.ArgumentParser(prog="gpuprices bench import", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=330_000,
                        help="rows of the bundled real GCP history taken (or of the --synthetic one)")
    parser.add_argument("--synthetic", action="store_true",
                        help="a generated GCP-shaped history (labelled synthetic) instead of the real one")
    parser.add_argument("--file", help="a real long-format CSV in the import's columns instead")
    parser.add_argument("--keep", action="store_true", help="keep the file and the temporary data homes")
    parser.add_argument("--runs", type=int, default=1, help="import the file this many times, each in a new home")
    parser.add_argument("--case", choices=CASES, default="first-rows",
                        help="first-rows (the default: time and memory of the real history's first --rows rows); "
                             "blank-lines (1 GiB of blank lines, gzipped), history-repeated (the real history "
                             "repeated to ~300 MB) or memory (both): their peak memory")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be 1 or more, got {args.runs}")
    print(bench_import(args.rows, Path(args.file).resolve() if args.file else None, args.keep, args.synthetic,
                       args.runs, args.case))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
