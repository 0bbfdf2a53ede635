"""Remembering the history of the previous request, to measure only what is new.

An agent sends its whole history with every request, one or two messages
longer each turn. :class:`HistoryMemo` keeps a structural copy of the last
list it measured plus running totals, finds how much of a new list is the same
(one C-level deep comparison, no per-message Python work) and measures only
the rest. Because the comparison is deep, a message changed in place since the
last call is noticed and measured again: there is no stale total.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from praisonlike.context.messages import Message

_CHUNK = 256


def snapshot(value: Any) -> Any:
    """A copy of the containers in ``value`` that shares its immutable leaves."""
    if isinstance(value, dict):
        return {key: snapshot(item) for key, item in value.items()}
    if isinstance(value, list):
        return [snapshot(item) for item in value]
    if isinstance(value, tuple):
        return tuple(snapshot(item) for item in value)
    return value


class HistoryMemo:
    """Running sums of per-message measures over the last measured list.

    ``measure`` is called once per new message and returns a tuple of ints
    (for example its token count and whether it is an oversize tool result);
    :meth:`totals` returns the element-wise sums over a whole list.
    Thread-safe.
    """

    def __init__(self, measure: Callable[[Message], tuple[int, ...]], width: int) -> None:
        self._measure = measure
        self._width = width
        self._snapshot: list[Message] = []
        self._sums: list[tuple[int, ...]] = [(0,) * width]
        self._lock = threading.Lock()

    def totals(self, messages: Sequence[Message]) -> tuple[int, ...]:
        with self._lock:
            common = self._common_prefix(messages)
            del self._snapshot[common:]
            del self._sums[common + 1 :]
            for message in messages[common:]:
                measured = self._measure(message)
                previous = self._sums[-1]
                self._sums.append(tuple(a + b for a, b in zip(previous, measured, strict=True)))
                self._snapshot.append(snapshot(message))
            return self._sums[len(messages)]

    def reset(self) -> None:
        """Forget the remembered list (the next call measures its whole list)."""
        with self._lock:
            self._snapshot = []
            self._sums = [(0,) * self._width]

    def _common_prefix(self, messages: Sequence[Message]) -> int:
        """The length of the longest prefix ``messages`` shares with the snapshot.

        Compares chunk by chunk (each chunk one C-level comparison), then
        message by message inside the first chunk that differs.
        """
        known = self._snapshot
        limit = min(len(known), len(messages))
        start = 0
        while start < limit:
            end = min(limit, start + _CHUNK)
            if list(messages[start:end]) != known[start:end]:
                return next(i for i in range(start, end) if messages[i] != known[i])
            start = end
        return limit
