"""`gpuprices dashboard serve`: the built site over HTTP on 127.0.0.1 only (the files also open from disk)."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def server(site: Path, port: int = 0) -> ThreadingHTTPServer:
    if not (site / "index.html").exists():
        raise FileNotFoundError(f"no site at {site}: run `gpuprices dashboard build` first")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(site: Path, port: int = 8400) -> None:
    with server(site, port) as httpd:
        host, bound_port = httpd.server_address[:2]
        print(f"serving {site} on http://{host}:{bound_port}/ (Ctrl-C stops)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
