"""`python tests/flows/term_after_load.py SOURCE gpuprices-args...`: the real CLI, with a SIGTERM sent to the process
just as SOURCE's load has committed (its ingest returned on its worker thread), so that the signal lands in that
source's task before the task returns: where systemd's stop or serve's terminate can land in any run. Injected here,
from the test side: the flow has no hook."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from flows.cli.main import main  # noqa: E402
from warehouse.ingest.pipeline import ingest  # noqa: E402

source_id = sys.argv[1]
to_thread = asyncio.to_thread


async def to_thread_then_signal(function, *args, **kwargs):
    result = await to_thread(function, *args, **kwargs)
    if function is ingest and args[0].id == source_id:
        os.kill(os.getpid(), signal.SIGTERM)  # handled in this (the main) thread at once: inside the source's task
    return result


asyncio.to_thread = to_thread_then_signal
sys.exit(main(sys.argv[2:]))
