"""Deprecated: :class:`praisonlike.llm.run.Run` replaces the dispatcher."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from praisonlike.llm.run import Run

if TYPE_CHECKING:
    from praisonlike.llm.turn_spec import TurnSpec
    from praisonlike.tools.executor import TurnTools


class Dispatcher(Run):
    """Deprecated alias of :class:`~praisonlike.llm.run.Run`: ``Run(spec, tools, owner=...)``.

    ``hooks`` is ignored (the loop runs ``spec.hooks``); the owner is ``spec.agent``.
    """

    def __init__(self, spec: TurnSpec, execute_tool: TurnTools, hooks: Any = None) -> None:
        warnings.warn(
            "Dispatcher is deprecated; use praisonlike.llm.run.Run(spec, tools, owner=...)",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(spec, execute_tool, owner=spec.agent)
