"""The CLI imports only the group of the command it runs (flows/cli/main.py COMMAND_GROUPS): the table must name
every command each group registers, and a command must still find its group."""

from __future__ import annotations

import subprocess
import sys

from config.settings import PROJECT_ROOT
from flows.cli.main import COMMAND_GROUPS, GROUP_NAMES, OneLineParser, build_parser, group_module


def registered(name: str) -> set[str]:
    commands = OneLineParser(prog="gpuprices").add_subparsers(dest="command")
    group_module(name).register(commands)
    return set(commands.choices)


def test_the_table_names_every_command_of_every_group_and_nothing_else():
    table = {name: {command for command, group in COMMAND_GROUPS.items() if group == name} for name in GROUP_NAMES}
    assert table == {name: registered(name) for name in GROUP_NAMES}
    full = build_parser()._subparsers._group_actions[0].choices  # --help and an unknown command list them all
    assert set(full) == set(COMMAND_GROUPS)


def test_a_command_runs_with_its_group_only_and_without_the_others_imported():
    # `sql` never imports analytics, the dashboards or the source registry
    code = ("import sys; from flows.cli.main import main; main(['sql', 'select 1']); "
            "print(sorted(m for m in sys.modules if m.startswith(('analytics', 'dashboards', 'scrapers.registry'))))")
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert set(build_parser("estimate")._subparsers._group_actions[0].choices) == {"estimate"}
