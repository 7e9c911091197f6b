"""`gpuprices bench fetch|build|aws|scale-out|import`: benchmarks that print figures. They live in dev/ (development tools, not shipped
in the wheel), so they run from a checkout."""

from __future__ import annotations

from pathlib import Path

from config.settings import data_home


def cmd_bench(args) -> int:
    if args.kind == "build":
        from dev.bench_build import bench_build, report  # dev/: only in a checkout

        horizons = tuple(days for days in (30, 365, 1095) if days <= args.years * 365) or (30,)
        root = Path(args.root).resolve() if args.root else data_home() / "bench-build"
        results, queries = bench_build(root, horizons, args.marketplace_offers, args.increments, args.query_runs)
        print(report(results, queries))
        return 0
    if args.kind == "scale-out":
        from dev.bench_scale_out import (
            bench_scale_out,  # dev/: only in a checkout; imports Prefect
        )

        print(bench_scale_out(args.per_host, args.shard_timeout_s))
        return 0
    if args.kind == "import":
        from dev.bench_import import bench_import  # dev/: only in a checkout

        print(bench_import(args.rows, Path(args.file).resolve() if args.file else None, args.keep, args.synthetic))
        return 0
    if args.kind == "aws":
        from dev.bench_aws import bench_aws  # dev/: only in a checkout

        print(bench_aws(args.megabytes))
        return 0
    from dev.bench_fetch import bench_fetch  # dev/: only in a checkout

    print(bench_fetch(args.latency_ms / 1000, args.interval_ms / 1000, args.concurrency).report())
    return 0


def register(commands) -> None:
    bench = commands.add_parser(
        "bench", help="benchmarks that print figures (fetch: against the local server; build: synthetic history; "
                 "aws: a large synthetic offer file; import: a long price history imported and built)")
    bench.add_argument("kind", choices=["fetch", "build", "aws", "scale-out", "import"])
    bench.add_argument("--rows", type=int, default=330_000,
                       help="import: rows of the bundled real GCP history taken (or of the --synthetic one)")
    bench.add_argument("--synthetic", action="store_true",
                       help="import: a generated GCP-shaped history (labelled synthetic) instead of the real one")
    bench.add_argument("--file", help="import: a real long-format CSV in the import's columns instead")
    bench.add_argument("--keep", action="store_true", help="import: keep the file and the temporary data home")
    bench.add_argument("--per-host", type=int, default=1, help="scale-out: sources fetching from one host at once")
    bench.add_argument("--shard-timeout-s", type=float, default=120.0,
                       help="scale-out: how long the parent waits for a shard before it cancels it")
    bench.add_argument("--megabytes", type=int, default=500, help="aws: size of the synthetic offer file")
    bench.add_argument("--years", type=int, default=3, help="build: longest history (1 month, 1 year, 3 years)")
    bench.add_argument("--marketplace-offers", type=int, default=10_000, help="build: marketplace offers per day")
    bench.add_argument("--increments", type=int, default=3, help="build: daily incremental builds timed per history")
    bench.add_argument("--query-runs", type=int, default=20, help="build: runs of each dashboard query")
    bench.add_argument("--root", help="build: where the bench warehouses go (default <home>/bench-build)")
    bench.add_argument("--latency-ms", type=float, default=200.0, help="injected latency per response")
    bench.add_argument("--interval-ms", type=float, default=250.0, help="per-host minimum interval between starts")
    bench.add_argument("--concurrency", type=int, default=2, help="per-host requests in flight")
    bench.set_defaults(func=cmd_bench)
