"""`gpuprices bench aws`: one AWS EC2 offer file of realistic size through the real fetch, landing and parse, in
bounded memory.

A SYNTHETIC offer file (made-up products and prices in the real structure: `products` keyed by SKU with
`attributes`, then `terms.OnDemand` / `terms.Reserved` keyed by SKU; about 3,500 bytes per SKU as in the real
files) of `--megabytes` (default 500) is written to disk, served from 127.0.0.1, fetched by the `aws` source's own
fetch code (streamed to a spool file), landed (gzip from the spool) and parsed (ijson, three passes), all in a
child process whose peak resident memory is read from the kernel (ru_maxrss). Printed: file size, seconds per
step, GPU offers parsed, peak memory (target < 1 GB per file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from config.settings import use_data_home
from scrapers.cloud.aws import AwsEc2
from scrapers.http import HttpClient, HttpSettings
from scrapers.replay import rewrite_to
from warehouse.store.landing import land

# Real instance types of the GPU families the parser knows, and common non-GPU ones (most of a real file).
GPU_TYPES = [("p5.48xlarge", 8), ("p4d.24xlarge", 8), ("g5.xlarge", 1), ("g6e.12xlarge", 4), ("g4dn.xlarge", 1)]
OTHER_TYPES = ["m5.large", "c5.xlarge", "r6i.2xlarge", "t3.medium", "m7g.4xlarge", "c6gn.16xlarge"]
OPERATING_SYSTEMS = ["Linux", "Windows", "RHEL", "SUSE"]
TENANCIES = ["Shared", "Dedicated", "Host"]


def _product(sku: str, instance_type: str, gpus: int, number: int) -> dict:
    attributes = {
        "servicecode": "AmazonEC2", "location": "US East (N. Virginia)", "locationType": "AWS Region",
        "instanceType": instance_type, "currentGeneration": "Yes", "instanceFamily": "Accelerated Computing",
        "vcpu": "96", "physicalProcessor": "Intel Xeon Platinum 8488C", "clockSpeed": "3.2 GHz",
        "memory": "2048 GiB", "storage": "8 x 3840 NVMe SSD", "networkPerformance": "3200 Gigabit",
        "processorArchitecture": "64-bit", "tenancy": TENANCIES[number % 3],
        "operatingSystem": OPERATING_SYSTEMS[number % 4], "licenseModel": "No License required",
        "usagetype": f"BoxUsage:{instance_type}", "operation": "RunInstances", "capacitystatus": "Used",
        "ecu": "NA", "enhancedNetworkingSupported": "Yes", "intelAvxAvailable": "Yes", "gpu": str(gpus),
        "normalizationSizeFactor": "192", "preInstalledSw": "NA", "regionCode": "us-east-1",
        "servicename": "Amazon Elastic Compute Cloud", "vpcnetworkingsupport": "true",
    }
    return {"sku": sku, "productFamily": "Compute Instance", "attributes": attributes}


def _on_demand(sku: str, price: str) -> dict:
    code = f"{sku}.JRTCKXETXF"
    return {code: {"offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-04-01T00:00:00Z",
                   "termAttributes": {}, "priceDimensions": {f"{code}.6YS6EN2CT7": {
                       "rateCode": f"{code}.6YS6EN2CT7", "description": "SYNTHETIC on-demand", "beginRange": "0",
                       "endRange": "Inf", "unit": "Hrs", "pricePerUnit": {"USD": price}, "appliesTo": []}}}}


def _reserved(sku: str, price: str) -> dict:
    terms = {}
    for code, length, option in (("HU7G6KETJZ", "1yr", "Partial Upfront"), ("38NPMPTW36", "3yr", "All Upfront"),
                                 ("4NA7Y494T4", "1yr", "No Upfront")):
        key = f"{sku}.{code}"
        terms[key] = {"offerTermCode": code, "sku": sku, "effectiveDate": "2026-04-01T00:00:00Z",
                      "termAttributes": {"LeaseContractLength": length, "OfferingClass": "standard",
                                         "PurchaseOption": option},
                      "priceDimensions": {
                          f"{key}.2TG2D8R56U": {"rateCode": f"{key}.2TG2D8R56U", "description": "Upfront Fee",
                                                "unit": "Quantity", "pricePerUnit": {"USD": "1000"}, "appliesTo": []},
                          f"{key}.6YS6EN2CT7": {"rateCode": f"{key}.6YS6EN2CT7", "description": "SYNTHETIC",
                                                "beginRange": "0", "endRange": "Inf", "unit": "Hrs",
                                                "pricePerUnit": {"USD": price}, "appliesTo": []}}}
    return terms


def write_offer_file(path: Path, megabytes: int) -> int:
    """Stream a synthetic offer file of about `megabytes` MB to `path`; returns the number of SKUs."""
    skus = max(1, megabytes * 1_000_000 // 3_500)
    names = [f"SYNTH{number:011d}" for number in range(skus)]

    def kind(number: int) -> tuple[str, int]:
        if number % 50 == 0:  # ~2% GPU products, as in a real regional file
            return GPU_TYPES[(number // 50) % len(GPU_TYPES)]
        return OTHER_TYPES[number % len(OTHER_TYPES)], 0

    with path.open("w") as out:
        out.write('{"formatVersion":"v1.0","disclaimer":"SYNTHETIC: made-up products and prices in the real '
                  'structure","offerCode":"AmazonEC2","version":"synthetic","publicationDate":"2026-04-01T00:00:00Z",'
                  '"products":{')
        for number, sku in enumerate(names):
            instance_type, gpus = kind(number)
            out.write(("," if number else "") + json.dumps(sku) + ":" + json.dumps(_product(sku, instance_type, gpus, number)))
        out.write('},"terms":{"OnDemand":{')
        for number, sku in enumerate(names):
            out.write(("," if number else "") + json.dumps(sku) + ":" + json.dumps(_on_demand(sku, f"{1 + number % 97}.5")))
        out.write('},"Reserved":{')
        for number, sku in enumerate(names):
            out.write(("," if number else "") + json.dumps(sku) + ":" + json.dumps(_reserved(sku, f"{number % 13}.25")))
        out.write("}}}")
    return skus


def _serve(path: Path) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(path.stat().st_size))
            self.end_headers()
            with path.open("rb") as body:
                while chunk := body.read(1 << 20):
                    self.wfile.write(chunk)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _child(base_url: str, home: str) -> None:
    """In the child process: fetch, land and parse one region file; print the figures as JSON."""
    with use_data_home(Path(home)):
        print(json.dumps(_fetch_land_parse(base_url)))


def _fetch_land_parse(base_url: str) -> dict:
    source = AwsEc2(regions=("us-east-1",))
    figures = {}

    async def fetch():
        async with HttpClient(HttpSettings(per_host_min_interval_s=0), rewrite=rewrite_to(base_url)) as client:
            return await source.fetch(client)

    started = time.monotonic()
    documents = asyncio.run(fetch())
    figures["fetch_s"] = time.monotonic() - started
    started = time.monotonic()
    run = land("aws", datetime.now(UTC), documents, "synthetic")
    figures["land_s"] = time.monotonic() - started
    started = time.monotonic()
    offers = source.parse(run.documents)
    figures["parse_s"] = time.monotonic() - started
    run.discard_spools()
    figures["offers"] = len(offers)
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    return figures


def bench_aws(megabytes: int = 500) -> str:
    with tempfile.TemporaryDirectory(prefix="gpuprices-bench-aws-") as work:
        path = Path(work) / f"synthetic_offer_file_{megabytes}mb.json"
        started = time.monotonic()
        skus = write_offer_file(path, megabytes)
        written_s = time.monotonic() - started
        server, base_url = _serve(path)
        try:
            child = subprocess.run([sys.executable, "-c", f"from dev.bench_aws import _child; _child({base_url!r}, "
                                    f"{str(Path(work) / 'home')!r})"], capture_output=True, text=True, check=False,
                                   cwd=Path(__file__).resolve().parent.parent)
        finally:
            server.shutdown()
            server.server_close()
        if child.returncode != 0:
            return f"bench aws failed:\n{child.stderr[-3000:]}"
        figures = json.loads(child.stdout.strip().splitlines()[-1])
        size_mb = path.stat().st_size / 1e6
        verdict = "OK" if figures["peak_rss_mb"] < 1024 else "OVER"
        return "\n".join([
            f"SYNTHETIC AWS offer file: {size_mb:,.0f} MB, {skus:,} SKUs (written in {written_s:.1f} s)",
            f"fetch (streamed to a spool file) {figures['fetch_s']:.1f} s, land (gzip) {figures['land_s']:.1f} s, "
            f"parse (ijson, 3 passes) {figures['parse_s']:.1f} s; {figures['offers']:,} GPU offers",
            f"peak memory of the fetch-land-parse process: {figures['peak_rss_mb']:,.0f} MB "
            f"(target < 1024 MB per file) {verdict}",
        ])


def main(argv: list[str] | None = None) -> int:
    """`gpuprices bench aws [options]` runs this (python -m dev.bench_aws)."""
    parser = argparse.ArgumentParser(prog="gpuprices bench aws", description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=500, help="size of the synthetic offer file")
    args = parser.parse_args(argv)
    print(bench_aws(args.megabytes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
