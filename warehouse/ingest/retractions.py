"""Taking an import back: `gpuprices import undo IMPORT_ID --reason TEXT`, and `gpuprices import list`.

The raw tables are append-only (warehouse/store/schema.py), so a retraction deletes and updates nothing: it appends to
raw.retractions one row per retracted unit, with when and why:
- an imported price file (`gpuprices import prices`; IMPORT_ID is its run id): each of its day-runs;
- a loaded quotes file (`gpuprices quotes load`; IMPORT_ID is its load id): the load.
The dbt staging models (stg_raw__ingest_runs, stg_raw__offers, stg_raw__quotes) leave retracted rows out, so every
model above them does; the next build after prices are retracted is a full rebuild (warehouse/store/build.py). The rows
stay in raw, and `gpuprices import list` shows the import as retracted, when and why. A retracted file does not
import again (its run ids derive from its bytes); a corrected file does.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

from warehouse.store import db
from warehouse.ingest.load import transaction
from warehouse.store.paths import database_path, is_hosted

KINDS = ("prices", "quotes")
# a day-run of an imported file is `<the file's run id>-dYYYYMMDD` (warehouse/ingest/imports.py _day_frame)
IMPORT_ID_SQL = "regexp_replace(run_id, '-d[0-9]{8}$', '')"


class RetractionError(ValueError):
    """The import cannot be retracted as asked (unknown id, no reason): nothing was written."""


@dataclass(frozen=True)
class Retraction:
    import_id: str
    kind: str             # prices | quotes
    source: str | None    # the price import's source name; None for quotes
    runs: int             # day-runs (prices) or 1 (a quotes load)
    rows: int             # offers or quotes left out of every model from now on
    retracted_at: datetime
    reason: str
    already: bool = False  # retracted before (retracted_at and reason are the first retraction's)


def _has_table(connection) -> bool:
    return bool(connection.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'raw' "
                                   "AND table_name = 'retractions'").fetchone()[0])


def retraction_of(connection, import_id: str) -> str | None:
    """"on 2026-05-01 10:00 UTC (wrong currency)" when the import is retracted, else None."""
    if not _has_table(connection):
        return None
    found = connection.execute(
        "SELECT strftime(timezone('UTC', min(retracted_at)), '%Y-%m-%d %H:%M'), any_value(reason) "
        "FROM raw.retractions WHERE import_id = ?", [import_id]).fetchone()
    return f"on {found[0]} UTC ({found[1]})" if found and found[0] else None


def check_reason(reason: str | None) -> str:
    reason = " ".join((reason or "").split())
    if not reason:
        raise RetractionError("--reason: say why the import is taken back (it is kept with the retraction)")
    if any(unicodedata.category(character) in ("Cc", "Cf") for character in reason):
        raise RetractionError("--reason: control characters are not allowed")
    return reason


def undo_import(import_id: str, reason: str) -> Retraction:
    """Retract every row of one import: raw.retractions gains a row per day-run (prices) or the load (quotes).
    Retracting a retracted import changes nothing (`already`)."""
    reason = check_reason(reason)
    import_id = (import_id or "").strip()
    if not is_hosted() and not database_path().exists():  # a writer would create an empty warehouse
        raise RetractionError(f"no import {import_id!r}: no warehouse at {database_path()}")
    with db.connect() as connection, transaction(connection):
        runs = connection.execute(
            f"SELECT run_id, source, rows_loaded FROM raw.ingest_runs WHERE trigger = 'import' AND {IMPORT_ID_SQL} = ?"
            " ORDER BY run_id", [import_id]).fetchall()
        if runs:
            kind, source, units, rows = "prices", runs[0][1], [run_id for run_id, _, _ in runs], sum(r[2] for r in runs)
        else:
            quotes = connection.execute("SELECT count(*) FROM raw.quotes WHERE load_id = ?", [import_id]).fetchone()[0]
            if not quotes:
                raise RetractionError(f"no import {import_id!r}: `gpuprices import list` names each import (a price "
                                      "file's run id, a quotes load id); scraped runs cannot be retracted")
            kind, source, units, rows = "quotes", None, [import_id], quotes
        earlier = connection.execute("SELECT min(retracted_at), any_value(reason) FROM raw.retractions "
                                     "WHERE import_id = ?", [import_id]).fetchone()
        if earlier[0] is not None:
            return Retraction(import_id, kind, source, len(units), rows, earlier[0], earlier[1], already=True)
        now = datetime.now(UTC)
        connection.executemany("INSERT INTO raw.retractions VALUES (?, ?, ?, ?, ?, ?)",
                               [[import_id, kind, unit, source, now, reason] for unit in units])
    return Retraction(import_id, kind, source, len(units), rows, now, reason)


LIST_SQL = f"""
WITH day_runs AS (
    SELECT {IMPORT_ID_SQL} AS import_id, run_id, source, observed_at, started_at, rows_loaded
    FROM raw.ingest_runs WHERE trigger = 'import'
),
files AS (
    SELECT run_id, any_value(replace(url, 'import:', '')) AS file FROM raw.landing_documents GROUP BY run_id
),
prices AS (
    SELECT import_id, 'prices' AS kind, any_value(source) AS source, any_value(files.file) AS file,
        -- text, not dates: a row a past version let in (year 9999) still lists
        strftime(timezone('UTC', min(observed_at)), '%Y-%m-%d') AS first_day,
        strftime(timezone('UTC', max(observed_at)), '%Y-%m-%d') AS last_day,
        count(*) AS days, sum(rows_loaded) AS rows, min(started_at) AS imported_at
    FROM day_runs LEFT JOIN files USING (run_id)
    GROUP BY import_id
),
quotes AS (
    SELECT load_id AS import_id, 'quotes' AS kind, NULL AS source, any_value(file_name) AS file,
        strftime(min(quote_date), '%Y-%m-%d') AS first_day, strftime(max(quote_date), '%Y-%m-%d') AS last_day,
        count(DISTINCT quote_date) AS days, count(*) AS rows, min(loaded_at) AS imported_at
    FROM raw.quotes GROUP BY load_id
),
held_back AS (
    SELECT run_id AS import_id, count(*) AS held_back FROM raw.quarantine WHERE scope = 'row' GROUP BY run_id
),
retracted AS (
    SELECT import_id, min(retracted_at) AS retracted_at, any_value(reason) AS reason
    FROM {{retractions}} GROUP BY import_id
)
SELECT imports.import_id, kind, source, file, first_day, last_day, days, rows,
    coalesce(held_back.held_back, 0) AS held_back, imported_at, retracted.retracted_at, retracted.reason
FROM (SELECT * FROM prices UNION ALL SELECT * FROM quotes) AS imports
LEFT JOIN held_back USING (import_id)
LEFT JOIN retracted USING (import_id)
ORDER BY imported_at, imports.import_id
"""


def list_imports() -> list[dict]:
    """Every import (price files and quotes files), oldest first, with its retraction if it was taken back."""
    with db.connect(read_only=True) as connection:
        # a warehouse no writer of this version has opened yet has no raw.retractions: nothing is retracted
        retractions = ("raw.retractions" if _has_table(connection) else
                       "(SELECT NULL::VARCHAR AS import_id, NULL::TIMESTAMPTZ AS retracted_at, "
                       "NULL::VARCHAR AS reason WHERE false)")
        return db.fetch_dicts(connection, LIST_SQL.replace("{retractions}", retractions))
