"""ContextMixin: keeps every request inside the model's context budget.

A thin adapter over :mod:`praisonlike.context`: one :class:`ContextManager`
per model (the window depends on the model), so token counts cached for one
turn are reused by the next. With ``context=False`` requests are sent as they
are, but a provider's context-window error is still healed by an emergency
compaction.

Uses from ``self``: ``context_config`` (a ContextConfig, or None when off).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from praisonlike.context import ContextConfig, ContextManager, Prepared
from praisonlike.llm.turn_spec import ContextSeam


class _ContextSeam:
    """What the tool loop calls before each model request."""

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

    def count(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> int:
        counter = self._manager.counter
        return counter.count_messages(messages) + counter.count_tools(tools)


class ContextMixin:
    context_config: ContextConfig | None
    _context_seams: dict[str, _ContextSeam]

    def _context_for(self, model: str) -> ContextSeam:
        seam = self._context_seams.get(model)
        if seam is None:
            config = self.context_config or ContextConfig()
            seam = _ContextSeam(ContextManager(model, config), self.context_config is not None)
            self._context_seams[model] = seam
        return seam
