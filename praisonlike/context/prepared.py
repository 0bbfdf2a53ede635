"""What :meth:`ContextManager.prepare` returns: the request to send and a report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from praisonlike.context.messages import Message
from praisonlike.context.router import Route
from praisonlike.errors import ConfigurationError


@dataclass(frozen=True)
class CompactionReport:
    """What was done to a request.

    Token counts include the tool schemas. ``messages_dropped`` counts input
    messages that are not in the result (summarised ones included);
    ``tool_outputs_truncated`` counts tool results cut to ``tool_output_limit``
    and ``tool_outputs_removed`` those replaced by a placeholder.
    ``insurance_applied`` is True when the hard cut ran. ``failed`` holds the
    error text when a strategy failed and a fallback produced the result.
    """

    route: Route
    strategy: str | None
    tokens_before: int
    tokens_after: int
    messages_dropped: int
    tool_outputs_truncated: int
    failed: str | None = None
    tool_outputs_removed: int = 0
    insurance_applied: bool = False


class SummaryContinuation(Protocol):
    """Completes a pending ``summarise`` compaction (built by the manager)."""

    def finish(self, summary_text: str) -> Prepared: ...

    def fallback(self, error: str) -> Prepared: ...


@dataclass(frozen=True)
class Prepared:
    """A request ready to send.

    ``report`` is None when the request fit and nothing changed. When
    ``summary_request`` is set (strategy ``summarise``), send it to the summary
    model and call :meth:`finish` with the reply, or :meth:`fallback` if that
    call failed; until then ``messages`` is the compacted conversation without
    a summary, which is valid to send as well.
    """

    messages: list[Message]
    report: CompactionReport | None
    summary_request: list[Message] | None = None
    continuation: SummaryContinuation | None = field(default=None, repr=False, compare=False)

    def finish(self, summary_text: str) -> Prepared:
        """The final request with the summary in place of the dropped turns.

        An empty summary is treated as a failure (see :meth:`fallback`).
        Raises ConfigurationError when there is no pending summary.
        """
        return self._pending().finish(summary_text)

    def fallback(self, error: str) -> Prepared:
        """The request compacted with ``drop_oldest_tools`` instead;
        ``report.failed`` holds ``error``."""
        return self._pending().fallback(error)

    def _pending(self) -> SummaryContinuation:
        if self.continuation is None:
            raise ConfigurationError("finish()/fallback() need a Prepared with a summary_request")
        return self.continuation
