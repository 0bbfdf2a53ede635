"""How the CLI reports a failure: one line on stderr, a hint when one helps, an exit code.

Exit codes a script may rely on:

* ``0`` success;
* ``1`` the command ran and failed (a model error, a tool error, a timeout, a
  budget stop, a malformed skill, a missing session, an unexpected error);
* ``2`` the command cannot run as configured, found before any request is
  sent (bad arguments, no model, any
  :class:`~praisonlike.errors.ConfigurationError` such as a missing API key or
  a model name LiteLLM cannot resolve, an unknown model for ``models info``, a
  tool that cannot be imported, a request the network guard refuses:
  :class:`~praisonlike.errors.ModelRequestBlockedError`);
* ``130`` the turn was cancelled with Ctrl-C.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator
from contextvars import ContextVar
from enum import IntEnum

from praisonlike.cli.output import Output, one_line
from praisonlike.errors import (
    APIConnectionError,
    AuthenticationError,
    ConfigurationError,
    InvalidInputError,
    MissingCredentialsError,
    ModelNotFoundError,
    ModelRequestBlockedError,
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


GUARD_HINT = (
    "unset PRAISONLIKE_ALLOW_MODEL_REQUESTS (or set it to 1) to let model requests leave "
    "this machine, or point --api-base at a server on the loopback"
)

# The environment variable the command's model came from, and that model (set by
# ``chat`` when no --model is given), so an error about the model can say where
# its name came from.
_model_origin: ContextVar[tuple[str, str] | None] = ContextVar(
    "praisonlike_cli_model_origin", default=None
)


@contextlib.contextmanager
def model_origin_scope() -> Iterator[None]:
    """Forget, when the block ends, where the model came from (one command's worth)."""
    token = _model_origin.set(None)
    try:
        yield
    finally:
        _model_origin.reset(token)


def note_model_origin(variable: str, model: str) -> None:
    """Record that the command's ``model`` was read from environment ``variable``."""
    _model_origin.set((variable, model))


def _model_origin_note(exc: BaseException) -> str | None:
    """``the model name 'x' comes from PRAISONLIKE_MODEL ...`` when ``exc`` is about a
    model whose name the command read from the environment (not --model)."""
    origin = _model_origin.get()
    if origin is None or isinstance(exc, MissingCredentialsError):
        return None
    variable, model = origin
    if variable in str(exc):  # the error names it already
        return f"pass --model to override {variable}"
    if isinstance(exc, ModelNotFoundError):
        named = exc.model == model
    else:
        named = isinstance(exc, ConfigurationError) and repr(model) in str(exc)
    if not named:
        return None
    return (
        f"the model name {model!r} comes from the environment variable {variable}: "
        "correct or unset it, or pass --model"
    )


def exit_code_for(exc: BaseException) -> ExitCode:
    """The exit code a failure ends the command with (see the module docstring)."""
    if isinstance(exc, CommandFailed):
        return exc.exit_code
    if isinstance(exc, (RunCancelled, KeyboardInterrupt)):
        return ExitCode.CANCELLED
    if isinstance(
        exc,
        (ConfigurationError, InvalidInputError, UnsupportedInputError, ModelRequestBlockedError),
    ):
        return ExitCode.USAGE
    return ExitCode.FAILED


def report(exc: BaseException, output: Output, *, debug: bool) -> ExitCode:
    """Print ``exc`` as one line (plus a hint, plus the traceback with ``debug``)."""
    if debug:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        output.err.print(text.rstrip(), markup=False, highlight=False, soft_wrap=True)
    hint = hint_for(exc)
    line = without_hint(describe(exc), hint)
    origin = _model_origin_note(exc)
    if origin:
        hint = f"{origin}; {hint}" if hint else origin
    output.error(line)
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
    if isinstance(exc, ModelRequestBlockedError):
        return GUARD_HINT
    return None


def _connection_hint(endpoint: str) -> str:
    from praisonlike.models.network_guard import is_loopback_url

    if is_loopback_url(endpoint):
        return f"start the model server at {endpoint}, or point --api-base at the one that runs"
    return f"check the network, and that {endpoint} is the endpoint you meant (--api-base)"
