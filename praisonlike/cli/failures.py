"""How the CLI reports a failure: one line on stderr, a hint when one helps, an exit code.

Exit codes a script may rely on:

* ``0`` success;
* ``1`` the command ran and failed (a model error, a tool error, a timeout, a
  budget stop, a malformed skill, a missing session, an unexpected error);
* ``2`` the command cannot run as configured (bad arguments, no model, any
  :class:`~praisonlike.errors.ConfigurationError` such as a missing API key or
  a model name LiteLLM cannot resolve, an unknown model for ``models info``, a
  tool that cannot be imported);
* ``130`` the turn was cancelled with Ctrl-C.
"""

from __future__ import annotations

import traceback
from enum import IntEnum

from praisonlike.cli.output import Output, one_line
from praisonlike.errors import (
    APIConnectionError,
    AuthenticationError,
    ConfigurationError,
    InvalidInputError,
    ModelNotFoundError,
    PraisonlikeError,
    RunCancelled,
    UnsupportedInputError,
)


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1
    USAGE = 2
    CANCELLED = 130


class CommandFailed(PraisonlikeError):
    """A command ends with ``message`` (and ``hint``) on stderr and ``exit_code``."""

    def __init__(
        self, message: str, *, exit_code: ExitCode = ExitCode.FAILED, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.hint = hint


KEY_HINT = (
    "set the provider's API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ...) "
    "or pass --api-key KEY (or set PRAISONLIKE_API_KEY)"
)
MODEL_HINT = (
    "pass --model provider/model (e.g. --model gpt-4o-mini), set PRAISONLIKE_MODEL, set a "
    "provider key such as OPENAI_API_KEY, or `pip install 'praisonlike[local]'` and use "
    "--model local"
)


def exit_code_for(exc: BaseException) -> ExitCode:
    """The exit code a failure ends the command with (see the module docstring)."""
    if isinstance(exc, CommandFailed):
        return exc.exit_code
    if isinstance(exc, (RunCancelled, KeyboardInterrupt)):
        return ExitCode.CANCELLED
    if isinstance(exc, (ConfigurationError, InvalidInputError, UnsupportedInputError)):
        return ExitCode.USAGE
    return ExitCode.FAILED


def report(exc: BaseException, output: Output, *, debug: bool) -> ExitCode:
    """Print ``exc`` as one line (plus a hint, plus the traceback with ``debug``)."""
    if debug:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        output.err.print(text.rstrip(), markup=False, highlight=False, soft_wrap=True)
    hint = hint_for(exc)
    output.error(without_hint(describe(exc), hint))
    if hint:
        output.hint(hint)
    elif not debug and not isinstance(exc, PraisonlikeError):
        output.hint("run with --debug to see the traceback")
    return exit_code_for(exc)


def describe(exc: BaseException) -> str:
    """The error line: the message alone for the CLI's own errors, else ``Type: message``."""
    if isinstance(exc, CommandFailed):
        return str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    message = str(exc) or "(no message)"
    return f"{type(exc).__name__}: {message}"


def without_hint(line: str, hint: str | None) -> str:
    """``line`` without a copy of ``hint`` the message carries (the hint gets its own line)."""
    if not hint:
        return line
    for copy in (f" ({hint})", f"; {hint}", f". {hint}", hint):
        if copy in line:
            return one_line(line.replace(copy, "", 1))
    return line


def hint_for(exc: BaseException) -> str | None:
    """What to do next: the error's own ``hint`` when it carries one, else the CLI's."""
    own = getattr(exc, "hint", None)
    if isinstance(own, str) and own.strip():
        return one_line(own)
    if isinstance(exc, AuthenticationError):
        return KEY_HINT
    if isinstance(exc, ModelNotFoundError):
        return "check the model name with `praisonlike models info MODEL`; " + MODEL_HINT
    if isinstance(exc, APIConnectionError) and exc.endpoint:
        return _connection_hint(exc.endpoint)
    return None


def _connection_hint(endpoint: str) -> str:
    from praisonlike.models.network_guard import is_loopback_url

    if is_loopback_url(endpoint):
        return f"start the model server at {endpoint}, or point --api-base at the one that runs"
    return f"check the network, and that {endpoint} is the endpoint you meant (--api-base)"
