"""Parsing a tool call's argument text and explaining bad arguments to the model."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from praisonlike.errors import PraisonlikeError

_SNIPPET = 40
_INPUT_PREVIEW = 80


class ToolArgumentError(PraisonlikeError):
    """The model called a tool with arguments that cannot be used.

    ``str(error)`` is written for the model to read and fix its call: it names
    the tool and lists every problem with its location. ``errors`` holds the
    same problems as dicts with ``loc``, ``type`` and ``msg`` keys.
    """

    def __init__(
        self, message: str, *, tool_name: str, errors: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.errors = [dict(error) for error in errors]


def parse_arguments(tool_name: str, raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Turn the raw arguments of a call into a dict.

    ``None``, blank text and the JSON ``null`` mean "no arguments" and give ``{}``.
    A mapping is copied. Text that is not JSON, or JSON that is not an object,
    raises :class:`ToolArgumentError`.
    """
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise ToolArgumentError(
            f"Arguments for tool '{tool_name}' must be a JSON object, got a {type(raw).__name__}.",
            tool_name=tool_name,
            errors=[{"loc": (), "type": "object_type", "msg": "not a JSON object"}],
        )
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _json_error(tool_name, raw, exc) from None
    except RecursionError:
        raise ToolArgumentError(
            f"Arguments for tool '{tool_name}' are nested too deeply to read.",
            tool_name=tool_name,
            errors=[{"loc": (), "type": "json_depth", "msg": "nested too deeply"}],
        ) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ToolArgumentError(
            f"Arguments for tool '{tool_name}' must be a JSON object mapping parameter "
            f"names to values, got a JSON {_json_kind(value)}: {_preview(value)}",
            tool_name=tool_name,
            errors=[{"loc": (), "type": "object_type", "msg": "not a JSON object"}],
        )
    return value


def _json_error(tool_name: str, raw: str, exc: json.JSONDecodeError) -> ToolArgumentError:
    before = raw[max(0, exc.pos - _SNIPPET) : exc.pos]
    after = raw[exc.pos : exc.pos + 10]
    message = (
        f"Arguments for tool '{tool_name}' are not valid JSON: {exc.msg} at line "
        f"{exc.lineno}, column {exc.colno} (char {exc.pos}), here: "
        f"{before!r} <-- error --> {after!r}. Send the arguments as one JSON object."
    )
    return ToolArgumentError(
        message,
        tool_name=tool_name,
        errors=[{"loc": (), "type": "json_invalid", "msg": exc.msg, "pos": exc.pos}],
    )


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "number"


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _INPUT_PREVIEW else text[: _INPUT_PREVIEW - 3] + "..."


def format_location(loc: Sequence[Any]) -> str:
    """``("points", 0, "x")`` -> ``"points[0].x"``; ``()`` -> ``"(arguments)"``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(arguments)"


def argument_problems_error(
    tool_name: str, errors: Sequence[Mapping[str, Any]], accepted: Sequence[str]
) -> ToolArgumentError:
    """Build the error for a call whose arguments failed validation.

    ``errors`` are pydantic-style dicts (``loc``, ``type``, ``msg``, optional
    ``input``); ``accepted`` is the list of parameter names the tool takes,
    quoted when an unknown argument was passed.
    """
    lines = []
    for error in errors:
        where = format_location(error.get("loc", ()))
        kind = error.get("type")
        if kind == "missing":
            lines.append(f"- {where}: missing required argument")
        elif kind == "extra_forbidden" and len(error.get("loc", ())) == 1:
            names = ", ".join(accepted) if accepted else "(none)"
            lines.append(f"- {where}: unknown argument; this tool accepts only: {names}")
        else:
            got = f" (got {_preview(error['input'])})" if "input" in error else ""
            lines.append(f"- {where}: {error.get('msg', 'invalid value')}{got}")
    count = len(lines)
    header = (
        f"Invalid arguments for tool '{tool_name}' ({count} problem{'s' if count != 1 else ''}):"
    )
    footer = "Fix these arguments and call the tool again."
    return ToolArgumentError(
        "\n".join([header, *lines, footer]), tool_name=tool_name, errors=errors
    )
