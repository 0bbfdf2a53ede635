"""Replies that try to call an offered tool but hold no usable call.

Small models often write a tool's definition back (``{"name": ..., "description":
..., "parameters": {...schema...}}``) instead of calling it, put the arguments
where they cannot be read, or write broken JSON. :func:`find_call_fault` names
such a reply; :func:`correction_message` is the observation that asks the model
to call again. Nothing here raises on model output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from praisonlike.react.parse import MAX_TEXT_CHARS, Match, looks_like_schema, read_call

MAX_CALL_CORRECTIONS = 2
"""Corrections a turn sends before it asks for a final plain-text answer."""

FaultKind = Literal["schema_echo", "bad_arguments", "invalid_json"]

_HEAD = 400
_NAMED = re.compile(
    r'\{\s*(?:"type"\s*:\s*"function"\s*,\s*)?"(?:name|tool|function)"\s*:\s*'
    r'(?:\{\s*"name"\s*:\s*)?"([^"\\]{1,200})"'
)


@dataclass(frozen=True)
class CallFault:
    """A failed attempt to call the offered tool ``tool``.

    ``kind`` is ``"schema_echo"`` (the tool's definition instead of a call),
    ``"bad_arguments"`` (arguments that are not a JSON object, or not under an
    arguments key) or ``"invalid_json"`` (an object naming the tool that is not
    valid JSON).
    """

    kind: FaultKind
    tool: str


def find_call_fault(text: str, offered: Collection[str]) -> CallFault | None:
    """The first failed attempt in ``text`` to call one of ``offered``, else ``None``.

    Looks at each JSON object in the text (and at each ``{`` that starts one
    naming an offered tool but is not valid JSON). A valid call of an offered
    tool is not a fault, wherever it is; objects naming no offered tool are
    ignored. Meant for a reply in which no call was found.
    """
    names = frozenset(offered)
    if not names or not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
        return None
    decoder = json.JSONDecoder()
    position = 0
    while (start := text.find("{", position)) >= 0:
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            named = _NAMED.match(text, start, min(len(text), start + _HEAD))
            if named is not None and named.group(1) in names:
                return CallFault("invalid_json", named.group(1))
            position = start + 1
            continue
        fault = _object_fault(value, names)
        if fault is not None:
            return fault
        position = end
    return None


def _object_fault(value: Any, names: frozenset[str]) -> CallFault | None:
    if not isinstance(value, dict):
        return None
    item = value["function"] if isinstance(value.get("function"), dict) else value
    name = next((item[key] for key in ("name", "tool", "function") if key in item), None)
    if not isinstance(name, str) or name not in names:
        return None
    if read_call(value, "", Match(names)) is not None:
        return None
    has_arguments = "arguments" in item or "args" in item
    if not has_arguments and ("description" in item or looks_like_schema(item.get("parameters"))):
        return CallFault("schema_echo", name)
    return CallFault("bad_arguments", name)


def correction_message(fault: CallFault, tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The user message answering ``fault``: what went wrong and the call's exact form.

    ``tools`` are the offered OpenAI tool schemas; the example call lists the
    tool's parameters with their types.
    """
    tool = fault.tool
    problem = {
        "schema_echo": f"you wrote the definition of the function {tool} instead of calling it",
        "bad_arguments": f"your call of {tool} has no readable arguments: they must be a JSON "
        'object under "arguments"',
        "invalid_json": f"your call of {tool} is not valid JSON",
    }[fault.kind]
    return {
        "role": "user",
        "content": f"Observation (error): {problem}. To call it, reply with only "
        f"{_example_call(tool, tools)}. If no function is needed, answer in plain text.",
    }


def _example_call(name: str, tools: Sequence[dict[str, Any]]) -> str:
    spec: dict[str, Any] = next(
        (
            tool.get("function", tool)
            for tool in tools
            if tool.get("function", tool).get("name") == name
        ),
        {},
    )
    properties = (spec.get("parameters") or {}).get("properties") or {}
    arguments = ", ".join(
        f'"{key}": <{schema.get("type", "value") if isinstance(schema, dict) else "value"}>'
        for key, schema in properties.items()
    )
    return f'{{"name": "{name}", "arguments": {{{arguments}}}}}'
