"""`gpuprices bench scale-out`: the distributed daily run, really run on one machine.

A Prefect server on 127.0.0.1, a process work pool `gpuprices` with two workers, the deployments of prefect.yaml
(`prefect deploy --all`), the per-host tag concurrency limits (`gpuprices limits --apply`), and one bundled offline
day served by the recorded-response server in this process, sharded across the workers by `daily-distributed`.

1. A normal day: every source of the day lands and loads exactly once; the shards ran on both workers.
2. A worker killed mid-shard: one host hangs (a fault) so its shard is still running; that shard's worker is
   SIGKILLed with its flow-run process. The parent's wait for that shard times out (`shard_timeout_s`), it cancels
   every shard not done (none loads after it has reported), the sources not loaded are reported failed, the dead
   run is marked Crashed (what an operator does: its worker cannot), and a rerun of the same day on the surviving
   worker completes them; its report lists each source once.
3. Throughout, the recorded-response server counts requests in flight per real host: never more than the tag limit
   (sources per host at once) x the HTTP client's per-host concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
from prefect.deployments import run_deployment
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.states import Crashed

from config.settings import PROJECT_ROOT, run_environment
from scrapers.registry import all_sources
from scrapers.replay import (
    OFFLINE_HTTP,
    OFFLINE_PLACEHOLDER_KEY,
    Fault,
    RecordedServer,
    load_recordings,
    missing_credentials,
    replay_plan,
)

POOL = "gpuprices"
PARENT_QUEUE = "parents"  # served by worker-1 only: the worker the kill scenario spares


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _prefect(env: dict, *args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "prefect", *args], env=env, cwd=PROJECT_ROOT,
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"prefect {' '.join(args)} failed: {result.stdout[-2000:]} {result.stderr[-2000:]}")
    return result.stdout


def _wait_healthy(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None:
            break
        time.sleep(0.3)
    raise RuntimeError("the Prefect server did not start")


def _worker(env: dict, name: str, logs: Path, queues: tuple[str, ...]) -> subprocess.Popen:
    log = (logs / f"{name}.log").open("w")
    queue_args = [arg for queue in queues for arg in ("--work-queue", queue)]
    # two runs at a time each: worker-1 the parent and one shard, worker-2 two shards
    return subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool", POOL, "--name", name,
                             "--limit", "2", *queue_args],
                            env=env, cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _worker_of(logs: Path, flow_run_id: str) -> str | None:
    for path in logs.glob("worker-*.log"):
        if flow_run_id in path.read_text(errors="replace"):
            return path.stem
    return None


async def _shard_runs(since: float) -> list:
    async with get_client() as client:
        runs = await client.read_flow_runs(
            deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=["collect-shard"])))
    return [run for run in runs if run.created and run.created.timestamp() >= since]


async def _crash(flow_run_id) -> None:
    async with get_client() as client:
        await client.set_flow_run_state(flow_run_id, Crashed(message="its worker was killed"), force=True)


def _run_day(day: str, base_url: str, shard_timeout_s: float) -> str:
    """The `daily-distributed` deployment: the parent on worker-1 (queue `parents`), the shards on both workers."""
    flow_run = run_deployment("daily-distributed/daily-distributed", timeout=900, work_queue_name=PARENT_QUEUE,
                              parameters={"shards": 3, "offline_day": day, "offline_base_url": base_url,
                                          "shard_timeout_s": shard_timeout_s, "export": False})
    return flow_run.state.name if flow_run.state else "unknown"


def _ingest_runs(env: dict, observed_at) -> list[tuple]:
    """Read through the CLI in a subprocess: this process never opens the warehouse the workers write."""
    result = subprocess.run(
        [sys.executable, "-m", "flows.cli", "sql", "--json",
         f"SELECT source, status, count(*) AS n FROM raw.ingest_runs WHERE observed_at = '{observed_at.isoformat()}' "
         "GROUP BY ALL ORDER BY ALL"], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"reading the warehouse failed: {result.stderr[-1000:]}")
    return [(row["source"], row["status"], row["n"]) for row in map(json.loads, result.stdout.splitlines())]


def _last_report(home: Path, observed_at) -> tuple[str, list[dict]]:
    """The newest run report of an observation: what it says in one line (entries, sources, the longest failed
    entry), and its entries."""
    path = sorted((home / "reports").glob(f"run-{observed_at:%Y%m%dT%H%M%SZ}-*.json"))[-1]
    entries = json.loads(path.read_text())["sources"]
    failed = [entry["duration_s"] for entry in entries if entry["status"] == "failed"]
    longest = f"longest failed entry {max(failed):.1f} s" if failed else "no failed entry"
    sources = len({entry["source"] for entry in entries})
    return f"{path.name}: {len(entries)} entries for {sources} sources, {longest}", entries


def bench_scale_out(per_host: int = 1, shard_timeout_s: float = 120.0) -> str:
    lines: list[str] = []

    def say(line: str) -> None:  # as it happens (the whole bench takes minutes), and in the summary
        lines.append(line)
        print(f"[bench scale-out] {line}", file=sys.stderr, flush=True)
    # the last bundled day for the normal run, the one before for the kill scenario (a parent finds the sources a
    # dead shard never loaded by the observation time, so the two runs need two)
    *_, kill_day, day = replay_plan(load_recordings())
    day_text, kill_day_text = day.observed_at.date().isoformat(), kill_day.observed_at.date().isoformat()
    work = Path(tempfile.mkdtemp(prefix="gpuprices-bench-scale-out-"))
    home, logs = work / "home", work / "logs"
    logs.mkdir(parents=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    keys = {name: OFFLINE_PLACEHOLDER_KEY for name in missing_credentials(list(all_sources().values()))}
    env = {**os.environ, **keys, **run_environment(home), "PREFECT_HOME": str(work / "prefect"),
           "PREFECT_API_URL": url, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_WORKER_QUERY_SECONDS": "1",
           "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "false",
           "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false"}
    server_process = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui",
         "--no-scheduler", "--no-late-runs", "--analytics-off"],
        env=env, stdout=(logs / "server.log").open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    workers: dict[str, subprocess.Popen] = {}
    # this process triggers the runs and reads their states (Prefect's settings were read at import)
    api = temporary_settings(updates={PREFECT_API_URL: url})
    api.__enter__()
    try:
        started = time.monotonic()
        _wait_healthy(url, server_process)
        _prefect(env, "work-pool", "create", POOL, "--type", "process")
        _prefect(env, "--no-prompt", "deploy", "--all")
        subprocess.run([sys.executable, "-m", "flows.cli", "limits", "--per-host", str(per_host), "--apply"],
                       env=env, cwd=PROJECT_ROOT, check=True, capture_output=True, timeout=120)
        workers["worker-1"] = _worker(env, "worker-1", logs, ("default", PARENT_QUEUE))
        workers["worker-2"] = _worker(env, "worker-2", logs, ("default",))
        say(f"set-up: server, pool, deployments from prefect.yaml, tag limits ({per_host} per host), "
            f"2 workers: {time.monotonic() - started:.1f} s")
        bound = per_host * OFFLINE_HTTP.per_host_concurrency

        with RecordedServer() as recorded:
            recorded.routes = day.routes
            # 1. a normal day
            started, since = time.monotonic(), time.time()
            state = _run_day(day_text, recorded.base_url, shard_timeout_s)
            runs = asyncio.run(_shard_runs(since))
            by_worker = {str(run.id): _worker_of(logs, str(run.id)) for run in runs}
            ingest = _ingest_runs(env, day.observed_at)
            once = all(count == 1 for _, _, count in ingest) and {s for s, _, _ in ingest} == set(day.sources)
            loaded = sum(1 for _, status, _ in ingest if status == "loaded")
            say(f"normal day {day_text}: {state} in {time.monotonic() - started:.1f} s; {len(runs)} shards on "
                f"{sorted(set(filter(None, by_worker.values())))}; {loaded}/{len(day.sources)} sources loaded; "
                f"every source landed once: {once}")

            # 2. worker-2 killed mid-shard: every host hangs until the shards are under way, then worker-2 (and
            # its flow-run processes) is SIGKILLed and the hosts answer again
            recorded.routes = kill_day.routes
            hosts = sorted({route.split("/", 1)[0] for route in kill_day.routes})
            recorded.faults = [Fault(route=host, kind="hang", seconds=15) for host in hosts]
            since, killed = time.time(), {}

            def kill_when_under_way() -> None:
                with temporary_settings(updates={PREFECT_API_URL: url}):  # a thread: its own settings context
                    deadline = time.monotonic() + 120
                    while time.monotonic() < deadline:
                        on_worker_2 = [run for run in asyncio.run(_shard_runs(since))
                                       if _worker_of(logs, str(run.id)) == "worker-2"]
                        if on_worker_2 and sum(recorded.in_flight.values()) > 0:
                            time.sleep(2)  # its requests are hanging: mid-shard
                            os.killpg(workers["worker-2"].pid, signal.SIGKILL)
                            killed.update(runs=on_worker_2,
                                          sources=sorted(s for run in on_worker_2 for s in run.parameters["sources"]))
                            break
                        time.sleep(0.5)
                    recorded.faults = []

            killer = threading.Thread(target=kill_when_under_way)
            killer.start()
            started = time.monotonic()
            state = _run_day(kill_day_text, recorded.base_url, shard_timeout_s)
            killer.join()
            after_kill = _ingest_runs(env, kill_day.observed_at)
            failed_now = sorted({s for s, status, _ in after_kill if status == "failed"})
            loaded_now = {s for s, status, _ in after_kill if status == "loaded"}
            say(f"killed worker-2 mid-shard (its shards: {killed.get('sources')}); the parent ended {state} after "
                f"{time.monotonic() - started:.1f} s; reported failed: {failed_now}; loaded: {len(loaded_now)}")
            summary, entries = _last_report(home, kill_day.observed_at)
            say(f"its report: {summary}")
            for run in killed.get("runs", []):
                asyncio.run(_crash(run.id))  # what an operator does: a dead worker cannot report its runs
            # a shard the parent gave up on must not load afterwards (the parent cancels it)
            reported_failed = {entry["source"] for entry in entries if entry["status"] == "failed"}
            late = sorted(reported_failed & {s for s, status, _ in _ingest_runs(env, kill_day.observed_at)
                                             if status == "loaded"})
            say(f"sources the parent reported failed that loaded after it ended: {late or 'none'}")
            # 3. the rerun of that day, on worker-1 alone: what had loaded says already_loaded
            started = time.monotonic()
            state = _run_day(kill_day_text, recorded.base_url, shard_timeout_s)
            final = _ingest_runs(env, kill_day.observed_at)
            done = {s for s, status, _ in final if status in ("loaded", "already_loaded")}
            say(f"rerun of {kill_day_text} on worker-1: {state} in {time.monotonic() - started:.1f} s; every source "
                f"of the day loaded: {done >= set(kill_day.sources)} (missing: {sorted(set(kill_day.sources) - done)})")
            say(f"its report: {_last_report(home, kill_day.observed_at)[0]}")
            worst = max(recorded.max_in_flight.values(), default=0)
            over = {host: n for host, n in recorded.max_in_flight.items() if n > bound}
            say(f"requests in flight per host: at most {worst} (bound {per_host} source x "
                         f"{OFFLINE_HTTP.per_host_concurrency} requests = {bound}); over the bound: {over or 'none'}")
            say(json.dumps({"max_in_flight": recorded.max_in_flight}, sort_keys=True))
    finally:
        for process in [*workers.values(), server_process]:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        api.__exit__(None, None, None)
    say(f"logs and warehouse: {work}")
    return "\n".join(re.sub(r"\s+$", "", line) for line in lines)


def main(argv: list[str] | None = None) -> int:
    """`gpuprices bench scale-out [options]` runs this (python -m dev.bench_scale_out)."""
    parser = argparse.ArgumentParser(prog="gpuprices bench scale-out", description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-host", type=int, default=1, help="sources fetching from one host at once")
    parser.add_argument("--shard-timeout-s", type=float, default=120.0,
                        help="how long the parent waits for a shard before it cancels it")
    args = parser.parse_args(argv)
    print(bench_scale_out(args.per_host, args.shard_timeout_s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
