"""Turning a turn's events into the step rows of the session store."""

from __future__ import annotations

from typing import Any

from praisonlike.events import (
    TOOL_CALL_FAULT,
    CompactionEvent,
    ErrorEvent,
    FallbackEvent,
    LLMRequest,
    LLMResponse,
    ReflectionEvent,
    RetryEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.memory.records import MessageStatus, StepRecord
from praisonlike.react.parse import text_around_calls
from praisonlike.result import TerminationReason

STATUS_OF: dict[TerminationReason, MessageStatus] = {
    TerminationReason.COMPLETED: MessageStatus.NORMAL,
    TerminationReason.MAX_ITERATIONS: MessageStatus.NORMAL,
    TerminationReason.BUDGET_EXCEEDED: MessageStatus.ERROR,
    TerminationReason.ERROR: MessageStatus.ERROR,
    TerminationReason.CANCELLED: MessageStatus.CANCELLED,
    TerminationReason.TIMEOUT: MessageStatus.TIMEOUT,
    TerminationReason.GUARDRAIL_BLOCKED: MessageStatus.GUARDRAIL_BLOCKED,
    TerminationReason.LENGTH: MessageStatus.NORMAL,
}


class StepRecorder:
    """Collects one step per tool_call, tool_result, llm_response, compaction,
    retry, fallback and reflection event, in order. Call it with every event.

    An llm_response's ``thought`` is the text the model wrote less the tool calls
    written in it (ReAct), as a display shows it; a reply that tried to call a tool
    and was not run (``ToolCallFault``) has none. Both stay in the next step's
    ``messages``.
    """

    def __init__(self) -> None:
        self.steps: list[StepRecord] = []
        self._last_request: list[dict[str, Any]] | None = None
        self._reply: tuple[int, LLMResponse, set[str]] | None = None

    def __call__(self, event: Any) -> None:
        if isinstance(event, (ToolCallEvent, ErrorEvent)):
            self._revise_reply(event)
        step = self._step_for(event, len(self.steps))
        if step is not None:
            if isinstance(event, LLMResponse):
                self._reply = (len(self.steps), event, set())
            self.steps.append(step)

    def _revise_reply(self, event: ToolCallEvent | ErrorEvent) -> None:
        """Take from the last reply's thought a call written in it (now run) or, for a
        fault, the attempt."""
        if self._reply is None:
            return
        index, reply, called = self._reply
        if isinstance(event, ErrorEvent):
            if event.error_type == TOOL_CALL_FAULT:
                self.steps[index] = self.steps[index].model_copy(update={"thought": None})
            return
        if reply.tool_call_count or event.iteration != reply.iteration:
            return
        called.add(event.name)
        thought = text_around_calls(reply.content, called) or None
        self.steps[index] = self.steps[index].model_copy(update={"thought": thought})

    def _step_for(self, event: Any, position: int) -> StepRecord | None:
        if isinstance(event, LLMRequest):
            self._last_request = event.messages
            self._reply = None
            return None
        if isinstance(event, LLMResponse):
            return StepRecord(
                position=position,
                event_type="llm_response",
                thought=event.content or None,
                messages=self._last_request,
                prompt_tokens=event.usage.prompt_tokens,
                completion_tokens=event.usage.completion_tokens,
                cost=event.usage.cost,
                latency=event.latency,
            )
        if isinstance(event, ToolCallEvent):
            arguments = (
                event.arguments if isinstance(event.arguments, dict) else {"raw": event.arguments}
            )
            return StepRecord(
                position=position, event_type="tool_call", tool=event.name, tool_input=arguments
            )
        if isinstance(event, ToolResultEvent):
            return StepRecord(
                position=position,
                event_type="tool_result",
                tool=event.name,
                observation=event.result,
                latency=event.latency,
            )
        if isinstance(event, CompactionEvent):
            return StepRecord(
                position=position,
                event_type="compaction",
                observation=(
                    f"{event.route}: {event.tokens_before} -> {event.tokens_after} "
                    f"tokens, {event.messages_dropped} messages dropped"
                ),
            )
        if isinstance(event, RetryEvent):
            return StepRecord(
                position=position,
                event_type="retry",
                observation=f"{event.error_kind}: {event.message}",
                latency=event.wait,
            )
        if isinstance(event, FallbackEvent):
            return StepRecord(
                position=position,
                event_type="fallback",
                observation=f"{event.from_model} -> {event.to_model} ({event.reason})",
            )
        if isinstance(event, ReflectionEvent):
            return StepRecord(
                position=position,
                event_type="reflection",
                thought=event.reflection,
                observation="satisfactory" if event.satisfactory else "retry",
            )
        return None
