"""Approvers for tools marked ``@tool(requires_approval=True)``.

An approver is ``(tool_name, arguments) -> bool`` (or an awaitable of it).
``"console"`` asks on the terminal; without a terminal it denies at once and
never waits for input.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from praisonlike._runtime.config_checks import positional_problem
from praisonlike.errors import ConfigurationError

_console_lock = threading.Lock()


def console_approver(
    stdin: TextIO | None = None, stdout: TextIO | None = None
) -> Callable[[str, dict[str, Any]], bool]:
    """An approver asking ``Allow tool X(args)? [y/N]`` on the terminal."""

    def approve(name: str, arguments: dict[str, Any]) -> bool:
        source = stdin or sys.stdin
        sink = stdout or sys.stderr
        if source is None or not source.isatty():
            return False
        shown = json.dumps(arguments, ensure_ascii=False, default=str)[:500]
        with _console_lock:
            sink.write(f"Allow tool {name}({shown})? [y/N] ")
            sink.flush()
            answer = source.readline()
        return answer.strip().lower() in {"y", "yes"}

    return approve


def normalise_approver(value: Any) -> Any:
    """``None``, ``"console"`` or a callable."""
    if value is None:
        return value
    if callable(value):
        problem = positional_problem(value, 2)
        if problem is not None:
            raise ConfigurationError(
                "approval must take two arguments, the tool's name and its arguments: " + problem
            )
        return value
    if value == "console":
        return console_approver()
    raise TypeError('approval must be a callable(tool_name, arguments) -> bool or "console"')
