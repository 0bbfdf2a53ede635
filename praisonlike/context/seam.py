"""The context seam of an agent: its :class:`ContextManager` as the tool loop sees it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from praisonlike.context.manager import ContextManager
from praisonlike.context.prepared import Prepared
from praisonlike.context.tokens import TokenCounter


class AgentContextSeam:
    """What the tool loop calls before each model request of an agent's turn.

    With ``enabled=False`` (``Agent(context=False)``) requests pass as they are,
    but :meth:`emergency` still compacts after a context-window error.
    """

    def __init__(self, manager: ContextManager, enabled: bool) -> None:
        self._manager = manager
        self._enabled = enabled
        self.summary_model = manager.config.summary_model

    def route(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any:
        if not self._enabled:
            return "fits"
        return self._manager.route(messages, tools)

    def prepare(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Prepared:
        if not self._enabled:
            return Prepared(messages=messages, report=None)
        return self._manager.prepare(messages, tools)

    def emergency(
        self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> Prepared:
        return self._manager.emergency(messages, tools)

    def forget_history(self) -> None:
        self._manager.forget_history()

    @property
    def window(self) -> int:
        """The manager's input budget (see :attr:`ContextManager.window`)."""
        return self._manager.window

    @property
    def counter(self) -> TokenCounter:
        """The manager's token counter (its cache is shared with every request)."""
        return self._manager.counter

    def count(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> int:
        counter = self._manager.counter
        return counter.count_messages(messages) + counter.count_tools(tools)
