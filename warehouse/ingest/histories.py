"""The real price histories bundled in recordings/ and how the offline run loads them, beside the replayed days.

Each is a real observation someone else made (not synthetic), loaded through `gpuprices import prices`
(warehouse/ingest/imports.py) under a source of its own (trigger `import`, marked "imported" in status and the pages):

- keepa-amazon: recordings/retail_history/*.json, 8 Amazon buy-box histories (USD, 2019-2025); all or nothing;
- gcp-list-history: recordings/history/gcp_list_prices/gcp_gpu_prices.csv.gz, Google Cloud's list prices of its
  A100, H100 and L4 machines, weekly 2022-2025: on-demand, spot, 1- and 3-year commitments, per instance-hour;
  bad rows quarantined with their reason;
- idealo-de: recordings/history/idealo_de/idealo_daily.csv, idealo.de's lowest new-card offer per day of 18
  listings (EUR, 2017-2018), the file as published through a column map; bad rows quarantined.

Before them, the ECB reference rates up to the day before the first replay day (recordings/ecb/), through
`gpuprices backfill ecb`'s code path, so a euro price of 2017 gets the dollar rate of its day. The replay's daily
ECB files hold 2026-04-02 on: no day is in both (were one, the latest observation would win: int_fx_rates__daily).

Where each file came from, its licence and what was changed: the PROVENANCE.md or README.md beside it; the GCP and
ECB files are written by dev/recordings/build_histories.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from config.settings import PROJECT_ROOT
from warehouse.ingest.backfill import backfill_ecb
from warehouse.ingest.imports import ImportFileError, import_prices

RECORDINGS = PROJECT_ROOT / "recordings"
KEEPA_HISTORIES = RECORDINGS / "retail_history"  # real Keepa exports (provenance: README.md there)
KEEPA_SOURCE = "keepa-amazon"


@dataclass(frozen=True)
class BundledHistory:
    """One bundled history and the `import_prices` arguments it loads with."""
    source: str
    folder: Path
    pattern: str  # the file(s) in folder, each imported on its own
    file_format: str = "csv"
    market: str | None = "retail_new"
    currency: str | None = "USD"
    bad_rows: str = "refuse"
    columns: dict[str, str] | None = field(default=None, hash=False)

    def paths(self) -> list[Path]:
        return sorted(self.folder.glob(self.pattern))


BUNDLED_HISTORIES = (
    # the buy signal is tuned and backtested on these eight (analytics/buy_signal.py): all or nothing
    BundledHistory(KEEPA_SOURCE, KEEPA_HISTORIES, "*.json", file_format="keepa"),
    # one row per weekly revision x machine type x region x market, per instance-hour with its GPU count; prices a
    # region lists without the GPU part (far under the same GPU elsewhere) are held back with the reason
    BundledHistory("gcp-list-history", RECORDINGS / "history" / "gcp_list_prices", "gcp_gpu_prices.csv.gz",
                   market=None, currency=None, bad_rows="quarantine"),
    # the file as published, through a column map. The GPU is read from the listing's name, not gpu_type: one
    # listing (GigaByte GeForce GTX 1080 Ti, idealo 5489383) is in the file twice, once with gpu_type "GeForce GTX
    # 1080"; read from its name both copies are the same offer, counted once a day (PROVENANCE.md there)
    BundledHistory("idealo-de", RECORDINGS / "history" / "idealo_de", "idealo_daily.csv", currency="EUR",
                   bad_rows="quarantine", columns={"observed_at": "date", "price": "price_eur_lowest",
                                                   "gpu": "listing_name", "url": "url", "title": "listing_name"}),
)

# The real ECB history file up to 2026-04-01 (the replay's daily files start on 2026-04-02), observed when the last
# of its rates was published: a fixed time, so the offline run loads the same run whenever it runs.
ECB_HISTORY = RECORDINGS / "ecb" / "eurofxref-hist_to_2026-04-01.zip"
ECB_HISTORY_OBSERVED_AT = datetime(2026, 4, 1, 16, 0, tzinfo=UTC)


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())[:300]


def load_ecb_history(path: Path = ECB_HISTORY, observed_at: datetime = ECB_HISTORY_OBSERVED_AT) -> dict:
    """The bundled ECB history through `gpuprices backfill ecb`'s code path, as a run-report import entry."""
    started = time.monotonic()
    record = backfill_ecb(path, observed_at=observed_at)
    return {"file": path.name, "source": record.source, "kind": "fx_rates", "prices": record.rows_parsed,
            "days": None, "loaded": record.rows_loaded, "quarantined": record.rows_rejected, "first_reasons": [],
            "already_loaded": record.status == "already_loaded",
            "error": None if record.status in ("loaded", "already_loaded") else f"{record.status}: {record.error}",
            "seconds": round(time.monotonic() - started, 2)}


def import_history(history: BundledHistory, path: Path) -> dict:
    """One bundled file through `import_prices`, as a run-report import entry. A file that cannot load is reported,
    never raised."""
    started = time.monotonic()
    entry = {"file": path.name, "source": history.source, "kind": "prices", "prices": 0, "days": 0, "loaded": 0,
             "quarantined": 0, "first_reasons": [], "already_loaded": False, "error": None}
    try:
        result = import_prices(path, history.source, history.file_format, history.market, history.currency,
                               bad_rows=history.bad_rows, columns=history.columns)
        entry |= {"prices": result.prices, "days": result.days, "loaded": result.offers_loaded,
                  "quarantined": result.rows_quarantined, "first_reasons": result.first_reasons,
                  "already_loaded": result.already_loaded}
    except ImportFileError as error:
        entry["error"] = _one_line(error)
    return entry | {"seconds": round(time.monotonic() - started, 2)}


def load_bundled_histories(histories: tuple[BundledHistory, ...] = BUNDLED_HISTORIES,
                           ecb_history: Path | None = ECB_HISTORY) -> list[dict]:
    """The offline run's real history: the ECB rates first, then every bundled price history, file by file."""
    entries = [load_ecb_history(ecb_history)] if ecb_history else []
    for history in histories:
        entries.extend(import_history(history, path) for path in history.paths())
    return entries
