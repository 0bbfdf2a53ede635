"""Turning tool results and tool failures into the text of a tool message."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from praisonlike._runtime.text_safety import scrub_surrogates
from praisonlike.redaction import redact_secrets
from praisonlike.tools.arguments import ToolArgumentError

NO_RESULT = "(the tool returned no result)"
DEFAULT_RESULT_LIMIT = 100_000
"""Characters of a tool result kept by default; see :func:`format_tool_result`."""
_MAX_ERROR_TEXT = 2000
_MAX_NAME_SHOWN = 80


def format_tool_result(value: Any, *, limit: int | None = DEFAULT_RESULT_LIMIT) -> str:
    """The text the model sees for a tool's return value; never raises.

    ``str`` is returned as is; ``None`` gives :data:`NO_RESULT`; ``bytes`` are
    decoded as UTF-8 with replacement characters; pydantic models, dataclass
    instances, dicts, lists and tuples become JSON (non-ASCII kept, odd leaves
    such as datetimes or sets converted, anything else through ``str``). Lone
    surrogates are replaced, so the text always encodes as UTF-8.
    Everything else, and any value whose serialisation fails, goes through ``str()``.

    A text longer than ``limit`` characters is cut to at most ``limit``: its head
    and tail around a ``...[truncated N chars]...`` marker (the format of
    :func:`praisonlike.context.truncate_tool_output`), so one tool cannot flood
    the history, the session store or the model. ``limit=None`` keeps it whole.
    """
    text = scrub_surrogates(_as_text(value))
    if limit is None or len(text) <= limit:
        return text
    from praisonlike.context.truncation import truncate_tool_output

    return truncate_tool_output(text, limit)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return NO_RESULT
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    try:
        if isinstance(value, BaseModel):
            return value.model_dump_json()
        if _is_dataclass_instance(value) or isinstance(value, (dict, list, tuple)):
            jsonable = to_jsonable_python(value, fallback=str, bytes_mode="utf8")
            return json.dumps(jsonable, ensure_ascii=False, default=str)
    except Exception:
        pass
    return _safe_str(value)


def _is_dataclass_instance(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _safe_str(value: Any) -> str:
    try:
        return str(value)
    except Exception:
        try:
            return repr(value)
        except Exception:
            return f"<unprintable {type(value).__name__} object>"


def unknown_tool_message(name: str, available: Sequence[str]) -> str:
    """The tool message for a call to a tool that is not registered; lists ``available``.

    A name longer than a tool name can be is shown cut, so the message stays short.
    """
    if len(name) > _MAX_NAME_SHOWN:
        name = name[:_MAX_NAME_SHOWN] + "..."
    if not available:
        return (
            f"Error: there is no tool named '{name}', and no tools are available. "
            "Answer without calling tools."
        )
    names = ", ".join(sorted(available))
    return (
        f"Error: there is no tool named '{name}'. Available tools: {names}. "
        "Call one of these by its exact name."
    )


def tool_exception_message(name: str, exc: BaseException) -> str:
    """The tool message for a tool call that raised: ``"Error: tool 'x' raised ValueError: ..."``.

    A :class:`ToolArgumentError` is reported with its own model-readable text.
    Very long exception texts are truncated, and key-like tokens in them
    (:func:`~praisonlike.redaction.redact_secrets`) replaced: an exception of a
    tool calling another service may quote that service's key, which must not
    reach the model's provider.
    """
    if isinstance(exc, ToolArgumentError):
        return f"Error: {_safe_str(exc)}"
    text = redact_secrets(_safe_str(exc)).strip()
    if len(text) > _MAX_ERROR_TEXT:
        text = text[:_MAX_ERROR_TEXT] + "... (truncated)"
    kind = type(exc).__name__
    if not text:
        return f"Error: tool '{name}' raised {kind}"
    return f"Error: tool '{name}' raised {kind}: {text}"
