"""Refusing, once a turn, a text tool call whose values come from nowhere.

A model that writes its tool calls as text (ReAct: the local models) sometimes
calls a tool for a request that needs none, with made-up values
(:mod:`praisonlike.react.grounding`). The first such reply of a turn is not
run: the model is told its values are not in the request and asked for a
plain-text answer, in a round that offers no tools. Should it send the same
call again, or a call with values from the request, that call runs and tool
use goes on; a value the model worked out itself (``Paris`` for "the capital of
France") costs one round. Models with native tool calls are not checked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from praisonlike.loop.commands import ToolCall
from praisonlike.react.grounding import refusal_for


class InventedCalls:
    """One turn's check of text tool calls; a no-op unless ``react``.

    ``prefix`` and ``messages`` are the turn's request as it grows (the system
    prompt and history, then the turn's own messages, appended to in place).
    """

    def __init__(
        self,
        prefix: Sequence[dict[str, Any]],
        messages: Sequence[dict[str, Any]],
        *,
        react: bool,
    ) -> None:
        self._request = (prefix, messages)
        self._react = react
        self._asked = False
        self._refused: set[tuple[str, str]] | None = None

    @property
    def pending(self) -> bool:
        """Whether the next reply answers a refusal (that round offers no tools)."""
        return self._refused is not None

    def refuse(self, calls: Sequence[ToolCall]) -> dict[str, str] | None:
        """The observation refusing ``calls`` when none of their values is in the
        request as sent, the first time in the turn; else None."""
        if not self._react or self._asked or not calls:
            return None
        refusal = self._refusal(calls)
        if refusal is not None:
            self._asked = True
            self._refused = {_key(c) for c in calls}
        return refusal

    def kept(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """Of the calls in the reply to a refusal, those to run: all of them when
        they repeat the refused calls or take a value from the request, else none."""
        refused, self._refused = self._refused or set(), None
        if not calls:
            return []
        if {_key(c) for c in calls} <= refused or self._refusal(calls) is None:
            return list(calls)
        return []

    def _refusal(self, calls: Sequence[ToolCall]) -> dict[str, str] | None:
        prefix, messages = self._request
        return refusal_for([(c.name, c.arguments) for c in calls], [*prefix, *messages])


def _key(call: ToolCall) -> tuple[str, str]:
    try:
        arguments = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
    except (ValueError, RecursionError):
        arguments = call.arguments
    return call.name, arguments


__all__ = ["InventedCalls"]
