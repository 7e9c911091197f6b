"""Builds the bundled real price histories the offline run imports (warehouse/ingest/histories.py lists them), from the
sample files given on the command line. Dev code only: nothing at runtime or in the tests reads the samples.

    uv run python -m dev.recordings.build_histories \\
        --gcp SAMPLES/gcp_list_prices/gcp_gpu_instance_prices.csv.gz --idealo SAMPLES/idealo_de/idealo_daily.csv

- `--gcp`: Google Cloud GPU instance list prices, one row per weekly revision x instance type x region, wide
  (hour, hour_spot, month, month_1y, month_3y, month_spot; USD per instance). Written in the project's import CSV
  format (warehouse/ingest/imports.py CSV_COLUMNS + provider, region, title, per, gpu_count), gzipped, to
  recordings/history/gcp_list_prices/gcp_gpu_prices.csv.gz: one row per revision x instance x region x market
  (see `gcp_rows`).
- `--idealo`: idealo.de's lowest new-card offer per day (EUR): copied byte for byte to
  recordings/history/idealo_de/idealo_daily.csv (imported with a column map, warehouse/ingest/histories.py).
- `--ecb` (default: the real history file in tests/fixtures/ecb/): the ECB reference rates up to the day before
  the first replay day, to recordings/ecb/eurofxref-hist_to_2026-04-01.zip (the replay serves the days after).

Every output is byte-reproducible (gzip and zip without timestamps of the build), so importing a rebuilt file is
`already imported` unless its content changed. What each file is, and what was changed: the PROVENANCE.md beside it.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import shutil
import zipfile
from collections import Counter
from datetime import UTC, date, datetime
from decimal import Decimal, localcontext
from pathlib import Path

from dev.recordings.common import FIXTURES, RECORDINGS
from scrapers.gpu_names import resolve_gpu_id

HISTORY = RECORDINGS / "history"
GCP_OUT = HISTORY / "gcp_list_prices" / "gcp_gpu_prices.csv.gz"
IDEALO_OUT = HISTORY / "idealo_de" / "idealo_daily.csv"
ECB_LAST_DAY = date(2026, 4, 1)  # the replay's daily ECB files start on 2026-04-02 (recordings/index.json)
ECB_OUT = RECORDINGS / "ecb" / f"eurofxref-hist_to_{ECB_LAST_DAY.isoformat()}.zip"

# GCP's Cloud Billing Catalog prices a month as 730 hours (365 x 24 / 12), and the file's monthly figures are its
# hourly ones x 730: on every on-demand row month / hour = 730 (to 3e-10 USD, the rounding of the 14-place hourly
# figure; `check_month_is_730_hours` verifies it on each build). So an hourly committed-use price = month / 730.
HOURS_PER_MONTH = Decimal(730)
PLACES = Decimal("1e-10")  # raw.offers.price is DECIMAL(24, 10): month / 730 is written to the places it keeps
MONTH_TOLERANCE = Decimal("1e-6")
# A committed-use price is a discount on the on-demand price: 1 year 30-38% off, 3 years 55-66% off in this file
# (month_1y / month 0.62-0.70, month_3y / month 0.34-0.45). One under a quarter of the same machine's on-demand
# price (0.07-0.14 in the file) is the machine part without its GPU (a2-ultragpu-* of 2022-10-06 and -13 in every
# region, europe-west6 3-year prices of 2022-02/03).
MIN_COMMITMENT_SHARE = Decimal("0.25")

# The GPU of each GCP machine family, as GCP documents them (cloud.google.com/compute/docs/gpus), in names that
# resolve through scrapers/gpu_names.py; the file's own gpu_model for that family; the GPUs per machine type.
GCP_FAMILIES = {
    "a2-highgpu": ("A100 40GB SXM4", "a100-sxm4-40gb", "a100"),
    "a2-megagpu": ("A100 40GB SXM4", "a100-sxm4-40gb", "a100"),
    "a2-ultragpu": ("A100 80GB SXM4", "a100-sxm4-80gb", "a100-80gb"),
    "a3-highgpu": ("H100 80GB SXM", "h100-sxm5-80gb", "h100-80gb"),
    "a3-megagpu": ("H100 80GB SXM", "h100-sxm5-80gb", "h100-80gb-mega"),
    "g2-standard": ("L4", "l4-24gb", "l4"),
}
G2_GPUS = {"4": 1, "8": 1, "12": 1, "16": 1, "32": 1, "24": 2, "48": 4, "96": 8}  # g2-standard-<vCPUs>
GCP_OUTPUT_COLUMNS = ("observed_at", "gpu", "market", "price", "currency", "provider", "region", "title", "per",
                      "gpu_count")


class HistoryFileError(ValueError):
    """The sample is not what the converter knows: an unknown instance, a GPU count or month/hour rule broken."""


def gcp_machine(instance: str, file_gpu_count: str) -> tuple[str, int]:
    """(GPU name, GPUs per machine) of a GCP machine type; raises on a family or size GCP does not document."""
    family, _, size = instance.rpartition("-")
    if family not in GCP_FAMILIES:
        raise HistoryFileError(f"unknown GCP machine type {instance!r}: add its family to GCP_FAMILIES "
                               f"(known: {', '.join(GCP_FAMILIES)})")
    gpu, gpu_id, _ = GCP_FAMILIES[family]
    if resolve_gpu_id(gpu, "gcp") != gpu_id:
        raise HistoryFileError(f"{gpu!r} no longer resolves to {gpu_id} (scrapers/gpu_names.py)")
    if family == "g2-standard":
        count = G2_GPUS.get(size)
    else:
        count = int(size[:-1]) if size.endswith("g") and size[:-1].isdigit() else None
    if count is None:
        raise HistoryFileError(f"unknown GCP machine type {instance!r}: no documented GPU count")
    if str(count) != file_gpu_count.strip():
        raise HistoryFileError(f"{instance}: the file says {file_gpu_count} GPUs, GCP documents {count}")
    return gpu, count


def _amount(text: str) -> Decimal | None:
    text = (text or "").strip()
    return Decimal(text) if text else None


def per_hour(monthly: Decimal) -> Decimal:
    """A monthly price per hour at GCP's 730 hours a month, exact to the places raw.offers keeps."""
    with localcontext() as context:
        context.prec = 40
        return (monthly / HOURS_PER_MONTH).quantize(PLACES)


def check_month_is_730_hours(row: dict) -> None:
    """The file's own monthly figure is its hourly one x 730 (on-demand and spot): the rule month -> hour rests on."""
    for hourly, monthly in (("hour", "month"), ("hour_spot", "month_spot")):
        hour, month = _amount(row[hourly]), _amount(row[monthly])
        if hour is not None and month is not None and abs(month - hour * HOURS_PER_MONTH) > MONTH_TOLERANCE:
            raise HistoryFileError(f"{row['commit'][:8]} {row['instance']} {row['region']}: {monthly} {month} is "
                                   f"not {hourly} {hour} x 730; the month -> hour rule does not hold")


def commitment_left_out(monthly: Decimal | None, on_demand_month: Decimal, fill_ins: tuple) -> str | None:
    """Why a committed-use monthly price is not written (None: it is). Both rules need the wide row (the same
    machine's on-demand price beside it), which the import format no longer has; a price that only looks wrong
    beside the same GPU elsewhere (the region without the GPU part) is written, for the importer to quarantine."""
    if monthly is None:
        return "blank"
    if monthly in fill_ins:
        return "equal to the on-demand (or 1-year) price: the file's fill-in where there was no commitment price"
    if 0 < monthly < on_demand_month * MIN_COMMITMENT_SHARE:
        return (f"under {MIN_COMMITMENT_SHARE:.0%} of the same machine's on-demand price: the machine part without "
                "its GPU (GCP's deepest commitment, 3 years, is 55-66% off)")
    return None


def gcp_rows(rows, skipped: Counter) -> list[dict]:
    """One import row per revision x instance x region x market, priced per instance-hour (with gpu_count):
    on_demand = hour, spot = hour_spot, reserved_1y = month_1y / 730, reserved_3y = month_3y / 730.

    Every price the file states is written, the implausible ones too (a region listing the machine without its GPU
    part, far below the same GPU elsewhere; a committed price of 0): the importer's row rules quarantine them with a
    reason. Left out, counted in `skipped` (and in recordings/history/gcp_list_prices/PROVENANCE.md), are only
    figures the wide row itself shows are not prices of the GPU named, which the one-market-per-row import format
    could no longer tell:
    - a blank price (no spot before 2023-05, no committed-use price for A100 80GB from 2024-09);
    - a machine priced with another family's GPU: the file's gpu_model contradicts the machine type (a2-ultragpu-*
      rows of 2022-09 say `a100` and are priced with the A100 40GB GPU, not the 80GB the machine has);
    - a committed-use price that is no discount on the same row's on-demand price (`commitment_left_out`): equal
      to it or, for 3 years, to the 1-year price (the file's fill-in), or under a quarter of it (the machine part
      without its GPU, in every region at once, so nothing "elsewhere" to compare with).
    """
    out = []
    for row in rows:
        instance = row["instance"].strip()
        gpu, count = gcp_machine(instance, row["gpu_count"])
        check_month_is_730_hours(row)
        family = instance.rpartition("-")[0]
        if row["gpu_model"].strip() != GCP_FAMILIES[family][2]:
            if row["gpu_model"].strip() not in {f[2] for f in GCP_FAMILIES.values()}:
                raise HistoryFileError(f"{instance}: unknown gpu_model {row['gpu_model']!r}")
            skipped["priced with another GPU (gpu_model contradicts the machine type)"] += 1
            continue
        observed_at = datetime.fromisoformat(row["commit_time"]).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        month, month_1y, month_3y = _amount(row["month"]), _amount(row["month_1y"]), _amount(row["month_3y"])
        prices = {"on_demand": _amount(row["hour"]), "spot": _amount(row["hour_spot"])}
        for market, monthly, fill_ins in (("reserved_1y", month_1y, (month,)),
                                          ("reserved_3y", month_3y, (month, month_1y))):
            reason = commitment_left_out(monthly, month, fill_ins)
            if reason:
                skipped[f"{market}: {reason}"] += 1
            else:
                prices[market] = per_hour(monthly)
        for market, price in prices.items():
            if price is None:
                skipped[f"{market}: blank"] += 1
                continue
            out.append({"observed_at": observed_at, "gpu": gpu, "market": market, "price": f"{price:f}",
                        "currency": "USD", "provider": "gcp", "region": row["region"].strip(), "title": instance,
                        "per": "instance_hour", "gpu_count": str(count)})
    return out


def _shown(path: Path) -> str:
    return str(path.relative_to(RECORDINGS.parent) if path.is_relative_to(RECORDINGS.parent) else path)


def write_csv_gz(path: Path, columns, rows: list[dict]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as handle:
        handle.write(text.getvalue().encode())
    path.write_bytes(buffer.getvalue())


def build_gcp(sample: Path, out: Path = GCP_OUT) -> Counter:
    with gzip.open(sample, "rt", newline="") as handle:
        rows = list(csv.DictReader(handle))
    skipped: Counter = Counter()
    converted = gcp_rows(rows, skipped)
    # offer by offer, each in time order: consecutive rows repeat a price for weeks, which gzip packs tight
    converted.sort(key=lambda r: (r["title"], r["region"], r["market"], r["observed_at"]))
    write_csv_gz(out, GCP_OUTPUT_COLUMNS, converted)
    counts = Counter(row["market"] for row in converted)
    print(f"{_shown(out)}: {len(rows)} sample rows -> {len(converted)} import rows "
          f"({', '.join(f'{m} {n}' for m, n in sorted(counts.items()))}); {out.stat().st_size} bytes")
    for reason, count in sorted(skipped.items()):
        print(f"  left out: {count} {reason}")
    return skipped


def build_idealo(sample: Path, out: Path = IDEALO_OUT) -> None:
    header = sample.open(newline="").readline().strip()
    if header != "date,idealo_id,listing_name,gpu_type,price_eur_lowest,url":
        raise HistoryFileError(f"{sample}: unexpected header {header!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sample, out)
    print(f"{_shown(out)}: copied, {out.stat().st_size} bytes")


def build_ecb(history: Path = FIXTURES / "ecb" / "eurofxref-hist.zip", out: Path = ECB_OUT,
              last_day: date = ECB_LAST_DAY) -> None:
    """The real history file's lines up to `last_day` (the header and each line kept byte for byte), re-zipped."""
    with zipfile.ZipFile(history) as archive:
        lines = archive.read("eurofxref-hist.csv").decode().splitlines(keepends=True)
    kept = [lines[0]] + [line for line in lines[1:] if line[:10] <= last_day.isoformat()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        stamp = (last_day.year, last_day.month, last_day.day, 16, 0, 0)  # when its last rates were published
        member = zipfile.ZipInfo("eurofxref-hist.csv", date_time=stamp)
        member.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(member, "".join(kept))
    out.write_bytes(buffer.getvalue())
    print(f"{_shown(out)}: {len(kept) - 1} days {kept[-1][:10]} .. {kept[1][:10]}, "
          f"{out.stat().st_size} bytes")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gcp", type=Path, help="gcp_gpu_instance_prices.csv.gz (the wide GCP list-price history)")
    parser.add_argument("--idealo", type=Path, help="idealo_daily.csv")
    parser.add_argument("--ecb", type=Path, help="eurofxref-hist.zip (default: tests/fixtures/ecb/)",
                        default=FIXTURES / "ecb" / "eurofxref-hist.zip")
    args = parser.parse_args(argv)
    if args.gcp:
        build_gcp(args.gcp)
    if args.idealo:
        build_idealo(args.idealo)
    build_ecb(args.ecb)


if __name__ == "__main__":
    main()
