"""Tool calls written as text, for models that cannot return OpenAI ``tool_calls``.

Pure functions: :func:`parse_text_tool_calls` reads a ReAct model's calls,
:func:`is_whole_answer_a_call` catches a native model that wrote its call as
text, and :func:`unoffered_calls` a whole answer calling a tool that was not
offered. (Keeping a call's text out of a stream:
:mod:`praisonlike.react.stream`; replies that try to call but fail:
:mod:`praisonlike.react.call_faults`; teaching the protocol and feeding results
back: :mod:`praisonlike.react.prompt`.) A call is a JSON object naming a
tool in ``"name"`` / ``"tool"`` / ``"function"``, with arguments in
``"arguments"``, ``"args"`` or ``"parameters"`` (an object or a JSON string of
one; a JSON schema there is a tool definition, not a call). Nothing here raises
on model output: text that is not a call gives ``[]``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

MAX_TEXT_CHARS = 200_000
"""Answers longer than this are never parsed as calls."""

FENCE = "```"
OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"
_NAME_KEYS = ("name", "tool", "function")
_ARGUMENT_KEYS = ("arguments", "args", "parameters")
_ALLOWED_KEYS = frozenset({*_NAME_KEYS, *_ARGUMENT_KEYS, "type", "id"})
_FENCE_LANGUAGES = frozenset({"json", "json5", "jsonc", "tool_call", "tool", "js", "javascript"})


@dataclass(frozen=True)
class TextToolCall:
    """One tool call read from text.

    Attributes:
        name: the tool's name; an offered tool's, except in what
            :func:`unoffered_calls` returns.
        arguments: the call's arguments (``{}`` when the model gave none).
        raw: the snippet the call was read from, wrapper included (the whole
            fenced block, ``<tool_call>`` block or bare JSON text).
    """

    name: str
    arguments: dict[str, Any]
    raw: str


@dataclass(frozen=True)
class Match:
    """Which JSON objects count as calls: those naming one of ``names`` (any name
    when ``None``), and, with ``need_arguments``, only those with an arguments key."""

    names: frozenset[str] | None
    need_arguments: bool = False


CALL_SHAPED = Match(names=None, need_arguments=True)


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    payload: str
    kind: str


def parse_text_tool_calls(text: str, offered: Collection[str]) -> list[TextToolCall]:
    """The tool calls written in ``text``, or ``[]`` when it holds none.

    Looks, in this order of precedence, for ``<tool_call>...</tool_call>``
    blocks (a last unclosed block runs to the end of the text), then fenced
    blocks (```` ```json ```` or bare ```` ``` ````) anywhere in the text, then
    the whole stripped text as a JSON object or list, then bare JSON objects
    outside those blocks. A block counts only when all it holds are calls (a
    list of calls gives several). A bare object counts when it is a call with
    an arguments key and nothing but whitespace follows it on its line: so
    several calls on separate lines, or a call after a sentence, are all read,
    while ``I would call {...} now`` is not a call. Never raises.
    """
    try:
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return []
        match = Match(frozenset(offered))
        for kind in (OPEN_TAG, FENCE):
            calls = [
                call
                for block in _blocks(text, kind)
                for call in block_calls(text, block, match) or ()
            ]
            if calls:
                return calls
        stripped = text.strip()
        return _payload_calls(stripped, stripped, match) or _bare_calls(text, match)
    except RecursionError:
        return []


def text_around_calls(text: str, names: Collection[str]) -> str:
    """``text`` without the calls of ``names`` written in it: the prose around them,
    stripped; empty when no call can be found (the whole text was an attempt)."""
    found = parse_text_tool_calls(text, names)
    if not found:
        return ""
    for call in found:
        text = text.replace(call.raw, "", 1)
    return text.strip()


def is_whole_answer_a_call(text: str, offered: Collection[str]) -> list[TextToolCall]:
    """The calls when the WHOLE ``text`` is tool call(s), else ``[]``.

    The stripped text must be one JSON call (or list of calls), or a sequence
    of fenced or ``<tool_call>`` blocks separated only by whitespace, each
    holding only calls. Any prose around the JSON gives ``[]``. Never raises.
    """
    return _whole_answer_calls(text, Match(frozenset(offered)))


def may_be_whole_call(text: str) -> bool:
    """False when ``text`` cannot be a whole-answer call: its first non-blank character
    opens no JSON value, ``<tool_call>`` block or fence (a cheap test before parsing)."""
    stripped = text.lstrip()
    return stripped[:1] in ("{", "[") or stripped.startswith((OPEN_TAG, FENCE))


def unoffered_calls(text: str, offered: Collection[str]) -> list[TextToolCall]:
    """The calls of a whole answer that calls a tool which was NOT offered, else ``[]``.

    Applies when tools are offered and the whole stripped text has the form
    :func:`is_whole_answer_a_call` accepts, every object in it naming a tool
    (any name) and carrying an arguments key (``"arguments"``, ``"args"`` or
    ``"parameters"``), and at least one name is not in ``offered``. Then every
    call is returned, offered or not, in order, so that the unknown ones can be
    answered with an error. Gives ``[]`` when nothing is offered, when all names
    are offered (those are ordinary calls), when an object has no arguments key
    (``{"name": "Paris"}`` is an answer), or when there is prose around the
    JSON. Never raises.
    """
    names = frozenset(offered)
    if not names:
        return []
    calls = _whole_answer_calls(text, CALL_SHAPED)
    if any(call.name not in names for call in calls):
        return calls
    return []


def _whole_answer_calls(text: str, match: Match) -> list[TextToolCall]:
    try:
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return []
        stripped = text.strip()
        for kind in (OPEN_TAG, FENCE):
            if stripped.startswith(kind):
                return _whole_blocks(stripped, kind, match)
        return _payload_calls(stripped, stripped, match) or []
    except RecursionError:
        return []


def _bare_calls(text: str, match: Match) -> list[TextToolCall]:
    """Calls written as bare JSON objects outside blocks, each ending its line."""
    bare = Match(match.names, need_arguments=True)
    skip = [(b.start, b.end) for kind in (OPEN_TAG, FENCE) for b in _blocks(text, kind)]
    decoder = json.JSONDecoder()
    calls: list[TextToolCall] = []
    position = 0
    while (start := text.find("{", position)) >= 0:
        inside = next((end for low, end in skip if low <= start < end), None)
        if inside is not None:
            position = inside
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            line_end = text.find("\n", start)
            position = len(text) if line_end < 0 else line_end + 1
            continue
        line_end = text.find("\n", end)
        call = read_call(value, text[start:end], bare)
        if call is not None and not text[end : len(text) if line_end < 0 else line_end].strip():
            calls.append(call)
        position = end
    return calls


def looks_like_schema(value: Any) -> bool:
    """True for a JSON schema of an object (``{"type": "object", "properties": {...}}``)."""
    return (
        isinstance(value, dict)
        and value.get("type") == "object"
        and isinstance(value.get("properties"), dict)
    )


def _blocks(text: str, kind: str) -> Iterator[Block]:
    """The blocks of one kind, paired left to right; a last unclosed tag block runs to the end."""
    position = 0
    while True:
        start = text.find(kind, position)
        if start < 0:
            return
        block = closed_block(text, kind, start)
        if block is None:
            if kind == OPEN_TAG:
                yield Block(start, len(text), text[start + len(kind) :], kind)
            return
        yield block
        position = block.end


def closed_block(text: str, kind: str, start: int) -> Block | None:
    """The block opened by ``kind`` at ``start``; ``None`` while it is not closed."""
    body = start + len(kind)
    closer = FENCE if kind == FENCE else CLOSE_TAG
    end = text.find(closer, body)
    if end < 0:
        return None
    return Block(start, end + len(closer), text[body:end], kind)


def block_calls(text: str, block: Block, match: Match) -> list[TextToolCall] | None:
    raw = text[block.start : block.end]
    payload: str | None = block.payload.strip()
    if block.kind == OPEN_TAG and payload and payload.startswith(FENCE) and payload.endswith(FENCE):
        payload = payload[len(FENCE) : -len(FENCE)].strip()
        payload = _strip_language(payload)
    elif block.kind == FENCE:
        payload = _strip_language(payload or "")
    if payload is None:
        return None
    return _payload_calls(payload, raw, match)


def _strip_language(payload: str) -> str | None:
    """The fenced payload without its language tag; ``None`` for a non-JSON language."""
    if not payload or payload[0] in "{[":
        return payload
    word_end = 0
    while (
        word_end < len(payload)
        and not payload[word_end].isspace()
        and payload[word_end] not in "{["
    ):
        word_end += 1
    if payload[:word_end].lower() not in _FENCE_LANGUAGES:
        return None
    return payload[word_end:].strip()


def _whole_blocks(stripped: str, kind: str, match: Match) -> list[TextToolCall]:
    calls: list[TextToolCall] = []
    position = 0
    for block in _blocks(stripped, kind):
        if stripped[position : block.start].strip():
            return []
        found = block_calls(stripped, block, match)
        if not found:
            return []
        calls += found
        position = block.end
    if stripped[position:].strip():
        return []
    return calls


def _payload_calls(payload: str, raw: str, match: Match) -> list[TextToolCall] | None:
    if not payload or payload[0] not in "{[":
        return None
    try:
        value = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    items = value if isinstance(value, list) else [value]
    if not items:
        return None
    calls = [read_call(item, raw, match) for item in items]
    if any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def read_call(item: Any, raw: str, match: Match) -> TextToolCall | None:
    """``item`` (a decoded JSON value) as a call ``match`` accepts, else ``None``."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict) and "name" not in item:
        if set(item) - {"function", "type", "id"}:
            return None
        item = function
    if set(item) - _ALLOWED_KEYS:
        return None
    name = next((item[key] for key in _NAME_KEYS if isinstance(item.get(key), str)), None)
    if name is None or (match.names is not None and name not in match.names):
        return None
    present = [key for key in _ARGUMENT_KEYS if key in item]
    if len(present) > 1 or (match.need_arguments and not present):
        return None
    if present == ["parameters"] and looks_like_schema(item["parameters"]):
        return None
    arguments = _as_arguments(item[present[0]]) if present else {}
    if arguments is None:
        return None
    return TextToolCall(name=name, arguments=arguments, raw=raw)


def _as_arguments(value: Any) -> dict[str, Any] | None:
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def __getattr__(name: str) -> Any:
    """``StreamCallDetector`` lives in :mod:`praisonlike.react.stream`; importable from here."""
    if name == "StreamCallDetector":
        from praisonlike.react.stream import StreamCallDetector

        return StreamCallDetector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
