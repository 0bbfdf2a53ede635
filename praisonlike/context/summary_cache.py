"""Reusing the last summary while a conversation only grows.

The agent keeps its full history and sends it with every request, so once a
conversation is past the trigger every request is compacted again; with the
``summarise`` strategy that would be one summary call per request.
:class:`SummaryCache` remembers the messages the last summary covered (a
structural copy, so a message changed in place since is noticed) and the
summary text as it was sent. When a new conversation starts with exactly those
messages as whole turns, the manager can send the same summary again, or ask
the summary model only about the turns dropped since, together with it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from praisonlike.context.messages import Message, flatten, snapshot
from praisonlike.context.tokens import TokenCounter
from praisonlike.context.turns import Conversation


@dataclass(frozen=True)
class CachedSummary:
    """A summary that covers the first ``turns`` turns of a conversation.

    ``covered`` is how many messages those turns hold and ``tokens`` their
    token count without the reply priming (the sum of ``count_message``);
    ``turns`` is never the whole conversation (the current turn is never
    covered).
    """

    text: str
    turns: int
    covered: int
    tokens: int


class SummaryCache:
    """The last summary of one manager and the messages it replaced. Thread-safe."""

    def __init__(self) -> None:
        self._covered: list[Message] = []
        self._text: str | None = None
        self._tokens = 0
        self._lock = threading.Lock()

    def lookup(self, conversation: Conversation) -> CachedSummary | None:
        """The remembered summary if ``conversation`` (after its system head)
        starts with the messages it covered, ending on a turn boundary before
        the current turn; else None."""
        with self._lock:
            covered, text, tokens = self._covered, self._text, self._tokens
        if text is None:
            return None
        turns = size = 0
        while size < len(covered) and turns < len(conversation.turns) - 1:
            size += len(conversation.turns[turns])
            turns += 1
        if turns == 0 or size != len(covered):
            return None
        if flatten(conversation.turns[:turns]) != covered:
            return None
        return CachedSummary(text=text, turns=turns, covered=size, tokens=tokens)

    def remember(self, covered: Sequence[Message], text: str, counter: TokenCounter) -> None:
        """Remember that ``text`` was sent in place of ``covered`` (ignored when empty)."""
        if not covered:
            return
        copy = [snapshot(message) for message in covered]
        tokens = sum(counter.count_message(message) for message in covered)
        with self._lock:
            self._covered, self._text, self._tokens = copy, text, tokens

    def clear(self) -> None:
        """Forget the remembered summary."""
        with self._lock:
            self._covered, self._text, self._tokens = [], None, 0
