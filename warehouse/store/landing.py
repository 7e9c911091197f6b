"""The landing zone: every raw response on disk, before anything parses it.

<home>/landing/<source>/<YYYY-MM-DD>/<run_id>/
    manifest.json        source, run_id, observed_at, data_origin, and per document: url, status, fetched_at,
                         sha256 and size of the uncompressed body, file name
    000.json.gz ...      the bodies, gzip-compressed

A run directory is written under a temporary name and renamed into place, so a crash never leaves half a run.
The run id is derived from the source, the observation time and the bodies' hashes: the same observation landed
twice is the same run (that is what makes loading idempotent).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from config.settings import data_home
from scrapers.http import SPOOL_CHUNK_BYTES, RawDocument, spool_dir
from warehouse.store.paths import landing_root

# captured: a real response of that day. imported: real observations someone else made, loaded from a file
# (`gpuprices import prices`). stale_capture: a real response from another (or an unknown) date, replayed as if
# fetched on the replay day. reconstructed: a documented format rebuilt from real prices. synthetic: made up.
DATA_ORIGINS = ("captured", "imported", "stale_capture", "reconstructed", "synthetic")
REAL_DATA_ORIGINS = ("captured", "imported")


@dataclass
class LandedRun:
    source: str
    run_id: str
    observed_at: datetime
    data_origin: str  # one of DATA_ORIGINS; anything but a real one (REAL_DATA_ORIGINS) is flagged synthetic
    directory: Path
    documents: list[RawDocument]
    document_files: list[str]

    @property
    def is_synthetic(self) -> bool:
        return self.data_origin not in REAL_DATA_ORIGINS

    @functools.cached_property
    def relative_path(self) -> str:
        """Relative to the data home for landed runs; absolute for a file parsed ad hoc (`gpuprices parse`). Cached:
        every offer's landing_ref asks for it."""
        try:
            return str(self.directory.relative_to(data_home()))
        except ValueError:
            return str(self.directory)

    def landing_ref(self, document_index: int) -> str:
        return f"{self.relative_path}/{self.document_files[document_index]}"

    @property
    def bytes_fetched(self) -> int:
        return sum(document.size for document in self.documents)

    def discard_spools(self) -> None:
        for document in self.documents:
            document.discard_spool()


# A landed body bigger than this is read back into a spool file, not into memory. Above every source's default body
# cap (scrapers/http.py, 25 MB): only the AWS offer files, whose parser reads spooled documents, get there.
SPOOL_ABOVE_BYTES = 64 * 1024**2


def sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def compute_run_id(source: str, observed_at: datetime, documents: list[RawDocument],
                   hashes: list[str] | None = None) -> str:
    """`hashes`: the documents' sha256 when the caller has them (hashing a spooled offer file reads it whole)."""
    hashes = hashes or [document.sha256() for document in documents]
    digest = hashlib.sha256(f"{source}|{observed_at.isoformat()}".encode())
    for document, body_hash in zip(documents, hashes, strict=True):
        digest.update(f"|{document.url}|{body_hash}".encode())
    return f"{source}-{observed_at:%Y%m%dT%H%M%SZ}-{digest.hexdigest()[:12]}"


def _extension(document: RawDocument) -> str:
    content_type = document.content_type.lower()
    path = document.url.split("?", 1)[0].lower()
    for marker, extension in (("json", "json"), ("csv", "csv"), ("html", "html")):
        if marker in content_type or path.endswith(f".{marker}"):
            return extension
    return "bin"


def land(source: str, observed_at: datetime, documents: list[RawDocument], data_origin: str = "captured") -> LandedRun:
    if data_origin not in DATA_ORIGINS:
        raise ValueError(f"data_origin must be one of {DATA_ORIGINS}")
    hashes = [document.sha256() for document in documents]  # streamed for a spooled body, once
    run_id = compute_run_id(source, observed_at, documents, hashes)
    directory = landing_root() / source / observed_at.date().isoformat() / run_id
    if (directory / "manifest.json").exists():  # the same observation was landed before: nothing to write
        for document in documents:
            document.discard_spool()
        return read_landed(directory)
    files = [f"{index:03d}.{_extension(document)}.gz" for index, document in enumerate(documents)]
    manifest = {
        "source": source,
        "run_id": run_id,
        "observed_at": observed_at.isoformat(),
        "data_origin": data_origin,
        "documents": [
            {
                "index": index,
                "url": document.url,
                "status": document.status,
                "fetched_at": document.fetched_at.isoformat(),
                "content_type": document.content_type,
                "sha256": hashes[index],
                "bytes": document.size,
                "file": files[index],
            }
            for index, document in enumerate(documents)
        ],
    }
    temporary = directory.with_name(f".{run_id}.tmp-{os.getpid()}")
    if directory.parent.exists():  # a process killed while landing this run left its half-written copy
        for stale in directory.parent.glob(f".{run_id}.tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
    temporary.mkdir(parents=True)
    for document, name in zip(documents, files, strict=True):
        # level 9 costs ~5x for ~15% smaller files; a spooled body is compressed as a stream
        with document.open() as source_stream, (temporary / name).open("wb") as raw_file, \
                gzip.GzipFile(fileobj=raw_file, mode="wb", compresslevel=1, mtime=0, filename="") as sink:
            shutil.copyfileobj(source_stream, sink, SPOOL_CHUNK_BYTES)
    (temporary / "manifest.json").write_text(json.dumps(manifest, indent=2))
    try:
        temporary.rename(directory)
    except OSError:
        shutil.rmtree(temporary, ignore_errors=True)  # another process landed the same run first
        if not (directory / "manifest.json").exists():
            raise
        for document in documents:
            document.discard_spool()
        return read_landed(directory)
    # What was just written, from memory (reading it back would decompress and hash every body again).
    return LandedRun(source=source, run_id=run_id, observed_at=observed_at, data_origin=data_origin,
                     directory=directory, documents=list(documents), document_files=files)


def read_landed(directory: Path) -> LandedRun:
    manifest = json.loads((directory / "manifest.json").read_text())
    documents, files = [], []
    for entry in manifest["documents"]:
        body, spool = b"", None
        if entry["bytes"] > SPOOL_ABOVE_BYTES:  # a very large body: back into a spool file, in bounded memory
            spool, body_hash = _unpack_to_spool(directory / entry["file"])
        else:
            body = gzip.decompress((directory / entry["file"]).read_bytes())
            body_hash = sha256(body)
        document = RawDocument(url=entry["url"], status=entry["status"], body=body, spool=spool,
                               fetched_at=datetime.fromisoformat(entry["fetched_at"]),
                               content_type=entry.get("content_type", ""))
        if body_hash != entry["sha256"]:
            document.discard_spool()
            raise ValueError(f"{directory / entry['file']}: sha256 mismatch, the landed file is corrupt")
        documents.append(document)
        files.append(entry["file"])
    return LandedRun(
        source=manifest["source"],
        run_id=manifest["run_id"],
        observed_at=datetime.fromisoformat(manifest["observed_at"]),
        data_origin=manifest["data_origin"],
        directory=directory,
        documents=documents,
        document_files=files,
    )


def iter_landed_runs(source: str | None = None, since: date | None = None) -> Iterator[Path]:
    """Run directories in (source, date, run id) order."""
    root = landing_root()
    if not root.exists():
        return
    for source_dir in sorted(root.iterdir()):
        if source and source_dir.name != source:
            continue
        for day_dir in sorted(p for p in source_dir.iterdir() if p.is_dir()):
            if since and date.fromisoformat(day_dir.name) < since:
                continue
            for run_dir in sorted(day_dir.iterdir()):
                if not run_dir.name.startswith(".") and (run_dir / "manifest.json").exists():
                    yield run_dir


def _unpack_to_spool(path: Path) -> tuple[Path, str]:
    """The landed body unpacked into a spool file, and its sha256 taken on the way (one pass over it)."""
    spool_dir().mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix="landed-", dir=spool_dir())
    digest = hashlib.sha256()
    with os.fdopen(handle, "wb") as sink, gzip.open(path, "rb") as source_stream:
        while chunk := source_stream.read(SPOOL_CHUNK_BYTES):
            digest.update(chunk)
            sink.write(chunk)
    return Path(name), digest.hexdigest()
