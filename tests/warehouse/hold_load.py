"""`python tests/warehouse/hold_load.py HELD_FILE gpuprices-args...`: the real CLI, with every load held just
before its commit (rows inserted, transaction open): the load writes its run id to HELD_FILE and waits for the
crash test to SIGKILL the process. The fault is injected here, from the test side; the load path has no hook."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from flows.cli.main import main  # noqa: E402
from warehouse.ingest import load  # noqa: E402

held_file = Path(sys.argv[1])
write_records = load.insert_ingest_records


def insert_then_hold(connection, records):
    write_records(connection, records)
    held_file.write_text(records[0].run_id)  # the first run of the held group
    time.sleep(3600)


load.insert_ingest_records = insert_then_hold
sys.exit(main(sys.argv[2:]))
