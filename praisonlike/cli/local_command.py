"""``praisonlike local status`` / ``local stop``: the warm local model servers.

``status`` lists each warm server (model, pid, port, idle time, client
processes, keep-alive); ``stop`` ends them now (``--model NAME`` only that
model's). Tokens are never printed. See docs/local-models.md, "Warm server".
"""

from __future__ import annotations

import argparse

from rich.table import Table
from rich.text import Text

from praisonlike.cli.failures import ExitCode
from praisonlike.cli.output import Output


def add_local(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``local status`` and ``local stop``."""
    local = commands.add_parser(
        "local",
        help="show or stop the warm local model servers",
        description="Show (status) or stop (stop) the warm llama.cpp servers of --model local.",
    )
    actions = local.add_subparsers(dest="local_command", metavar="ACTION", required=True)
    actions.add_parser("status", help="list the running warm servers")
    stop = actions.add_parser("stop", help="stop the warm servers now")
    stop.add_argument("--model", metavar="NAME", help="stop only this model's server")


def run_local(args: argparse.Namespace, output: Output) -> ExitCode:
    """Run ``local status`` or ``local stop``; both exit 0 when none is running."""
    from praisonlike.models.local import warm_server

    if args.local_command == "stop":
        alias = args.model.removeprefix("local/") if args.model else None
        stopped = warm_server.stop_servers(alias)
        for state in stopped:
            output.info(f"stopped {state.alias} (pid {state.pid}, port {state.port})")
        if not stopped:
            output.info("no warm local model server is running")
        return ExitCode.OK
    statuses = [status for status in warm_server.server_statuses() if status.alive]
    if not statuses:
        output.info("no warm local model server is running")
        return ExitCode.OK
    table = Table(title="warm local model servers")
    for column in ("Model", "PID", "Port", "Idle", "Clients", "Keep-alive"):
        table.add_column(column, no_wrap=True)
    for status in statuses:
        state = status.state
        table.add_row(
            Text(state.alias),
            str(state.pid),
            str(state.port),
            _duration(status.idle_seconds),
            str(status.clients),
            "forever" if state.keep_alive < 0 else _duration(state.keep_alive),
        )
    output.out.print(table)
    return ExitCode.OK


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
