"""OpenTelemetry tracing of agent runs: :class:`OTelTracer`.

Importing this package does not import OpenTelemetry; constructing a tracer does.
"""

from __future__ import annotations

from praisonlike.tracing.otel import OTelTracer

__all__ = ["OTelTracer"]
