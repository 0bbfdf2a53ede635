"""Reading Python callables for tools: names, async-ness, timeouts, annotation locals.

Light on purpose (no pydantic): a tool is checked with these when it is
declared; its argument schema (:mod:`praisonlike.tools.schema`) is built only
when first needed.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
from typing import Any

from praisonlike.errors import ConfigurationError

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def check_tool_name(name: Any) -> str:
    """Return ``name`` if providers accept it as a function name (``[A-Za-z0-9_-]{1,64}``).

    Raises:
        ConfigurationError: naming the bad name.
    """
    if not isinstance(name, str) or not _TOOL_NAME.match(name):
        raise ConfigurationError(
            f"invalid tool name {name!r}: use 1-64 letters, digits, '_' or '-' "
            "(pass name=... to choose one)"
        )
    return name


def unwrap_callable(func: Any) -> Any:
    """The function whose name, docstring and annotations describe ``func``.

    Looks through ``functools.partial``, bound methods and callable instances.
    """
    while isinstance(func, functools.partial):
        func = func.func
    if inspect.ismethod(func):
        return func.__func__
    if inspect.isfunction(func) or inspect.isbuiltin(func):
        return func
    call = type(func).__call__ if callable(func) else None
    return call if inspect.isfunction(call) else func


def caller_local_names(func: Any) -> dict[str, Any]:
    """The local variables that string annotations of a nested ``func`` may refer to.

    With ``from __future__ import annotations`` a tool defined inside a function
    can name classes local to that function, which its module cannot resolve.
    They are taken from the first calling frame outside praisonlike, keeping only
    names that occur in the annotations. Empty for module-level functions.
    """
    target = unwrap_callable(func)
    annotations = getattr(target, "__annotations__", None) or {}
    text = " ".join(value for value in annotations.values() if isinstance(value, str))
    if not text or "<locals>" not in getattr(target, "__qualname__", ""):
        return {}
    wanted = set(_IDENTIFIER.findall(text))
    frame = inspect.currentframe()
    while frame is not None and _is_praisonlike_frame(frame):
        frame = frame.f_back
    if frame is None:
        return {}
    return {name: value for name, value in frame.f_locals.items() if name in wanted}


def _is_praisonlike_frame(frame: types.FrameType) -> bool:
    return str(frame.f_globals.get("__name__", "")).startswith("praisonlike.")


def is_async_callable(func: Any) -> bool:
    """True for ``async def`` functions, including through partials, bound methods
    and instances whose ``__call__`` is ``async``."""
    while isinstance(func, functools.partial):
        func = func.func
    if inspect.iscoroutinefunction(func):
        return True
    if inspect.isroutine(func) or not callable(func):
        return False
    return inspect.iscoroutinefunction(type(func).__call__)


def check_not_generator(func: Any, name: str) -> None:
    """Refuse a generator function (sync or async) as a tool: its call returns a
    generator object, not a result the model could read.

    Raises:
        ConfigurationError: naming the tool and what to return instead.
    """
    target = unwrap_callable(func)
    kind = (
        "an async generator"
        if inspect.isasyncgenfunction(target)
        else "a generator"
        if inspect.isgeneratorfunction(target)
        else None
    )
    if kind is not None:
        raise ConfigurationError(
            f"tool '{name}' is {kind} function (it yields): a tool returns one result "
            "for the model; return the items as a list, or join them into one text"
        )


def check_timeout(timeout: float | None) -> float | None:
    """Return ``timeout`` if it is ``None`` or a positive number of seconds.

    Raises:
        ConfigurationError: for zero, negative or non-numeric values.
    """
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigurationError(
            f"tool timeout must be a positive number of seconds, got {timeout!r}"
        )
    return float(timeout)
