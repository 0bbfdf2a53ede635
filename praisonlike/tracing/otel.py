"""OTelTracer: praisonlike events in, OpenTelemetry GenAI spans out.

This module imports no OpenTelemetry code; constructing an :class:`OTelTracer`
does, so a program that never traces never loads it.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from praisonlike.errors import ConfigurationError
from praisonlike.events import Event, RunFinished, RunStarted

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

    from praisonlike.tracing.run_spans import RunSpans


class OTelTracer:
    """Turns the events of praisonlike runs into OpenTelemetry spans.

    Call it with every event of a run (``Agent(tracing=...)`` does). Each run
    becomes an ``invoke_agent`` span, parented on the span current when its
    ``run_started`` arrives, with a ``chat <model>`` child per model call and an
    ``execute_tool <name>`` child per tool call, named and attributed after the
    OpenTelemetry GenAI semantic conventions (see ``docs/tracing.md``). Span
    times are the times events reach the tracer.

    ``tracer_provider=None`` uses the global provider. Prompts, answers, tool
    arguments and tool results are recorded only with ``capture_content=True``.
    ``agent_name`` names the agent span, taking precedence over the name the
    run reports. One tracer may serve several runs at once, from any threads:
    state is kept per ``run_id``. Every span is ended when ``run_finished``
    arrives; for runs abandoned midway, call :meth:`close`.

    Raises :class:`praisonlike.errors.ConfigurationError` when
    ``opentelemetry-api`` is not installed.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        capture_content: bool = False,
        agent_name: str | None = None,
    ) -> None:
        try:
            from opentelemetry import trace
        except ImportError as exc:
            raise ConfigurationError(
                "tracing needs OpenTelemetry: pip install 'praisonlike[otel]'"
            ) from exc
        from praisonlike import __version__
        from praisonlike.tracing.run_spans import RunSpans

        self._tracer = trace.get_tracer("praisonlike", __version__, tracer_provider=tracer_provider)
        self._run_spans = RunSpans
        self._capture_content = capture_content
        self._agent_name = agent_name
        self._lock = threading.Lock()
        self._runs: dict[str, RunSpans] = {}

    def __call__(self, event: Event) -> None:
        """Record one event. Events of runs whose ``run_started`` it never saw are ignored."""
        now = time.time_ns()
        if isinstance(event, RunStarted):
            run = self._run_spans(
                self._tracer,
                event,
                agent_name=self._agent_name,
                capture_content=self._capture_content,
                now=now,
            )
            with self._lock:
                previous = self._runs.get(event.run_id)
                self._runs[event.run_id] = run
            if previous is not None:
                previous.abandon(now)
            return
        with self._lock:
            current = self._runs.get(event.run_id)
        if current is None:
            return
        current.handle(event, now)
        if isinstance(event, RunFinished):
            with self._lock:
                if self._runs.get(event.run_id) is current:
                    del self._runs[event.run_id]

    def close(self, run_id: str | None = None) -> None:
        """End the spans of unfinished runs (all of them, or only ``run_id``).

        Their open spans end now with status ERROR and ``error.type``
        ``"abandoned"``. Later events of a closed run are ignored. Safe to call
        more than once.
        """
        now = time.time_ns()
        with self._lock:
            if run_id is None:
                runs = list(self._runs.values())
                self._runs.clear()
            else:
                found = self._runs.pop(run_id, None)
                runs = [] if found is None else [found]
        for run in runs:
            run.abandon(now)

    @property
    def open_runs(self) -> frozenset[str]:
        """The ``run_id`` of every run started but neither finished nor closed."""
        with self._lock:
            return frozenset(self._runs)
