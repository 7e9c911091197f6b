"""The `gpuprices` entry point: every command group's commands on one parser."""

from __future__ import annotations

import argparse
import sys

from flows.cli import alerts, analysis, data, pipeline, tools
from flows.cli.common import UsageError, one_line

GROUPS = (pipeline, data, analysis, alerts, tools)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpuprices", description="Open GPU price warehouse")
    commands = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (FileNotFoundError, UsageError) as error:
        print(f"gpuprices: {one_line(error)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
