"""Value checks shared by the configuration dataclasses (``bool`` is not a number here)."""

from __future__ import annotations

import inspect
from typing import Any, TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    """True for an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def positional_problem(function: Any, count: int) -> str | None:
    """Why ``function`` cannot be called with ``count`` positional arguments (Python's
    words and the signature, e.g. ``missing a required argument: 'b' (its parameters:
    (a, b))``), or None when it can or its signature cannot be read (a builtin)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*([None] * count))
    except TypeError as exc:
        return f"{exc} (its parameters: {signature})"
    return None
