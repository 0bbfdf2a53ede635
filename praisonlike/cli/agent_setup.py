"""Building the agent of ``praisonlike chat`` from its options."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, cast

from praisonlike.agent.agent import Agent
from praisonlike.cli.failures import MODEL_HINT, CommandFailed, ExitCode, note_model_origin
from praisonlike.errors import ConfigurationError
from praisonlike.models.config import ExecutionConfig
from praisonlike.models.model_variables import variable_holding


def import_target(spec: str, label: str, example: str) -> Any:
    """The object ``module:attribute`` names (``attribute`` may be dotted).

    The current directory is importable, so ``mytools:search`` finds
    ``./mytools.py``. ``label`` starts each error message (``"--tool 'x:y'"``)
    and ``example`` shows the expected form. Raises :class:`CommandFailed`
    (exit code 2) when the spec is malformed, the module cannot be imported or
    the attribute is missing.
    """
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise CommandFailed(f"{label}: expected {example}", exit_code=ExitCode.USAGE)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise CommandFailed(
            f"{label}: cannot import {module_name!r}: {type(exc).__name__}: {exc}",
            exit_code=ExitCode.USAGE,
        ) from exc
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise CommandFailed(
                f"{label}: {module_name!r} has no attribute {attribute!r}",
                exit_code=ExitCode.USAGE,
            )
        target = getattr(target, part)
    return target


def load_tool(spec: str) -> Callable[..., Any]:
    """The callable ``module:attribute`` names, for ``--tool``.

    Raises :class:`CommandFailed` (exit code 2) as :func:`import_target` does,
    and when the attribute is not callable.
    """
    target = import_target(spec, f"--tool {spec!r}", "MODULE:FUNCTION, e.g. mytools:search")
    if not callable(target):
        raise CommandFailed(
            f"--tool {spec!r}: {spec.partition(':')[2]!r} is not callable",
            exit_code=ExitCode.USAGE,
        )
    return cast("Callable[..., Any]", target)


def choose_model(model: str | None) -> str:
    """``model`` if given, else the default model from the environment.

    A model named by ``PRAISONLIKE_MODEL`` (or ``OPENAI_MODEL_NAME``) is noted, so
    an error about it says where the name came from. Raises
    :class:`CommandFailed` (exit code 2) with the ways to set one.
    """
    if model:
        return model
    from praisonlike.agent.default_model import default_model

    try:
        chosen = default_model()
    except ConfigurationError as exc:
        raise CommandFailed(
            "no model configured", exit_code=ExitCode.USAGE, hint=MODEL_HINT
        ) from exc
    variable = variable_holding(chosen)
    if variable is not None:
        note_model_origin(variable, chosen)
    return chosen


def llm_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The ``llm=`` dict: the model, and the base URL and key when given."""
    settings: dict[str, Any] = {"model": choose_model(args.model)}
    if args.api_base:
        settings["api_base"] = args.api_base
    if args.api_key:
        settings["api_key"] = args.api_key
    return settings


def build_agent(args: argparse.Namespace) -> Agent:
    """The agent ``praisonlike chat`` talks to.

    Tools come from ``--tool``; skills from ``--skills-dir`` (the default skill
    folders otherwise); with ``--session`` the turns are kept in the session
    store (``--store``, else the default database). Its model calls are
    interruptible, so Ctrl-C ends a turn at once, even mid-call.
    """
    tools: Sequence[Callable[..., Any]] = [load_tool(spec) for spec in args.tool]
    memory: Any = None
    if args.session:
        from praisonlike.memory.config import MemoryConfig

        memory = MemoryConfig(store=args.store) if args.store else True
    elif args.store:
        raise CommandFailed("--store needs --session ID", exit_code=ExitCode.USAGE)
    return Agent(
        instructions=args.instructions,
        llm=llm_settings(args),
        tools=tools,
        session_id=args.session,
        memory=memory,
        skills=list(args.skills_dir) or True,
        execution=ExecutionConfig(interruptible_calls=True),
    )
