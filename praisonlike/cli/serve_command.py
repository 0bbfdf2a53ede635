"""``praisonlike serve``: run an agent's HTTP API with Uvicorn (docs/serving.md).

``praisonlike serve MODULE:AGENT`` serves the agent a module defines;
``praisonlike serve --model MODEL`` serves the quickstart's weather agent on
MODEL (``local`` for the offline model). The host defaults to 127.0.0.1.
Without ``--tokens`` there is no auth, which is allowed only on a loopback
host, and the start-up line says so. Tokens are never printed.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.cli.output import Output
from praisonlike.errors import ConfigurationError

SERVE_HINT = "install the serve extra: pip install 'praisonlike[serve]'"


def add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` and its options."""
    from praisonlike.cli.parser import API_BASE_ENV, API_KEY_ENV

    serve = commands.add_parser(
        "serve",
        help="serve an agent over HTTP: SSE runs, OpenAI-compatible API, chat page",
        description=(
            "Serve MODULE:AGENT (an Agent defined in an importable module), or with "
            "--model the quickstart weather agent on that model, with Uvicorn."
        ),
    )
    serve.add_argument("target", nargs="?", metavar="MODULE:AGENT", help="e.g. myapp:agent")
    serve.add_argument("--model", "-m", help="serve the quickstart agent on this model")
    serve.add_argument(
        "--api-base", default=os.environ.get(API_BASE_ENV) or None, help="with --model"
    )
    serve.add_argument(
        "--api-key", default=os.environ.get(API_KEY_ENV) or None, help="with --model"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
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
    from praisonlike.serve.auth import is_loopback

    tokens = _read_tokens(args.tokens) if args.tokens else None
    if tokens is None and not is_loopback(args.host):
        raise CommandFailed(
            f"refusing to serve on {args.host} without auth",
            exit_code=ExitCode.USAGE,
            hint="pass --tokens FILE (a JSON object mapping tokens to owners), or bind 127.0.0.1",
        )
    agent = _agent(args)
    try:
        import uvicorn

        app = agent.to_asgi(
            tokens=tokens,
            store=args.store,
            ping_interval=args.ping_interval,
            max_body_bytes=args.max_body_bytes,
            run_timeout=args.run_timeout,
        )
    except ImportError as exc:
        raise CommandFailed(
            f"praisonlike serve needs {exc.name or 'its packages'}",
            exit_code=ExitCode.USAGE,
            hint=SERVE_HINT,
        ) from exc
    except ConfigurationError as exc:
        raise CommandFailed(str(exc), exit_code=ExitCode.USAGE) from exc
    auth = f"{len(tokens)} bearer token(s)" if tokens else "no auth: loopback only"
    output.err.print(
        f"praisonlike: serving {agent!r} on http://{args.host}:{args.port} ({auth})",
        markup=False,
        highlight=False,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return ExitCode.OK


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

    target = import_target(spec, repr(spec), "MODULE:AGENT, e.g. myapp:agent")
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
