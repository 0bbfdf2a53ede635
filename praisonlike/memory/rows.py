"""Records to and from database rows, shared by the SQLite and PostgreSQL stores.

Both stores select the same columns in the same order; they differ only in
how text is stored and read back (PostgreSQL escapes NUL characters), which is
the ``text`` argument: an encoder on the way in, a decoder on the way out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from praisonlike._runtime.text_safety import scrub_surrogates
from praisonlike.memory.records import ConversationRecord, MessageStatus, StepRecord, TurnRecord

TextDecoder = Callable[[Any], Any]
TextEncoder = Callable[[str | None], str | None]

CONVERSATION_COLUMNS = "id, agent_name, owner, created_at, updated_at, summary"
MESSAGE_COLUMNS = (
    "id, conversation_id, query, answer, status, prompt_tokens, completion_tokens, "
    "cost, latency, model, created_at"
)
STEP_COLUMNS = (
    "position, event_type, thought, observation, tool, tool_input, messages, "
    "prompt_tokens, completion_tokens, cost, latency"
)


def _as_stored(value: Any) -> Any:
    return value


def dump_json(value: Any) -> str | None:
    """JSON text for a column; lone surrogates replaced so it always encodes."""
    return None if value is None else scrub_surrogates(json.dumps(value, ensure_ascii=False))


def load_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def message_row(turn: TurnRecord, text: TextEncoder = _as_stored) -> tuple[Any, ...]:
    """The ``messages`` row of ``turn``, in the order of :data:`MESSAGE_COLUMNS`."""
    return (
        turn.id,
        turn.conversation_id,
        text(turn.query),
        text(turn.answer),
        turn.status.value,
        turn.prompt_tokens,
        turn.completion_tokens,
        turn.cost,
        turn.latency,
        text(turn.model),
        turn.created_at,
    )


def step_row(turn_id: str, step: StepRecord, text: TextEncoder = _as_stored) -> tuple[Any, ...]:
    """The ``message_steps`` row of ``step``: ``message_id`` then :data:`STEP_COLUMNS`."""
    return (
        turn_id,
        step.position,
        text(step.event_type),
        text(step.thought),
        text(step.observation),
        text(step.tool),
        dump_json(step.tool_input),
        dump_json(step.messages),
        step.prompt_tokens,
        step.completion_tokens,
        step.cost,
        step.latency,
    )


def step_from_row(row: Sequence[Any], text: TextDecoder = _as_stored) -> StepRecord:
    return StepRecord(
        position=row[0],
        event_type=text(row[1]),
        thought=text(row[2]),
        observation=text(row[3]),
        tool=text(row[4]),
        tool_input=load_json(row[5]),
        messages=load_json(row[6]),
        prompt_tokens=row[7],
        completion_tokens=row[8],
        cost=row[9],
        latency=row[10],
    )


def turn_from_row(
    row: Sequence[Any], steps: list[StepRecord], text: TextDecoder = _as_stored
) -> TurnRecord:
    return TurnRecord(
        id=row[0],
        conversation_id=row[1],
        query=text(row[2]),
        answer=text(row[3]),
        status=MessageStatus(row[4]),
        prompt_tokens=row[5],
        completion_tokens=row[6],
        cost=row[7],
        latency=row[8],
        model=text(row[9]),
        created_at=row[10],
        steps=steps,
    )


def conversation_from_row(row: Sequence[Any], text: TextDecoder = _as_stored) -> ConversationRecord:
    return ConversationRecord(
        id=row[0],
        agent_name=text(row[1]),
        owner=text(row[2]),
        created_at=row[3],
        updated_at=row[4],
        summary=text(row[5]),
    )
