"""`gpuprices serve`: the daily job on a schedule, with nothing else to set up.

serve is its own scheduler: it works out the next time of its cron expression (UTC) or interval, sleeps until
then, runs `gpuprices run` with the options it was given, and waits for the next time. Each run is a child process,
so that every run starts fresh (the memory a day's build and export took goes back to the system) and a run that
crashes cannot stop the schedule; its console lines and exit status are those of `gpuprices run`, and it is a Prefect
flow run as always (on the server PREFECT_API_URL names, or on a temporary local one).

Prefect's own scheduling (`flow.serve`, deployments with schedules) needs a Prefect server whose scheduler service
runs: without PREFECT_API_URL it logs "Cannot schedule flows on an ephemeral server" and never runs anything. That
way, with a server and workers, is prefect.yaml's (docs/operations.md: Running daily).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from cronsim import CronSim, CronSimError

from warehouse.store.progress import progress

# What `gpuprices run` exit statuses mean (flows/cli/pipeline.py RUN_EXIT_STATUSES says it to users).
RUN_OUTCOMES = {0: "done", 1: "nothing loaded, or the run failed", 2: "a usage error",
                3: "some sources did not load (--strict)"}


class ScheduleError(ValueError):
    """A cron expression or interval serve cannot use (one line, exit 2)."""


@dataclass(frozen=True)
class Schedule:
    """A cron expression read in UTC, or a fixed interval."""

    cron: str | None = None
    every: timedelta | None = None

    def __post_init__(self):
        if (self.cron is None) == (self.every is None):
            raise ScheduleError("a schedule is a cron expression or an interval, not both")
        if self.cron is not None:
            try:
                CronSim(self.cron, datetime.now(UTC))
            except CronSimError as error:
                raise ScheduleError(f"--cron {self.cron!r} is not a cron expression: {error}") from None

    def next_after(self, moment: datetime) -> datetime:
        """The first scheduled time strictly after `moment`."""
        if self.every is not None:
            return moment + self.every
        return next(CronSim(self.cron, moment))

    def __str__(self) -> str:
        return f"cron {self.cron!r} UTC" if self.cron is not None else f"every {self.every.total_seconds():g} s"


class Stopped(Exception):
    """SIGTERM (systemd stop, kill): serve ends like on Ctrl-C."""


def _stop(signum, frame):
    raise Stopped


def sleep_until(moment: datetime) -> None:
    # in short naps against the wall clock: a suspended machine or a clock that was set wakes at the right time
    while (remaining := (moment - datetime.now(UTC)).total_seconds()) > 0:
        time.sleep(min(remaining, 30.0))


def serve(schedule: Schedule, run_arguments: list[str], runs: int | None = None) -> int:
    """Run `gpuprices run <run_arguments>` at every scheduled time, forever or `runs` times. A run still going at
    the next time delays it: the times that passed meanwhile are skipped, not made up. Returns 0 when stopped
    (Ctrl-C, SIGTERM), or, after `runs` runs, the last run's exit status."""
    command = [sys.executable, "-m", "flows.cli", "run", *run_arguments]
    previous_handler = signal.signal(signal.SIGTERM, _stop)
    child: subprocess.Popen | None = None
    code, done = 0, 0
    try:
        fire_at = datetime.now(UTC)
        while runs is None or done < runs:
            fire_at, skipped = schedule.next_after(fire_at), 0
            while fire_at <= datetime.now(UTC):
                fire_at, skipped = schedule.next_after(fire_at), skipped + 1
            if skipped:
                progress(f"serve: {skipped} scheduled time(s) passed while the last run went on: skipped")
            progress(f"serve: next run at {fire_at:%Y-%m-%d %H:%M:%S} UTC ({schedule})")
            sleep_until(fire_at)
            done += 1
            progress(f"serve: run {done} starting: gpuprices run {' '.join(run_arguments)}".rstrip())
            child = subprocess.Popen(command)
            code = child.wait()
            child = None
            progress(f"serve: run {done} finished, exit status {code}: {RUN_OUTCOMES.get(code, 'the run failed')}")
        return code
    except (KeyboardInterrupt, Stopped):
        if child is not None and child.poll() is None:  # a run going on: stop it too (its loads are atomic)
            child.terminate()
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        progress("serve: stopped")
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
