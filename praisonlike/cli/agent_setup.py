"""Building the agent of ``praisonlike chat`` from its options."""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from praisonlike.agent.agent import Agent
from praisonlike.cli.failures import MODEL_HINT, CommandFailed, ExitCode, note_model_origin
from praisonlike.context.config import ContextConfig
from praisonlike.errors import ConfigurationError
from praisonlike.models.config import ExecutionConfig
from praisonlike.models.model_variables import variable_holding


def import_target(spec: str, label: str, example: str, wanted: type | None = None) -> Any:
    """The object ``module:attribute`` names (``attribute`` may be dotted).

    ``module`` is a module name or the path of a ``.py`` file
    (``tools/mytools.py:search``). The current directory is importable, so
    ``mytools:search`` finds ``./mytools.py``; a file's own directory is made
    importable too, for its imports of its neighbours. ``label`` starts each
    error message (``"--tool 'x:y'"``) and ``example`` shows the expected form.
    Raises :class:`CommandFailed` (exit code 2) when the spec is malformed, the
    module cannot be imported or the attribute is missing (naming close ones:
    with ``wanted``, the module's instances of that class).
    """
    module_name, colon, attribute = spec.rpartition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    if not colon or not module_name or not attribute:
        raise CommandFailed(
            f"{label}: expected {example}{_what_it_defines(spec, wanted)}",
            exit_code=ExitCode.USAGE,
        )
    try:
        target: Any = _import(module_name)
    except Exception as exc:
        raise CommandFailed(
            f"{label}: cannot import {module_name!r}: {type(exc).__name__}: {exc}",
            exit_code=ExitCode.USAGE,
        ) from exc
    for part in attribute.split("."):
        if not hasattr(target, part):
            names = _instances(target, wanted) or [n for n in dir(target) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=3)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise CommandFailed(
                f"{label}: {module_name!r} has no attribute {attribute!r}{hint}",
                exit_code=ExitCode.USAGE,
            )
        target = getattr(target, part)
    return target


def _what_it_defines(spec: str, wanted: type | None) -> str:
    """For a module or file given without ``:NAME``, the names it defines to pick
    from (``; tools.py defines add, search``), or with ``wanted`` its instances of
    that class (``; myapp has agent``); empty when it cannot be imported."""
    module_name = spec.rstrip(":")
    if not module_name or ":" in module_name:
        return ""
    if module_name.endswith(".py") and not Path(module_name).expanduser().is_file():
        return f"; there is no file {module_name} (looked in {os.getcwd()})"
    try:
        module = _import(module_name)
    except Exception:
        return ""
    if wanted is not None:
        found = _instances(module, wanted)
        if not found:
            return f"; {module_name} has no {wanted.__name__} at its top level"
        return f"; {module_name} has {', '.join(found[:10])}: e.g. {module_name}:{found[0]}"
    names = [
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    ]
    if not names:
        return f"; {module_name} defines no function or class of its own"
    return f"; {module_name} defines {', '.join(names[:10])}: e.g. {module_name}:{names[0]}"


def _instances(namespace: Any, wanted: type | None) -> list[str]:
    """The public names in ``namespace`` bound to instances of ``wanted``."""
    if wanted is None:
        return []
    return [
        name
        for name in dir(namespace)
        if not name.startswith("_") and isinstance(getattr(namespace, name, None), wanted)
    ]


def _import(module: str) -> Any:
    """The module named ``module``, or loaded from the ``.py`` file it names."""
    if not module.endswith(".py"):
        return importlib.import_module(module)
    path = Path(module).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no file {str(path)!r}")
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    name = path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path:
        return loaded
    if loaded is not None:  # another module has the name: load the file under its own
        name = f"praisonlike_cli_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{str(path)!r} cannot be loaded as Python")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
    return loaded


def load_tool(spec: str) -> Callable[..., Any]:
    """The callable ``module:attribute`` names, for ``--tool``.

    Raises :class:`CommandFailed` (exit code 2) as :func:`import_target` does,
    and when the attribute is not callable.
    """
    target = import_target(
        spec, f"--tool {spec!r}", "MODULE:FUNCTION or FILE.py:FUNCTION, e.g. mytools:search"
    )
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
    """The ``llm=`` dict: the model, and the base URL, key, output cap and temperature
    when given."""
    settings: dict[str, Any] = {"model": choose_model(args.model)}
    if args.api_base:
        settings["api_base"] = args.api_base
    if args.api_key:
        settings["api_key"] = args.api_key
    if args.max_tokens is not None:
        settings["max_tokens"] = args.max_tokens
    if args.temperature is not None:
        settings["temperature"] = args.temperature
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
    window = args.context_window
    return Agent(
        instructions=args.instructions,
        llm=llm_settings(args),
        tools=tools,
        session_id=args.session,
        memory=memory,
        skills=list(args.skills_dir) or True,
        context=None if window is None else ContextConfig(max_context_tokens=window),
        execution=ExecutionConfig(interruptible_calls=True),
    )
