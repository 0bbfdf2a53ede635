"""``praisonlike local status`` / ``local stop``: the warm local model servers.

``status`` lists each warm server (model, pid, port, idle time, client
processes, keep-alive); ``stop`` ends them now (``--model NAME`` only that
model's: ``local``, a local model's name with or without ``local/``, a
``local/<path>.gguf``, or the name a listed warm server serves; any other name
is a usage error, exit code 2). Tokens are never printed. See
docs/local-models.md, "Warm server".
"""

from __future__ import annotations

import argparse
from pathlib import PurePath
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output
from praisonlike.models.local.model_file import DEFAULT_LOCAL_MODEL, LOCAL_MODELS

if TYPE_CHECKING:
    from praisonlike.models.local.state_file import ServerState

LOCAL_PREFIX = "local"


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
    stop.add_argument(
        "--model",
        metavar="NAME",
        help="stop only this local model's server: local, "
        + ", ".join(sorted(LOCAL_MODELS))
        + " (with or without local/), or local/<path>.gguf",
    )


def run_local(args: argparse.Namespace, output: Output) -> ExitCode:
    """Run ``local status`` or ``local stop``; both exit 0 when none is running."""
    from praisonlike.models.local import warm_server

    if args.local_command == "stop":
        if args.model is not None:
            return _stop_one(args.model, output)
        stopped = warm_server.stop_servers()
        _print_stopped(stopped, output)
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


def _stop_one(name: str, output: Output) -> ExitCode:
    """``local stop --model NAME``: stop that model's warm server, or say it has none
    (and which ones run); a name that is no local model raises :class:`CommandFailed`."""
    from praisonlike.models.local import warm_server

    statuses = warm_server.server_statuses()
    alias = local_alias(name, {status.state.alias for status in statuses})
    stopped = warm_server.stop_servers(alias)
    _print_stopped(stopped, output)
    if not stopped:
        running = sorted({status.state.alias for status in statuses if status.alive} - {alias})
        others = f"running: {', '.join(running)}" if running else "none is running"
        output.info(f"no warm server for {alias} ({others})")
    return ExitCode.OK


def local_alias(name: str, listed: set[str] | frozenset[str] = frozenset()) -> str:
    """The name the warm server of local model ``name`` serves (``qwen2.5-coder-0.5b``).

    ``name`` is ``local`` (the default model), a name of :data:`LOCAL_MODELS`
    with or without ``local/``, a ``.gguf`` file (its stem, as the server names
    it), or one of ``listed`` (the names the warm servers on record serve).
    Anything else raises :class:`CommandFailed` (exit code 2) naming the local models.
    """
    rest = name.strip()
    if rest == LOCAL_PREFIX:
        return DEFAULT_LOCAL_MODEL
    rest = rest.removeprefix(f"{LOCAL_PREFIX}/")
    if rest in LOCAL_MODELS or rest in listed:
        return rest
    if rest.endswith(".gguf") and PurePath(rest).stem:
        return PurePath(rest).stem
    known = ", ".join(sorted(LOCAL_MODELS))
    serving = sorted(set(listed) - set(LOCAL_MODELS))
    also = f"; warm servers on record also serve {', '.join(serving)}" if serving else ""
    raise CommandFailed(
        f"--model {name!r} is not a local model; use local (that is {DEFAULT_LOCAL_MODEL}), "
        f"{known} (each also as local/<name>) or local/<path to a .gguf file>{also}",
        exit_code=ExitCode.USAGE,
        hint="`praisonlike local status` lists the warm servers that run",
    )


def _print_stopped(stopped: list[ServerState], output: Output) -> None:
    for state in stopped:
        output.info(f"stopped {state.alias} (pid {state.pid}, port {state.port})")


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
