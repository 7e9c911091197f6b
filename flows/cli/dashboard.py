"""The static site: `gpuprices dashboard build|serve`."""

from __future__ import annotations

import argparse
import sys

from dashboards.build import build as build_site
from dashboards.build import site_root
from dashboards.serve import serve


def cmd_dashboard(args) -> int:
    if args.action == "build":
        pages = build_site()
        print(f"{len(pages)} pages in {site_root()}; open {site_root() / 'index.html'} or `gpuprices dashboard serve`")
        return 0
    try:
        serve(site_root(), port=args.port)
    except FileNotFoundError:
        raise  # no site yet: one line from main
    except OSError as error:  # the port is taken, or not ours to listen on
        print(f"gpuprices dashboard serve: cannot listen on 127.0.0.1:{args.port}: {error.strerror or error} "
              "(--port another one, or 0 for any free port)", file=sys.stderr)
        return 1
    return 0


def port(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0 = any free port)")
    return number


def register(commands) -> None:
    dash = commands.add_parser("dashboard", help="build the static dashboard site (<home>/site) or serve it locally")
    dash.add_argument("action", choices=["build", "serve"])
    dash.add_argument("--port", type=port, default=8400, help="serve: port on 127.0.0.1 (0 = any free port)")
    dash.set_defaults(func=cmd_dashboard)
