"""The spans of one run: its ``invoke_agent`` span and open ``chat``/``execute_tool`` children.

Imported only by :class:`praisonlike.tracing.OTelTracer` when it is constructed,
so OpenTelemetry is loaded only when tracing is used.
"""

from __future__ import annotations

import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer
from opentelemetry.util.types import AttributeValue

from praisonlike.events import (
    ErrorEvent,
    FallbackEvent,
    LLMRequest,
    LLMResponse,
    RetryEvent,
    RunFinished,
    RunStarted,
    StreamReset,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.tracing import semconv as sc

#: ``error.type`` of a child still open when its run finished.
UNFINISHED = "unfinished"
#: ``error.type`` of spans ended by :meth:`OTelTracer.close` before ``run_finished``.
ABANDONED = "abandoned"
#: ``error.type`` of a tool call whose result is an error.
TOOL_ERROR = "tool_error"
#: ``error.type`` of a model call replaced by a new request with no recovery event between.
SUPERSEDED = "_OTHER"

#: Event fields that hold user or model text, recorded only with ``capture_content``.
_CONTENT_FIELDS: dict[str, tuple[str, ...]] = {
    "steering": ("text",),
    "skill_invoked": ("arguments",),
    "reflection": ("reflection",),
}

Attributes = dict[str, AttributeValue]


def _seconds_before(now: int, seconds: float) -> int:
    return now - max(0, int(seconds * 1_000_000_000))


class RunSpans:
    """All span state of one run, behind its own lock. ``now`` is always ``time.time_ns()``."""

    def __init__(
        self,
        tracer: Tracer,
        started: RunStarted,
        *,
        agent_name: str | None,
        capture_content: bool,
        now: int,
    ) -> None:
        self._tracer = tracer
        self._capture = capture_content
        self._lock = threading.Lock()
        self._chat: Span | None = None
        self._chat_purpose = ""
        self._tools: dict[str, Span] = {}
        self._failed = False
        self.finished = False
        name = agent_name or started.agent_name
        provider, model = sc.split_model(started.model)
        attributes: Attributes = {
            sc.OPERATION: sc.INVOKE_AGENT,
            sc.PROVIDER: provider,
            sc.REQUEST_MODEL: model,
            sc.RUN_ID: started.run_id,
            sc.TOOL_MODE: started.tool_mode.value,
        }
        if name:
            attributes[sc.AGENT_NAME] = name
        if capture_content:
            attributes[sc.INPUT_MESSAGES] = sc.text_messages("user", started.prompt)
        self.span = tracer.start_span(
            f"{sc.INVOKE_AGENT} {name}" if name else sc.INVOKE_AGENT,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=now,
        )
        self._context = trace.set_span_in_context(self.span)

    def handle(self, event: Any, now: int) -> None:
        """Apply one event of this run; events after the run ended are ignored."""
        with self._lock:
            if self.finished:
                return
            match event:
                case LLMRequest():
                    self._request(event, now)
                case LLMResponse():
                    self._response(event, now)
                case StreamReset():
                    if self._chat is not None:
                        self._chat.add_event(
                            "praisonlike.stream_reset",
                            {"praisonlike.stream_reset.reason": event.reason},
                            timestamp=now,
                        )
                case RetryEvent():
                    self._retry(event, now)
                case FallbackEvent():
                    self._fallback(event, now)
                case ToolCallEvent():
                    self._tool_call(event, now)
                case ToolResultEvent():
                    self._tool_result(event, now)
                case ErrorEvent():
                    self._error(event, now)
                case RunFinished():
                    self._finish(event, now)
                case TextDelta() | RunStarted():
                    pass
                case _:
                    self._run_event(event, now)

    def abandon(self, now: int) -> None:
        """End every open span of a run that will not see ``run_finished``."""
        with self._lock:
            if self.finished:
                return
            message = "the run was abandoned before run_finished"
            for span in self._drain_children():
                self._fail(span, ABANDONED, message, now)
            if self._failed:
                self.span.end(end_time=now)
            else:
                self._fail(self.span, ABANDONED, message, now)
            self.finished = True

    # -- model calls ------------------------------------------------------------------

    def _chat_span(self, model: str, iteration: int, purpose: str, start: int) -> Span:
        provider, name = sc.split_model(model)
        attributes: Attributes = {
            sc.OPERATION: sc.CHAT,
            sc.PROVIDER: provider,
            sc.REQUEST_MODEL: name,
            sc.ITERATION: iteration,
            sc.PURPOSE: purpose,
        }
        return self._child(f"{sc.CHAT} {name}", SpanKind.CLIENT, attributes, start)

    def _request(self, event: LLMRequest, now: int) -> None:
        if self._chat is not None:
            self._fail(self._chat, SUPERSEDED, "superseded by a new model request", now)
        self._chat = self._chat_span(event.model, event.iteration, event.purpose, now)
        self._chat.set_attribute(sc.MESSAGE_COUNT, event.message_count)
        self._chat_purpose = event.purpose

    def _response(self, event: LLMResponse, now: int) -> None:
        span = self._chat if self._chat_purpose == event.purpose else None
        if span is None:
            start = _seconds_before(now, event.latency)
            span = self._chat_span(event.model, event.iteration, event.purpose, start)
        else:
            self._chat = None
        usage = event.usage
        attributes: Attributes = {
            sc.RESPONSE_MODEL: sc.split_model(event.model)[1],
            sc.INPUT_TOKENS: usage.prompt_tokens,
            sc.OUTPUT_TOKENS: usage.completion_tokens,
            sc.TOOL_CALL_COUNT: event.tool_call_count,
            sc.LATENCY_S: event.latency,
        }
        if usage.cached_tokens:
            attributes[sc.CACHE_READ_TOKENS] = usage.cached_tokens
        if usage.cache_write_tokens:
            attributes[sc.CACHE_WRITE_TOKENS] = usage.cache_write_tokens
        if usage.cost is not None:
            attributes[sc.COST_USD] = usage.cost
        if self._capture:
            finish = "tool_call" if event.tool_call_count else "stop"
            attributes[sc.OUTPUT_MESSAGES] = sc.text_messages("assistant", event.content, finish)
        span.set_attributes(attributes)
        span.end(end_time=now)

    def _retry(self, event: RetryEvent, now: int) -> None:
        if self._chat is not None:
            self._fail(self._chat, event.error_kind, event.message, now)
            self._chat = None
        self.span.add_event(
            "praisonlike.retry",
            {
                "praisonlike.retry.attempt": event.attempt,
                "praisonlike.retry.wait_s": event.wait,
                sc.REQUEST_MODEL: sc.split_model(event.model)[1],
                sc.ERROR_TYPE: event.error_kind,
                sc.EXCEPTION_MESSAGE: event.message,
            },
            timestamp=now,
        )

    def _fallback(self, event: FallbackEvent, now: int) -> None:
        if self._chat is not None:
            self._fail(self._chat, event.reason, f"falling back to {event.to_model}", now)
            self._chat = None
        self.span.add_event(
            "praisonlike.fallback",
            {
                "praisonlike.fallback.from_model": event.from_model,
                "praisonlike.fallback.to_model": event.to_model,
                sc.ERROR_TYPE: event.reason,
            },
            timestamp=now,
        )

    # -- tools ------------------------------------------------------------------------

    def _tool_span(self, name: str, call_id: str, iteration: int, start: int) -> Span:
        attributes: Attributes = {
            sc.OPERATION: sc.EXECUTE_TOOL,
            sc.TOOL_NAME: name,
            sc.TOOL_CALL_ID: call_id,
            sc.TOOL_TYPE: "function",
            sc.ITERATION: iteration,
        }
        return self._child(f"{sc.EXECUTE_TOOL} {name}", SpanKind.INTERNAL, attributes, start)

    def _tool_call(self, event: ToolCallEvent, now: int) -> None:
        previous = self._tools.pop(event.call_id, None)
        if previous is not None:
            self._fail(previous, UNFINISHED, "a new call reused this call id", now)
        span = self._tool_span(event.name, event.call_id, event.iteration, now)
        if self._capture:
            span.set_attribute(sc.TOOL_CALL_ARGUMENTS, sc.json_value(event.arguments))
        self._tools[event.call_id] = span

    def _tool_result(self, event: ToolResultEvent, now: int) -> None:
        span = self._tools.pop(event.call_id, None)
        if span is None:
            start = _seconds_before(now, event.latency)
            span = self._tool_span(event.name, event.call_id, event.iteration, start)
        span.set_attribute(sc.LATENCY_S, event.latency)
        if event.is_error:
            message = event.result if self._capture else "the tool returned an error"
            self._fail(span, TOOL_ERROR, message, now)
            return
        if self._capture:
            span.set_attribute(sc.TOOL_CALL_RESULT, sc.json_value(event.result))
        span.end(end_time=now)

    # -- errors, other events and the end ------------------------------------------------

    def _error(self, event: ErrorEvent, now: int) -> None:
        exception: Attributes = {
            sc.EXCEPTION_TYPE: event.error_type,
            sc.EXCEPTION_MESSAGE: event.message,
        }
        if not event.fatal:
            self.span.add_event("praisonlike.error", exception, timestamp=now)
            return
        for span in self._drain_children():
            span.add_event("exception", exception, timestamp=now)
            self._fail(span, event.error_type, event.message, now)
        self.span.add_event("exception", exception, timestamp=now)
        self.span.set_attribute(sc.ERROR_TYPE, event.error_type)
        self.span.set_status(Status(StatusCode.ERROR, event.message))
        self._failed = True

    def _run_event(self, event: Any, now: int) -> None:
        hidden = () if self._capture else _CONTENT_FIELDS.get(event.type, ())
        prefix = f"praisonlike.{event.type}"
        attributes: Attributes = {
            f"{prefix}.{key}": value
            for key, value in event.model_dump(mode="json", exclude={"run_id", "type"}).items()
            if key not in hidden and isinstance(value, (str, bool, int, float))
        }
        self.span.add_event(prefix, attributes, timestamp=now)

    def _finish(self, event: RunFinished, now: int) -> None:
        for span in self._drain_children():
            self._fail(span, UNFINISHED, "the run ended before this operation finished", now)
        attributes: Attributes = {sc.TERMINATION_REASON: event.termination_reason.value}
        result = event.result
        if result is not None:
            attributes[sc.ITERATIONS] = result.iterations
            attributes[sc.RETRIES] = result.retries
            attributes[sc.INPUT_TOKENS] = result.usage.prompt_tokens
            attributes[sc.OUTPUT_TOKENS] = result.usage.completion_tokens
            if result.model:
                attributes[sc.RESPONSE_MODEL] = sc.split_model(result.model)[1]
            if result.usage.cost is not None:
                attributes[sc.COST_USD] = result.usage.cost
            if result.error is None and self._capture:
                attributes[sc.OUTPUT_MESSAGES] = sc.text_messages("assistant", result.text, "stop")
            if result.error is not None and not self._failed:
                attributes[sc.ERROR_TYPE] = event.termination_reason.value
                self.span.set_status(Status(StatusCode.ERROR, result.error))
        self.span.set_attributes(attributes)
        self.span.end(end_time=now)
        self.finished = True

    # -- helpers ------------------------------------------------------------------------

    def _child(self, name: str, kind: SpanKind, attributes: Attributes, start: int) -> Span:
        return self._tracer.start_span(
            name, context=self._context, kind=kind, attributes=attributes, start_time=start
        )

    def _drain_children(self) -> list[Span]:
        spans = list(self._tools.values())
        self._tools.clear()
        if self._chat is not None:
            spans.insert(0, self._chat)
            self._chat = None
        return spans

    @staticmethod
    def _fail(span: Span, error_type: str, message: str, now: int) -> None:
        span.set_attribute(sc.ERROR_TYPE, error_type)
        span.set_status(Status(StatusCode.ERROR, message))
        span.end(end_time=now)
