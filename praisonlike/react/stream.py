"""Keeping the text of ReAct tool calls out of a streamed answer.

:class:`StreamCallDetector` is fed the deltas of a streamed reply and releases
only the text that cannot be (part of) a call; its verdict at the end always
agrees with :func:`praisonlike.react.parse.parse_text_tool_calls` on the whole text.
"""

from __future__ import annotations

from collections.abc import Collection

from praisonlike.react.call_faults import find_call_fault
from praisonlike.react.parse import (
    CALL_SHAPED,
    FENCE,
    MAX_TEXT_CHARS,
    OPEN_TAG,
    Block,
    Match,
    TextToolCall,
    block_calls,
    closed_block,
    parse_text_tool_calls,
    unoffered_calls,
)


class StreamCallDetector:
    """Keeps the text of tool calls out of a streamed ReAct answer.

    Feed each text delta to :meth:`feed`; it returns the text safe to show now.
    Text is held back only while it may still be (part of) a call: an answer
    starting, after whitespace, with ``{`` or ``[`` is held to the end, and so
    is the text from a ``{"`` outside blocks (a bare call may follow a
    sentence); a fenced or ``<tool_call>`` block (or a trailing prefix of its
    opener) is held until it closes and is known not to be a call or a failed
    attempt at one. :meth:`finish` returns the rest of the text and the calls,
    which are always exactly ``parse_text_tool_calls(whole_text, offered)``;
    when there are calls the held text is dropped, so no call text is ever
    emitted.

    A whole answer calling a tool that was not offered (see
    :func:`unoffered_calls`) is treated as a call too: a block at the start
    that has a call's shape is held to the end, and :meth:`finish` returns
    those calls and drops the text. Held text that tries to call an offered
    tool but fails (see :func:`praisonlike.react.call_faults.find_call_fault`)
    is dropped too, since the turn answers it with a correction.
    """

    def __init__(self, offered: Collection[str]) -> None:
        self._offered = frozenset(offered)
        self._match = Match(self._offered)
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
        unoffered_calls(text, offered)`` for the whole text. The held text is
        ``""`` when there are calls or a failed call attempt.
        """
        self._finished = True
        calls = parse_text_tool_calls(self._text, self._offered) or unoffered_calls(
            self._text, self._offered
        )
        if calls:
            return "", calls
        held = self._text[self._released :]
        if len(self._text) <= MAX_TEXT_CHARS and find_call_fault(held, self._offered):
            return "", []
        return self._release_to(len(self._text)), []

    def _release_to(self, end: int) -> str:
        start, self._released = self._released, end
        self._open = None
        return self._text[start:end]

    def _may_be_unoffered_call(self, block: Block) -> bool:
        """A call-shaped block opening the answer, which may be a whole unoffered call."""
        return (
            bool(self._offered)
            and not self._text[: block.start].strip()
            and bool(block_calls(self._text, block, CALL_SHAPED))
        )

    def _advance(self) -> None:
        text = self._text
        while not self._hold_all:
            if self._open is not None:
                block = closed_block(text, *self._open)
                if block is None:
                    return
                if (
                    _unclean(block)
                    or block_calls(text, block, self._match)
                    or self._may_be_unoffered_call(block)
                    or find_call_fault(text[block.start : block.end], self._offered)
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
            brace = _call_brace(text, self._released, len(text) if opener is None else opener[1])
            if brace is not None:
                self._released, self._hold_all = brace
                return
            if opener is not None:
                self._released, self._open = opener[1], opener
                continue
            self._released = len(text) - _partial_opener_suffix(text, self._released)
            return


def _call_brace(text: str, position: int, limit: int) -> tuple[int, bool] | None:
    """The first ``{`` in ``text[position:limit]`` that may open a bare call.

    ``(index, True)`` for a ``{`` followed (after whitespace) by ``"``;
    ``(index, False)`` for one followed only by whitespace so far.
    """
    while (index := text.find("{", position, limit)) >= 0:
        rest = text[index + 1 :].lstrip()
        if not rest:
            return index, False
        if rest[0] == '"':
            return index, True
        position = index + 1
    return None


def _unclean(block: Block) -> bool:
    """True when a block holds the other kind's opener (so both scanners may disagree)."""
    other = FENCE if block.kind == OPEN_TAG else OPEN_TAG
    return other in block.payload


def _next_opener(text: str, position: int) -> tuple[str, int] | None:
    found = [(text.find(kind, position), kind) for kind in (FENCE, OPEN_TAG)]
    hits = [(index, kind) for index, kind in found if index >= 0]
    if not hits:
        return None
    index, kind = min(hits)
    return kind, index


def _is_partial_opener(head: str) -> bool:
    return any(len(head) < len(kind) and kind.startswith(head) for kind in (FENCE, OPEN_TAG))


def _partial_opener_suffix(text: str, position: int) -> int:
    """Length of the longest tail of ``text[position:]`` that is a proper prefix of an opener."""
    longest = 0
    for kind in (FENCE, OPEN_TAG):
        for size in range(min(len(kind) - 1, len(text) - position), 0, -1):
            if text.endswith(kind[:size]):
                longest = max(longest, size)
                break
    return longest
