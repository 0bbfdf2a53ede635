"""ContextSeams: the context budget of an agent's requests, one manager per model.

A thin adapter over :mod:`praisonlike.context`: one :class:`ContextManager`
per model (the window depends on the model), so token counts cached for one
turn are reused by the next. With ``context=False`` (a spec's
``context_config`` of ``None``) requests are sent as they are, but a
provider's context-window error is still healed by an emergency compaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike.context.config import ContextConfig

if TYPE_CHECKING:
    from praisonlike.context.seam import AgentContextSeam
    from praisonlike.context.tokens import TokenCounter


class ContextSeams:
    """The agent's context seams by model; the first request of a model makes its seam."""

    def __init__(self) -> None:
        self._seams: dict[str, AgentContextSeam] = {}

    def for_model(self, config: ContextConfig | None, model: str) -> AgentContextSeam:
        """The seam of ``model`` (``config`` ``None``: budgeting off), made on first use."""
        seam = self._seams.get(model)
        if seam is None:
            from praisonlike.context.manager import ContextManager
            from praisonlike.context.seam import AgentContextSeam

            manager = ContextManager(model, config or ContextConfig(), trust_identity=True)
            seam = AgentContextSeam(manager, config is not None)
            self._seams[model] = seam
        return seam

    def counter(self, config: ContextConfig | None, model: str) -> TokenCounter:
        """The token counter the context budget of ``model`` uses."""
        return self.for_model(config, model).counter

    def forget_history(self) -> None:
        """Drop what the managers remember of a cleared conversation."""
        for seam in self._seams.values():
            seam.forget_history()
