"""The `gpuprices` entry point: every command group's commands on one parser."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

import duckdb

from flows.cli.common import UsageError, one_line
from warehouse.store import db
from warehouse.store.db import WarehouseBusy, is_damaged_file_error, unreadable
from warehouse.store.paths import database_path

# The command groups (flows/cli/<group>.py), in the order `--help` lists them, and the commands each registers. A
# command's own group is the only one imported to run it: importing every group (analytics, dashboards, the source
# registry) cost each call about 0.4 s of CPU. tests/flows/test_cli_groups.py holds this table to the modules.
GROUP_NAMES = ("pipeline", "query", "health", "reference", "imports", "dashboard", "analysis", "explain", "signals",
               "outlook", "alerts", "tools")
COMMAND_GROUPS = {
    **dict.fromkeys(("backfill", "build", "export", "fetch", "limits", "load", "parse", "reparse", "run", "serve"),
                    "pipeline"),
    "sql": "query",
    "incidents": "health", "status": "health",
    "docs": "reference", "schema": "reference", "settings": "reference", "sources": "reference",
    "import": "imports", "quotes": "imports",
    "dashboard": "dashboard",
    "estimate": "analysis",
    "explain": "explain",
    "backtest": "signals",
    "outlook": "outlook",
    "alerts": "alerts",
    "bench": "tools",
}


def group_module(name: str):
    return importlib.import_module(f"flows.cli.{name}")


class OneLineParser(argparse.ArgumentParser):
    """A typo in a command (a bad date, an unknown option) is one line and exit 2, like every other usage error;
    `--help` still prints the whole usage. The subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command`'s group only (a known command: the rest is not imported)."""
    parser = OneLineParser(prog="gpuprices", description="Open GPU price warehouse")
    commands = parser.add_subparsers(dest="command", required=True)
    names = (COMMAND_GROUPS[command],) if command in COMMAND_GROUPS else GROUP_NAMES
    for name in names:
        group_module(name).register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv[0] if argv else None).parse_args(argv)
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
