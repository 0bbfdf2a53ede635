"""ContextMixin: keeps every request inside the model's context budget.

A thin adapter over :mod:`praisonlike.context`: one :class:`ContextManager`
per model (the window depends on the model), so token counts cached for one
turn are reused by the next. With ``context=False`` requests are sent as they
are, but a provider's context-window error is still healed by an emergency
compaction.

Uses from ``self``: ``context_config`` (a ContextConfig, or None when off).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike.context.config import ContextConfig

if TYPE_CHECKING:
    from praisonlike.context.seam import AgentContextSeam
    from praisonlike.context.tokens import TokenCounter
    from praisonlike.llm.turn_spec import ContextSeam


class ContextMixin:
    context_config: ContextConfig | None
    _context_seams: dict[str, AgentContextSeam]

    def _context_for(self, model: str) -> ContextSeam:
        seam = self._context_seams.get(model)
        if seam is None:
            from praisonlike.context.manager import ContextManager
            from praisonlike.context.seam import AgentContextSeam

            config = self.context_config or ContextConfig()
            manager = ContextManager(model, config, trust_identity=True)
            seam = AgentContextSeam(manager, self.context_config is not None)
            self._context_seams[model] = seam
        return seam

    def _token_counter(self, model: str) -> TokenCounter:
        """The token counter the context budget of ``model`` uses."""
        self._context_for(model)
        return self._context_seams[model].counter

    def _forget_context(self) -> None:
        """Drop what the context managers remember of the cleared conversation."""
        for seam in self._context_seams.values():
            seam.forget_history()
