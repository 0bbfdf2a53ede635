"""Remembering the history of the previous request, to measure only what is new.

An agent sends its whole history with every request, one or two messages
longer each turn. :class:`HistoryMemo` remembers the last list it measured
plus running totals, finds how much of a new list is the same and measures
only the rest.

It compares the new list with the remembered one chunk by chunk, one
C-level list comparison each, with no per-message Python work. By default
the memo keeps a structural copy, so every message is compared by value and
one changed in place since the last call is noticed and measured again. With
``trust_identity=True`` it keeps the message objects themselves: the list
comparison skips a message that *is* the remembered one without looking
inside, and compares by value only where the objects differ. No copy, and no
walk through every message's content; for an owner whose messages are never
changed in place once sent, such as an agent's history.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from operator import add

from praisonlike.context.messages import Message, snapshot

_CHUNK = 256


class HistoryMemo:
    """Running sums of per-message measures over the last measured list.

    ``measure`` is called once per new message and returns a tuple of ints
    (for example its token count and whether it is an oversize tool result);
    :meth:`totals` returns the element-wise sums over a whole list.
    With ``trust_identity`` a remembered message object changed in place is
    not noticed (see the module docstring). Thread-safe.
    """

    def __init__(
        self,
        measure: Callable[[Message], tuple[int, ...]],
        width: int,
        *,
        trust_identity: bool = False,
    ) -> None:
        self._measure = measure
        self._width = width
        self._trust_identity = trust_identity
        self._known: list[Message] = []
        self._sums: list[tuple[int, ...]] = [(0,) * width]
        self._lock = threading.Lock()

    def totals(self, messages: Sequence[Message]) -> tuple[int, ...]:
        with self._lock:
            common = self._common_prefix(messages)
            if self._trust_identity:  # equal objects become the identical ones to skip next time
                self._known[:common] = messages[:common]
            del self._known[common:]
            del self._sums[common + 1 :]
            for message in messages[common:]:
                measured = self._measure(message)
                previous = self._sums[-1]
                self._sums.append(tuple(map(add, previous, measured)))
                self._known.append(message if self._trust_identity else snapshot(message))
            return self._sums[len(messages)]

    def reset(self) -> None:
        """Forget the remembered list (the next call measures its whole list)."""
        with self._lock:
            self._known = []
            self._sums = [(0,) * self._width]

    def _common_prefix(self, messages: Sequence[Message]) -> int:
        """The length of the longest prefix ``messages`` shares with the remembered list.

        Compares chunk by chunk (each chunk one C-level list comparison, which
        skips identical objects without looking inside and compares the others
        by value), then message by message inside the first chunk that differs.
        """
        known = self._known
        limit = min(len(known), len(messages))
        start = 0
        while start < limit:
            end = min(limit, start + _CHUNK)
            if list(messages[start:end]) != known[start:end]:
                return next(i for i in range(start, end) if messages[i] != known[i])
            start = end
        return limit
