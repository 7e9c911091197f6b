"""The `gpuprices` entry point: every command group's commands on one parser."""

from __future__ import annotations

import argparse
import os
import sys

import duckdb

from flows.cli import (
    alerts,
    analysis,
    dashboard,
    explain,
    health,
    imports,
    outlook,
    pipeline,
    query,
    reference,
    signals,
    tools,
)
from flows.cli.common import UsageError, one_line
from warehouse.store import db
from warehouse.store.db import WarehouseBusy, is_damaged_file_error, unreadable
from warehouse.store.paths import database_path

GROUPS = (pipeline, query, health, reference, imports, dashboard, analysis, explain, signals, outlook, alerts, tools)


class OneLineParser(argparse.ArgumentParser):
    """A typo in a command (a bad date, an unknown option) is one line and exit 2, like every other usage error;
    `--help` still prints the whole usage. The subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="gpuprices", description="Open GPU price warehouse")
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
    except WarehouseBusy as error:  # a writer gave up waiting for the warehouse file: an expected failure
        print(f"gpuprices {args.command}: {one_line(error)}", file=sys.stderr)
        return 1
    except duckdb.IOException as error:
        if not is_damaged_file_error(error):
            raise
        # a damaged warehouse file (at open, WarehouseUnreadable; or at a query that reads a block it lost)
        message = error if isinstance(error, db.WarehouseUnreadable) else unreadable(database_path(), error)
        print(f"gpuprices {args.command}: {one_line(message)}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (`gpuprices sql ... | head`): nothing more to say to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush does not raise again
        return 1


if __name__ == "__main__":
    sys.exit(main())
