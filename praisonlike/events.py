"""The one event vocabulary of a run.

Every step of a turn is an event. The same events feed ``stream_events``, the
hooks, the live display and the session store. Each is a frozen pydantic model
with a ``type`` discriminator, so ``Event`` validates from JSON and a
``match``/``isinstance`` on the class is exhaustive.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from praisonlike.models.usage import Usage
from praisonlike.result import RunResult, TerminationReason, ToolMode


class _Event(BaseModel):
    # defer_build: a class's validator is built when it is first used, so a
    # process never pays for the events its turns do not emit.
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, defer_build=True)

    run_id: str


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    agent_name: str | None = None
    model: str
    prompt: str
    tool_mode: ToolMode = ToolMode.NATIVE


class LLMRequest(_Event):
    """A model call is about to be sent (after budgeting and hooks).

    ``messages`` is exactly what is sent; it is left out of ``repr`` and of
    serialisation (it can be large), but the session store records it. It
    shares its dicts with the agent's history: read it, and copy it before
    editing (``agent.chat_history`` is a copy already). It is not validated,
    so building the event neither walks nor copies the request.
    """

    type: Literal["llm_request"] = "llm_request"
    iteration: int
    model: str
    message_count: int
    tool_names: list[str] = Field(default_factory=list)
    purpose: str = "answer"
    messages: SkipValidation[list[dict[str, Any]]] = Field(
        default_factory=list, exclude=True, repr=False
    )


class TextDelta(_Event):
    """A piece of answer text, in arrival order, from any round."""

    type: Literal["text_delta"] = "text_delta"
    iteration: int
    text: str


class StreamReset(_Event):
    """Text already streamed for this round is void; the round restarts."""

    type: Literal["stream_reset"] = "stream_reset"
    iteration: int
    reason: str


class LLMResponse(_Event):
    type: Literal["llm_response"] = "llm_response"
    iteration: int
    model: str
    content: str
    tool_call_count: int = 0
    """The response's native tool calls; 0 for calls written as text (ReAct, a bare JSON
    answer), which the ``tool_call`` events after it report."""
    usage: Usage
    latency: float
    purpose: str = "answer"


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    iteration: int
    call_id: str
    name: str
    arguments: dict[str, Any] | str


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    iteration: int
    call_id: str
    name: str
    result: str
    is_error: bool
    latency: float


class RetryEvent(_Event):
    type: Literal["retry"] = "retry"
    attempt: int
    wait: float
    error_kind: str
    model: str
    message: str = ""


class FallbackEvent(_Event):
    type: Literal["fallback"] = "fallback"
    from_model: str
    to_model: str
    reason: str


class BudgetWarning(_Event):
    type: Literal["budget_warning"] = "budget_warning"
    spent: float
    limit: float
    message: str


class CompactionEvent(_Event):
    type: Literal["compaction"] = "compaction"
    route: str
    strategy: str | None
    tokens_before: int
    tokens_after: int
    messages_dropped: int
    tool_outputs_truncated: int = 0
    failed: str | None = None


class SteeringEvent(_Event):
    type: Literal["steering"] = "steering"
    text: str


class SkillInvoked(_Event):
    type: Literal["skill_invoked"] = "skill_invoked"
    skill: str
    arguments: str


class ReflectionEvent(_Event):
    type: Literal["reflection"] = "reflection"
    round: int
    reflection: str
    satisfactory: bool


class ErrorEvent(_Event):
    """A failure: ends the run when ``fatal``, else it was recovered from.

    ``error_type`` is the exception's class name, or :data:`TOOL_CALL_FAULT`
    for a text (ReAct) reply that tried to call a tool and was not run: the
    reply just before it is not the answer.
    """

    type: Literal["error"] = "error"
    error_type: str
    message: str
    fatal: bool = True


TOOL_CALL_FAULT = "ToolCallFault"
"""The ``error_type`` of a non-fatal :class:`ErrorEvent` sent when a text tool call
was not run: unusable (a schema echoed back, broken JSON) or made of values from
nowhere. The model is asked again."""


class RunFinished(_Event):
    type: Literal["run_finished"] = "run_finished"
    termination_reason: TerminationReason
    result: RunResult | None = None


Event = Annotated[
    RunStarted
    | LLMRequest
    | TextDelta
    | StreamReset
    | LLMResponse
    | ToolCallEvent
    | ToolResultEvent
    | RetryEvent
    | FallbackEvent
    | BudgetWarning
    | CompactionEvent
    | SteeringEvent
    | SkillInvoked
    | ReflectionEvent
    | ErrorEvent
    | RunFinished,
    Field(discriminator="type"),
]

__all__ = [
    "BudgetWarning",
    "CompactionEvent",
    "ErrorEvent",
    "Event",
    "FallbackEvent",
    "LLMRequest",
    "LLMResponse",
    "ReflectionEvent",
    "RetryEvent",
    "RunFinished",
    "RunStarted",
    "SkillInvoked",
    "SteeringEvent",
    "StreamReset",
    "TOOL_CALL_FAULT",
    "TextDelta",
    "ToolCallEvent",
    "ToolResultEvent",
]
