"""OpenTelemetry tracing of agent runs: :class:`OTelTracer` and the :class:`Tracer` protocol.

Importing this package does not import OpenTelemetry; constructing a tracer does.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from praisonlike.events import Event
from praisonlike.tracing.otel import OTelTracer


@runtime_checkable
class Tracer(Protocol):
    """What ``Agent(tracing=...)`` accepts besides ``True``/``False``/``None``.

    It is called with every event of every run, and ``close()`` ends whatever
    it still holds of unfinished runs. :class:`OTelTracer` is one.
    """

    def __call__(self, event: Event) -> None: ...

    def close(self, run_id: str | None = None) -> None: ...


__all__ = ["OTelTracer", "Tracer"]
