"""AgentObservers: who sees the agent's events besides the caller.

Every event of a turn goes, as it happens, to the live display
(``verbose=True``), the OpenTelemetry tracer (``tracing=...``) and any
``on_event`` callables. Observers see events; they cannot change the run
(hooks can, see :mod:`praisonlike.agent.hooks`). The list is made from the
spec at the first turn and kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.loggers import get_logger

if TYPE_CHECKING:
    from praisonlike.agent.spec import AgentSpec

Observer = Callable[[Any], None]


class AgentObservers:
    """The agent's observers, made once from its spec."""

    def __init__(self) -> None:
        self._observers: list[Observer] | None = None

    def of(self, spec: AgentSpec) -> list[Observer]:
        """Display, tracer and ``on_event`` callables, in that order."""
        if self._observers is None:
            observers: list[Observer] = []
            if spec.verbose:
                from praisonlike.display import LiveDisplay

                observers.append(LiveDisplay())
            if spec.tracing is True:
                from praisonlike.tracing import OTelTracer

                observers.append(OTelTracer(agent_name=spec.name))
            elif spec.tracing:
                observers.append(spec.tracing)
            observers.extend(spec.on_event)
            self._observers = observers
        return self._observers

    def notify(self, spec: AgentSpec, event: Any) -> None:
        """Hand an event outside a turn (a background summary) to the observers.

        An observer that raises is logged and skipped.
        """
        for observer in self.of(spec):
            try:
                observer(event)
            except Exception:
                get_logger().exception("an event observer failed")
