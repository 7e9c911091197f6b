"""How the warehouse is doing: `gpuprices status` (runs, freshness, quarantine) and `incidents`."""

from __future__ import annotations

import sys
from datetime import UTC

from flows.cli.common import duration, json_text, print_json_line
from warehouse.store.incidents import NoOpenIncident, close_by_hand, render_line
from warehouse.store.incidents import listed as listed_incidents
from warehouse.store.status import problems, render, status


def cmd_status(args) -> int:
    report = status()
    if not args.check:
        print(json_text(report, indent=2) if args.json else render(report))
        return 0
    found = problems(report, args.max_age)
    if args.json:
        print(json_text({**report, "problems": found}, indent=2))
    elif found:
        print("\n".join(found))
    else:
        feeds = sum(1 for source in report["sources"] if not source["is_imported"])
        print(f"ok: {feeds} source{'s' if feeds != 1 else ''}, none failed or stale, no open incident; newest run "
              f"{report['newest_run_at'].astimezone(UTC):%Y-%m-%d %H:%M} UTC, {report['newest_run_age_hours']} h ago")
    return 1 if found else 0


def cmd_incidents(args) -> int:
    """`incidents list [--all] [--json]`; `incidents close SOURCE --reason TEXT` (no message is sent)."""
    if args.action == "close":
        if not args.source or not (args.reason or "").strip():
            print("gpuprices incidents close: name the source and give --reason", file=sys.stderr)
            return 2
        try:
            incident = close_by_hand(args.source, args.reason)
        except NoOpenIncident as error:
            print(f"gpuprices incidents close: {error}", file=sys.stderr)
            return 1
        print(f"closed {incident['incident_id']} ({incident['kind']}): {incident['close_reason']}")
        return 0
    incidents = listed_incidents(open_only=not args.all)
    if args.json:
        for incident in incidents:
            print_json_line(incident)
    else:
        print("\n".join(render_line(incident) for incident in incidents) or
              ("no incident yet" if args.all else "no open incident"))
    return 0


def register(commands) -> None:
    status_command = commands.add_parser(
        "status", help="last run and freshness per source, open incidents, quarantine, unmatched GPU names",
        epilog="exit status: 0 = shown (--check: no problem); 1 = --check found a problem, one line each; "
               "2 = a usage error or no warehouse yet")
    status_command.add_argument("--json", action="store_true")
    status_command.add_argument(
        "--check", action="store_true",
        help="for a scheduler or monitor: one line per problem (a source whose last run failed, a source carried "
             "forward or dropped, an open source incident, the newest run older than --max-age by the clock) and "
             "exit 1; exit 0 when none")
    status_command.add_argument("--max-age", type=duration, default=duration("26h"),
                                help="--check: how old the newest run may be by the clock, e.g. 26h (default), 90m, 2d")
    status_command.set_defaults(func=cmd_status)

    incidents = commands.add_parser(
        "incidents", help="source incidents (a source that broke): list the open ones (--all: every one), or close "
                          "one by hand",
        epilog="exit status: 0 = listed or closed; 1 = no open incident to close; 2 = a usage error")
    incidents.add_argument("action", choices=["list", "close"], nargs="?", default="list")
    incidents.add_argument("source", nargs="?", help="close: the source whose open incident to close")
    incidents.add_argument("--reason", help="close: why (kept as its close_reason)")
    incidents.add_argument("--all", action="store_true", help="list: closed incidents too")
    incidents.add_argument("--json", action="store_true", help="list: JSON lines")
    incidents.set_defaults(func=cmd_incidents)
