"""Tool calls written as text, for models that cannot return OpenAI ``tool_calls``.

Pure functions: :func:`parse_text_tool_calls` reads a ReAct model's calls,
:class:`StreamCallDetector` keeps a call's text out of a streamed answer,
:func:`is_whole_answer_a_call` catches a native model that wrote its call as
text, and :func:`unoffered_calls` a whole answer calling a tool that was not
offered. (Teaching the protocol and feeding results back:
:mod:`praisonlike.llm.react_prompt`.) A call is a JSON object naming a tool in
``"name"`` / ``"tool"`` / ``"function"``, with arguments in ``"arguments"``,
``"args"`` or ``"parameters"`` (an object or a JSON string of one). Nothing
here raises on model output: text that is not a call gives ``[]``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

MAX_TEXT_CHARS = 200_000
"""Answers longer than this are never parsed as calls."""

_FENCE = "```"
_OPEN_TAG = "<tool_call>"
_CLOSE_TAG = "</tool_call>"
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
class _Match:
    """Which JSON objects count as calls: those naming one of ``names`` (any name
    when ``None``), and, with ``need_arguments``, only those with an arguments key."""

    names: frozenset[str] | None
    need_arguments: bool = False


_CALL_SHAPED = _Match(names=None, need_arguments=True)


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    payload: str
    kind: str


def parse_text_tool_calls(text: str, offered: Collection[str]) -> list[TextToolCall]:
    """The tool calls written in ``text``, or ``[]`` when it holds none.

    Looks, in this order of precedence, for ``<tool_call>...</tool_call>``
    blocks (a last unclosed block runs to the end of the text), then fenced
    blocks (```` ```json ```` or bare ```` ``` ````) anywhere in the text, then
    the whole stripped text as a JSON object or list. A block counts only when
    all it holds are calls (a list of calls gives several). Bare JSON inside
    prose is not a call. Never raises.
    """
    try:
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return []
        match = _Match(frozenset(offered))
        for kind in (_OPEN_TAG, _FENCE):
            calls = [
                call
                for block in _blocks(text, kind)
                for call in _block_calls(text, block, match) or ()
            ]
            if calls:
                return calls
        stripped = text.strip()
        return _payload_calls(stripped, stripped, match) or []
    except RecursionError:
        return []


def is_whole_answer_a_call(text: str, offered: Collection[str]) -> list[TextToolCall]:
    """The calls when the WHOLE ``text`` is tool call(s), else ``[]``.

    The stripped text must be one JSON call (or list of calls), or a sequence
    of fenced or ``<tool_call>`` blocks separated only by whitespace, each
    holding only calls. Any prose around the JSON gives ``[]``. Never raises.
    """
    return _whole_answer_calls(text, _Match(frozenset(offered)))


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
    calls = _whole_answer_calls(text, _CALL_SHAPED)
    if any(call.name not in names for call in calls):
        return calls
    return []


def _whole_answer_calls(text: str, match: _Match) -> list[TextToolCall]:
    try:
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return []
        stripped = text.strip()
        for kind in (_OPEN_TAG, _FENCE):
            if stripped.startswith(kind):
                return _whole_blocks(stripped, kind, match)
        return _payload_calls(stripped, stripped, match) or []
    except RecursionError:
        return []


class StreamCallDetector:
    """Keeps the text of tool calls out of a streamed ReAct answer.

    Feed each text delta to :meth:`feed`; it returns the text safe to show now.
    Text is held back only while it may still be (part of) a call: an answer
    starting, after whitespace, with ``{`` or ``[`` is held to the end; a
    fenced or ``<tool_call>`` block (or a trailing prefix of its opener) is held
    until it closes and is known not to be a call. :meth:`finish` returns the
    rest of the text and the calls, which are always exactly
    ``parse_text_tool_calls(whole_text, offered)``; when there are calls the held
    text is dropped, so no call text is ever emitted.

    A whole answer calling a tool that was not offered (see
    :func:`unoffered_calls`) is treated as a call too: a block at the start
    that has a call's shape is held to the end, and :meth:`finish` returns
    those calls and drops the text.
    """

    def __init__(self, offered: Collection[str]) -> None:
        self._offered = frozenset(offered)
        self._match = _Match(self._offered)
        self._text = ""
        self._released = 0
        self._open: tuple[str, int] | None = None
        self._hold_all = False
        self._finished = False

    @property
    def text(self) -> str:
        """The whole text fed so far."""
        return self._text

    def feed(self, delta: str) -> str:
        """Add ``delta``; return the newly releasable text (possibly ``""``)."""
        if self._finished:
            raise RuntimeError("StreamCallDetector.feed() after finish()")
        self._text += delta
        if len(self._text) > MAX_TEXT_CHARS:
            return self._release_to(len(self._text))
        start = self._released
        self._advance()
        return self._text[start : self._released]

    def finish(self) -> tuple[str, list[TextToolCall]]:
        """End the stream: ``(text still held and now released, calls)``.

        The calls are ``parse_text_tool_calls(text, offered) or
        unoffered_calls(text, offered)`` for the whole text.
        """
        self._finished = True
        calls = parse_text_tool_calls(self._text, self._offered) or unoffered_calls(
            self._text, self._offered
        )
        if calls:
            return "", calls
        return self._release_to(len(self._text)), []

    def _release_to(self, end: int) -> str:
        start, self._released = self._released, end
        self._open = None
        return self._text[start:end]

    def _may_be_unoffered_call(self, block: _Block) -> bool:
        """A call-shaped block opening the answer, which may be a whole unoffered call."""
        return (
            bool(self._offered)
            and not self._text[: block.start].strip()
            and bool(_block_calls(self._text, block, _CALL_SHAPED))
        )

    def _advance(self) -> None:
        text = self._text
        while not self._hold_all:
            if self._open is not None:
                block = _closed_block(text, *self._open)
                if block is None:
                    return
                if (
                    _unclean(block)
                    or _block_calls(text, block, self._match)
                    or self._may_be_unoffered_call(block)
                ):
                    self._hold_all = True
                    return
                self._released, self._open = block.end, None
                continue
            if self._released == 0:
                head = text.lstrip()
                if not head or _is_partial_opener(head):
                    return
                if head[0] in "{[":
                    self._hold_all = True
                    return
            opener = _next_opener(text, self._released)
            if opener is not None:
                self._released, self._open = opener[1], opener
                continue
            self._released = len(text) - _partial_opener_suffix(text, self._released)
            return


def _blocks(text: str, kind: str) -> Iterator[_Block]:
    """The blocks of one kind, paired left to right; a last unclosed tag block runs to the end."""
    position = 0
    while True:
        start = text.find(kind, position)
        if start < 0:
            return
        block = _closed_block(text, kind, start)
        if block is None:
            if kind == _OPEN_TAG:
                yield _Block(start, len(text), text[start + len(kind) :], kind)
            return
        yield block
        position = block.end


def _closed_block(text: str, kind: str, start: int) -> _Block | None:
    """The block opened by ``kind`` at ``start``; ``None`` while it is not closed."""
    body = start + len(kind)
    closer = _FENCE if kind == _FENCE else _CLOSE_TAG
    end = text.find(closer, body)
    if end < 0:
        return None
    return _Block(start, end + len(closer), text[body:end], kind)


def _unclean(block: _Block) -> bool:
    """True when a block holds the other kind's opener (so both scanners may disagree)."""
    other = _FENCE if block.kind == _OPEN_TAG else _OPEN_TAG
    return other in block.payload


def _next_opener(text: str, position: int) -> tuple[str, int] | None:
    found = [(text.find(kind, position), kind) for kind in (_FENCE, _OPEN_TAG)]
    hits = [(index, kind) for index, kind in found if index >= 0]
    if not hits:
        return None
    index, kind = min(hits)
    return kind, index


def _is_partial_opener(head: str) -> bool:
    return any(len(head) < len(kind) and kind.startswith(head) for kind in (_FENCE, _OPEN_TAG))


def _partial_opener_suffix(text: str, position: int) -> int:
    """Length of the longest tail of ``text[position:]`` that is a proper prefix of an opener."""
    longest = 0
    for kind in (_FENCE, _OPEN_TAG):
        for size in range(min(len(kind) - 1, len(text) - position), 0, -1):
            if text.endswith(kind[:size]):
                longest = max(longest, size)
                break
    return longest


def _block_calls(text: str, block: _Block, match: _Match) -> list[TextToolCall] | None:
    raw = text[block.start : block.end]
    payload: str | None = block.payload.strip()
    if (
        block.kind == _OPEN_TAG
        and payload
        and payload.startswith(_FENCE)
        and payload.endswith(_FENCE)
    ):
        payload = payload[len(_FENCE) : -len(_FENCE)].strip()
        payload = _strip_language(payload)
    elif block.kind == _FENCE:
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


def _whole_blocks(stripped: str, kind: str, match: _Match) -> list[TextToolCall]:
    calls: list[TextToolCall] = []
    position = 0
    for block in _blocks(stripped, kind):
        if stripped[position : block.start].strip():
            return []
        found = _block_calls(stripped, block, match)
        if not found:
            return []
        calls += found
        position = block.end
    if stripped[position:].strip():
        return []
    return calls


def _payload_calls(payload: str, raw: str, match: _Match) -> list[TextToolCall] | None:
    if not payload or payload[0] not in "{[":
        return None
    try:
        value = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    items = value if isinstance(value, list) else [value]
    if not items:
        return None
    calls = [_as_call(item, raw, match) for item in items]
    if any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _as_call(item: Any, raw: str, match: _Match) -> TextToolCall | None:
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
