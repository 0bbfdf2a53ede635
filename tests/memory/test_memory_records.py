"""The record models: frozen, validated, JSON round-trippable."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from praisonlike.memory import ConversationRecord, MessageStatus, StepRecord, TurnRecord


class Point(BaseModel):
    x: int
    y: int


def make(**fields: Any) -> TurnRecord:
    values: dict[str, Any] = {
        "id": "t1",
        "conversation_id": "c",
        "query": "q",
        "answer": "a",
        "status": MessageStatus.NORMAL,
        "created_at": 1.0,
    }
    values.update(fields)
    return TurnRecord(**values)


def test_status_values() -> None:
    assert [s.value for s in MessageStatus] == [
        "normal",
        "error",
        "cancelled",
        "timeout",
        "guardrail_blocked",
    ]
    assert make(status="timeout").status is MessageStatus.TIMEOUT


def test_records_are_frozen() -> None:
    step = StepRecord(position=0, event_type="tool_call")
    with pytest.raises(ValidationError):
        step.position = 1
    with pytest.raises(ValidationError):
        make().answer = "changed"
    conversation = ConversationRecord(id="c", created_at=1.0, updated_at=1.0)
    with pytest.raises(ValidationError):
        conversation.summary = "s"


def test_steps_are_sorted_and_positions_unique() -> None:
    steps = [StepRecord(position=p, event_type="retry") for p in (2, 0, 1)]
    assert [s.position for s in make(steps=steps).steps] == [0, 1, 2]
    duplicate = [StepRecord(position=0, event_type="retry")] * 2
    with pytest.raises(ValidationError, match="unique"):
        make(steps=duplicate)


@pytest.mark.parametrize(
    "fields",
    [
        {"position": -1, "event_type": "x"},
        {"position": 0, "event_type": ""},
        {"position": 0, "event_type": "x", "prompt_tokens": -5},
    ],
)
def test_invalid_steps_are_rejected(fields) -> None:
    with pytest.raises(ValidationError):
        StepRecord(**fields)


def test_turn_requires_ids() -> None:
    with pytest.raises(ValidationError):
        make(id="")
    with pytest.raises(ValidationError):
        make(conversation_id="")


def test_step_json_fields_are_normalised_to_plain_json() -> None:
    step = StepRecord(
        position=0,
        event_type="tool_call",
        tool_input={"point": Point(x=1, y=2), "pair": (1, 2), "nested": {"t": ("a",)}},
        messages=[{"role": "assistant", "content": None, "extra": Point(x=0, y=0)}],
    )
    assert step.tool_input == {"point": {"x": 1, "y": 2}, "pair": [1, 2], "nested": {"t": ["a"]}}
    assert step.messages == [{"role": "assistant", "content": None, "extra": {"x": 0, "y": 0}}]


def test_non_json_values_are_rejected() -> None:
    with pytest.raises(ValidationError, match="JSON"):
        StepRecord(position=0, event_type="tool_call", tool_input={"f": object()})


def test_turn_json_round_trip() -> None:
    turn = make(
        cost=None,
        latency=0.5,
        steps=[
            StepRecord(position=0, event_type="tool_call", tool_input={"a": [1, {"b": None}]}),
            StepRecord(position=1, event_type="tool_result", observation="ok", cost=0.1),
        ],
    )
    assert TurnRecord.model_validate_json(turn.model_dump_json()) == turn
