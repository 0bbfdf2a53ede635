"""The typed records a session store keeps: conversations, turns and their steps.

All records are frozen pydantic models and serialise to JSON. ``StepRecord``
normalises ``tool_input`` and ``messages`` to plain JSON values when it is built
(pydantic models become dicts, tuples become lists), so a step read back from a
store compares equal to the step that was saved.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticSerializationError, to_jsonable_python


class MessageStatus(str, Enum):
    """How a turn ended. Only ``NORMAL`` turns feed the history of later turns."""

    NORMAL = "normal"
    ERROR = "error"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    GUARDRAIL_BLOCKED = "guardrail_blocked"


def _to_json_value(value: Any) -> Any:
    try:
        return to_jsonable_python(value)
    except PydanticSerializationError as exc:
        raise ValueError(f"value is not JSON-serialisable: {exc}") from exc


class StepRecord(BaseModel):
    """One step of a turn: a tool call, a tool result, a model response, ...

    ``event_type`` is one of ``tool_call``, ``tool_result``, ``llm_response``,
    ``compaction``, ``retry``, ``fallback``, ``reflection`` by convention; any
    non-empty string is stored. ``messages`` are the messages sent to the model
    for this step. ``cost`` is ``None`` when unknown; ``latency`` is in seconds.
    """

    model_config = ConfigDict(frozen=True)

    position: int = Field(ge=0)
    event_type: str = Field(min_length=1)
    thought: str | None = None
    observation: str | None = None
    tool: str | None = None
    tool_input: dict[str, Any] | None = None
    messages: list[dict[str, Any]] | None = None
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cost: float | None = None
    latency: float | None = None

    @field_validator("tool_input", "messages", mode="after")
    @classmethod
    def _json_values(cls, value: Any) -> Any:
        return None if value is None else _to_json_value(value)


class TurnRecord(BaseModel):
    """One user query and the agent's answer, with the steps taken in between.

    ``id`` is chosen by the caller (a uuid hex by convention) and is unique
    across conversations. ``steps`` are kept sorted by ``position``; two steps
    with the same position are rejected. ``created_at`` is unix time.
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    conversation_id: str = Field(min_length=1)
    query: str
    answer: str
    status: MessageStatus
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cost: float | None = None
    latency: float | None = None
    model: str | None = None
    created_at: float
    steps: list[StepRecord] = Field(default_factory=list)

    @field_validator("steps", mode="after")
    @classmethod
    def _ordered_steps(cls, steps: list[StepRecord]) -> list[StepRecord]:
        ordered = sorted(steps, key=lambda step: step.position)
        positions = [step.position for step in ordered]
        if len(set(positions)) != len(positions):
            raise ValueError(f"step positions must be unique, got {positions}")
        return ordered


class ConversationRecord(BaseModel):
    """A conversation: its owner, its agent, its running summary and timestamps.

    ``updated_at`` is the unix time of the last write to the conversation (a
    saved turn or a new summary).
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    agent_name: str | None = None
    created_at: float
    updated_at: float
    summary: str | None = None
    owner: str | None = None
