"""The ``praisonlike`` command (see docs/cli.md).

``main(argv)`` parses the arguments, runs one command and returns its exit
code (0 success, 1 the command failed, 2 it cannot run as configured, 130
cancelled; see :mod:`praisonlike.cli.failures`). Every failure is printed as
one line on stderr (``--debug`` adds the traceback and DEBUG logging); nothing
the command prints can contain an API key.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from praisonlike.cli.failures import ExitCode, model_origin_scope, report
from praisonlike.cli.output import Output, one_line
from praisonlike.cli.parser import API_KEY_ENV, build_parser, with_default_action
from praisonlike.context.window import ContextWindowUnknownWarning
from praisonlike.errors import APIConnectionError, ConfigurationError

Command = Callable[[argparse.Namespace, Output], ExitCode]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``praisonlike`` with ``argv`` (``sys.argv[1:]`` by default); returns the exit code."""
    args = build_parser().parse_args(with_default_action(sys.argv[1:] if argv is None else argv))
    secrets = _secrets(args)
    output = Output.create(secrets=secrets)
    with (
        model_origin_scope(),
        _debug_logging(args.debug, secrets),
        _warnings_on(output) as held,
    ):
        try:
            return int(_command(args)(args, output))
        except (Exception, KeyboardInterrupt) as exc:
            if isinstance(exc, ConfigurationError | APIConnectionError):
                held.clear()  # about a model never usable or never reached: the error says why
            return int(report(exc, output, debug=args.debug))


def _command(args: argparse.Namespace) -> Command:
    if args.command == "chat":
        from praisonlike.cli.chat_command import run_chat

        return run_chat
    if args.command == "models":
        from praisonlike.cli.models_command import run_models

        return run_models
    if args.command == "serve":
        from praisonlike.cli.serve_command import run_serve

        return run_serve
    if args.command == "local":
        from praisonlike.cli.local_command import run_local

        return run_local
    if args.command == "skills":
        from praisonlike.cli.skills_command import run_skills

        return run_skills
    from praisonlike.cli.sessions_command import run_sessions

    return run_sessions


def _secrets(args: argparse.Namespace) -> list[str]:
    """Every key the process knows literally: ``--api-key`` and the provider variables."""
    from praisonlike.agent.default_model import PROVIDER_DEFAULTS

    names = [API_KEY_ENV, *(name for name, _ in PROVIDER_DEFAULTS)]
    values = [getattr(args, "api_key", None), *(os.environ.get(name) for name in names)]
    return [value for value in values if value]


@contextlib.contextmanager
def _debug_logging(enabled: bool, secrets: list[str]) -> Iterator[None]:
    if not enabled:
        yield
        return
    from praisonlike.logging_setup import debug_logging

    with debug_logging(secrets=secrets):
        yield


@contextlib.contextmanager
def _warnings_on(output: Output) -> Iterator[list[str]]:
    """Python warnings as one redacted ``praisonlike: warning:`` line on stderr.

    A warning that the model's context window is unknown is held until the
    command ends: the caller clears the held lines when the command failed
    on its configuration (an unknown model), so the error stands alone.
    """
    held: list[str] = []

    def print_line(line: str) -> None:
        output.err.print(line, markup=False, highlight=False, soft_wrap=True)

    def show(message: Any, category: type[Warning], *_: Any, **__: Any) -> None:
        line = f"praisonlike: warning: {one_line(str(message))}"
        if issubclass(category, ContextWindowUnknownWarning):
            held.append(line)
        else:
            print_line(line)

    original = warnings.showwarning
    warnings.showwarning = show
    try:
        yield held
    finally:
        warnings.showwarning = original
        for line in held:
            print_line(line)


__all__ = ["main"]
