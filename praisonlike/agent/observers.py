"""ObserversMixin: who sees the agent's events besides the caller.

Every event of a turn goes, as it happens, to the live display
(``verbose=True``), the OpenTelemetry tracer (``tracing=...``) and any
``on_event`` callables. Observers see events; they cannot change the run
(hooks can, see :mod:`praisonlike.agent.hooks`).

Uses from ``self``: ``verbose``, ``tracing``, ``on_event``, ``_observer_cache``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from praisonlike.log import get_logger

Observer = Callable[[Any], None]


class ObserversMixin:
    verbose: bool
    tracing: Any
    on_event: tuple[Observer, ...]
    _observer_cache: list[Observer] | None

    def _agent_observers(self) -> list[Observer]:
        if self._observer_cache is None:
            observers: list[Observer] = []
            if self.verbose:
                from praisonlike.display import LiveDisplay

                observers.append(LiveDisplay())
            if self.tracing is True:
                from praisonlike.tracing import OTelTracer

                observers.append(OTelTracer(agent_name=getattr(self, "name", None)))
            elif self.tracing:
                observers.append(self.tracing)
            observers.extend(self.on_event)
            self._observer_cache = observers
        return self._observer_cache

    def _notify(self, event: Any) -> None:
        """Hand an event outside a turn (a background summary) to the observers."""
        for observer in self._agent_observers():
            try:
                observer(event)
            except Exception:
                get_logger().exception("an event observer failed")
