"""`python tests/warehouse/hold_writer.py GO_FILE gpuprices-args...`: the real CLI, whose first wait for the writer
lasts until the test creates GO_FILE (it writes GO_FILE.waiting when the wait starts). What a long reader's query
does to a waiting writer in the field, made to last as long as the test needs; injected here, from the test side:
the load path has no hook."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from flows.cli.main import main  # noqa: E402
from warehouse.store import db  # noqa: E402

go_file = Path(sys.argv[1])
open_for_writing = db.open_for_writing


def open_when_told(*args, **kwargs):
    if not go_file.exists():
        go_file.with_name(go_file.name + ".waiting").write_text("waiting")
        while not go_file.exists():
            time.sleep(0.05)
    return open_for_writing(*args, **kwargs)


db.open_for_writing = open_when_told
sys.exit(main(sys.argv[2:]))
