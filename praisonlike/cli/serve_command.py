"""``praisonlike serve``: run an agent's HTTP API with Uvicorn (docs/serving.md).

``praisonlike serve MODULE:AGENT`` serves the agent a module (or a ``.py`` file) defines;
``praisonlike serve --model MODEL`` serves the quickstart's weather agent on
MODEL (``local`` for the offline model). The host defaults to 127.0.0.1.
Without ``--tokens`` there is no auth, which is allowed only on a loopback
host, and the start-up line says so. Tokens are never printed.

The command binds its address before it loads the agent, and prints its
``praisonlike: serving ... on URL`` line once the server accepts connections;
anything that stops it from getting there exits with code 2 and one line.
While it serves, the ``praisonlike.serve`` logger's WARNING and ERROR records
go to stderr as ``praisonlike: <level>: <message>`` lines (a traceback under
an error), through the CLI's redacting stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import logging
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output, one_line
from praisonlike.errors import ConfigurationError


def add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` and its options."""
    from praisonlike.cli.parser import API_BASE_ENV, API_KEY_ENV

    serve = commands.add_parser(
        "serve",
        help="serve an agent over HTTP: SSE runs, OpenAI-compatible API, chat page",
        description=(
            "Serve MODULE:AGENT (an Agent defined in an importable module or a .py file), or with "
            "--model the quickstart weather agent on that model, with Uvicorn."
        ),
    )
    serve.add_argument(
        "target", nargs="?", metavar="MODULE:AGENT", help="e.g. myapp:agent or apps/myapp.py:agent"
    )
    serve.add_argument("--model", "-m", help="serve the quickstart agent on this model")
    serve.add_argument(
        "--api-base", default=os.environ.get(API_BASE_ENV) or None, help="with --model"
    )
    serve.add_argument(
        "--api-key", default=os.environ.get(API_KEY_ENV) or None, help="with --model"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=_port, default=8000, help="port, 0..65535; 0 picks a free one (default 8000)"
    )
    serve.add_argument(
        "--tokens",
        metavar="FILE",
        help='JSON file mapping bearer tokens to owners, {"token": "owner"}; needed off loopback',
    )
    serve.add_argument("--store", metavar="PATH_OR_URL", help="session store (default: in memory)")
    serve.add_argument(
        "--ping-interval", type=float, default=10.0, help="seconds between SSE pings (10)"
    )
    serve.add_argument(
        "--max-body-bytes", type=int, default=1 << 20, help="request body limit (1 MiB)"
    )
    serve.add_argument("--run-timeout", type=float, help="cap on each run, in seconds")


def run_serve(args: argparse.Namespace, output: Output) -> ExitCode:
    """Serve until interrupted; :class:`CommandFailed` (exit 2) when it cannot start."""
    from praisonlike.serve import INSTALL_HINT, require_serve_extra
    from praisonlike.serve.auth import is_loopback

    tokens = _read_tokens(args.tokens) if args.tokens else None
    if tokens is None and not is_loopback(args.host):
        raise CommandFailed(
            f"refusing to serve on {args.host} without auth",
            exit_code=ExitCode.USAGE,
            hint="pass --tokens FILE (a JSON object mapping tokens to owners), or bind 127.0.0.1",
        )
    try:
        require_serve_extra()
    except ConfigurationError as exc:
        raise CommandFailed(str(exc), exit_code=ExitCode.USAGE, hint=INSTALL_HINT) from exc
    with _listen(args.host, args.port) as listener:
        agent = _agent(args)
        try:
            app = agent.to_asgi(
                tokens=tokens,
                store=args.store,
                ping_interval=args.ping_interval,
                max_body_bytes=args.max_body_bytes,
                run_timeout=args.run_timeout,
            )
        except ConfigurationError as exc:
            raise CommandFailed(str(exc), exit_code=ExitCode.USAGE) from exc
        auth = f"{len(tokens)} bearer token(s)" if tokens else "no auth: loopback only"
        url = _url(args.host, listener.getsockname()[1])

        def announce() -> None:
            output.err.print(
                f"praisonlike: serving {agent!r} on {url} ({auth})",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )

        with contextlib.nullcontext() if args.debug else _log_to_stderr(output):
            _serve(app, listener, announce)
    return ExitCode.OK


def _port(text: str) -> int:
    """``--port``: an int in 0..65535 (argparse turns the error into exit code 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 0..65535 (0 picks a free one)")
    return port


def _url(host: str, port: int) -> str:
    bare = host.strip("[]")
    return f"http://[{bare}]:{port}" if ":" in bare else f"http://{bare}:{port}"


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` for Uvicorn to listen on; exit 2 when it cannot be bound."""
    bare = host.strip("[]")
    listener = socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((bare, port))
    except OSError as exc:
        listener.close()
        fix = "; pass another --port (0 picks a free one)" if exc.errno == errno.EADDRINUSE else ""
        raise CommandFailed(
            f"cannot listen on {_url(host, port)}: {exc.strerror or exc}{fix}",
            exit_code=ExitCode.USAGE,
        ) from None
    return listener


def _serve(app: Any, listener: socket.socket, announce: Callable[[], None]) -> None:
    """Run ``app`` with Uvicorn on ``listener``; ``announce()`` once it accepts connections."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                announce()

    server = Server(uvicorn.Config(app, log_level="info"))
    try:
        server.run(sockets=[listener])
    except SystemExit:
        if server.started:
            raise
        raise CommandFailed(
            "the app's start-up failed (see the log above)", exit_code=ExitCode.USAGE
        ) from None


class _LogLine(logging.Formatter):
    """``praisonlike: <level>: <message on one line>``, then the traceback if any."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return f"praisonlike: {record.levelname.lower()}: {one_line(record.message)}"


@contextlib.contextmanager
def _log_to_stderr(output: Output) -> Iterator[None]:
    """Within the block, ``praisonlike.serve``'s WARNING+ records go to the CLI's stderr."""
    from praisonlike._runtime.loggers import get_logger

    handler = logging.StreamHandler(output.err.file)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_LogLine())
    log = get_logger("praisonlike.serve")
    log.addHandler(handler)
    try:
        yield
    finally:
        log.removeHandler(handler)


def _agent(args: argparse.Namespace) -> Any:
    if bool(args.target) == bool(args.model):
        raise CommandFailed(
            "give MODULE:AGENT or --model MODEL (one of them)", exit_code=ExitCode.USAGE
        )
    if args.model:
        from praisonlike.serve.quickstart import quickstart_agent

        llm: dict[str, Any] = {"model": args.model}
        if args.api_base:
            llm["api_base"] = args.api_base
        if args.api_key:
            llm["api_key"] = args.api_key
        return quickstart_agent(llm)
    return _load_agent(args.target)


def _load_agent(spec: str) -> Any:
    from praisonlike.agent.agent import Agent
    from praisonlike.cli.agent_setup import import_target

    target = import_target(
        spec, repr(spec), "MODULE:AGENT or FILE.py:AGENT, e.g. myapp:agent", wanted=Agent
    )
    if not isinstance(target, Agent):
        raise CommandFailed(
            f"{spec!r} is a {type(target).__name__}, not an Agent", exit_code=ExitCode.USAGE
        )
    return target


def _read_tokens(path: str) -> dict[str, str]:
    """The token file's mapping; its content is never shown in an error."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandFailed(
            f"--tokens {path}: cannot read it ({type(exc).__name__})", exit_code=ExitCode.USAGE
        ) from None
    except (ValueError, UnicodeDecodeError):
        raise CommandFailed(f"--tokens {path}: not valid JSON", exit_code=ExitCode.USAGE) from None
    valid = (
        isinstance(data, dict)
        and data
        and all(isinstance(k, str) and k and isinstance(v, str) and v for k, v in data.items())
    )
    if not valid:
        raise CommandFailed(
            f"--tokens {path}: expected a JSON object mapping tokens to owner names",
            exit_code=ExitCode.USAGE,
        )
    return dict(data)
