"""Values in and out of the PostgreSQL session tables.

PostgreSQL ``TEXT`` cannot hold the NUL character, which the store must keep
like SQLite does. :func:`encode_text` therefore stores a string containing NUL
(or one that happens to start with the escape marker) as the marker followed
by its JSON encoding; every other string is stored unchanged, so the tables
stay readable with plain SQL. JSON columns hold JSON text, where NUL is
already escaped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, overload
from urllib.parse import urlsplit, urlunsplit

from praisonlike.memory import rows
from praisonlike.memory.records import ConversationRecord, StepRecord, TurnRecord
from praisonlike.memory.rows import dump_json

_ESCAPE_MARKER = "\x01praisonlike-json:"

CONVERSATION_COLUMNS = "id, agent_name, owner, created_at, updated_at, summary"
MESSAGE_COLUMNS = (
    "id, conversation_id, query, answer, status, prompt_tokens, completion_tokens, "
    "cost, latency, model, created_at"
)
STEP_COLUMNS = (
    "position, event_type, thought, observation, tool, tool_input, messages, "
    "prompt_tokens, completion_tokens, cost, latency"
)


@overload
def encode_text(value: str) -> str: ...
@overload
def encode_text(value: None) -> None: ...
@overload
def encode_text(value: str | None) -> str | None: ...
def encode_text(value: str | None) -> str | None:
    """``value`` as storable text; :func:`decode_text` gives it back exactly."""
    if value is None:
        return None
    if "\x00" in value or value.startswith(_ESCAPE_MARKER):
        return _ESCAPE_MARKER + json.dumps(value, ensure_ascii=False)
    return value


@overload
def decode_text(stored: str) -> str: ...
@overload
def decode_text(stored: None) -> None: ...
@overload
def decode_text(stored: str | None) -> str | None: ...
def decode_text(stored: str | None) -> str | None:
    """The string :func:`encode_text` stored as ``stored``."""
    if stored is not None and stored.startswith(_ESCAPE_MARKER):
        value = json.loads(stored[len(_ESCAPE_MARKER) :])
        return str(value)
    return stored


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***``, for messages and ``repr``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def step_row(turn_id: str, step: StepRecord) -> tuple[Any, ...]:
    """The ``message_steps`` row of ``step``: ``message_id`` then :data:`STEP_COLUMNS`."""
    return (
        turn_id,
        step.position,
        encode_text(step.event_type),
        encode_text(step.thought),
        encode_text(step.observation),
        encode_text(step.tool),
        dump_json(step.tool_input),
        dump_json(step.messages),
        step.prompt_tokens,
        step.completion_tokens,
        step.cost,
        step.latency,
    )


def message_row(turn: TurnRecord) -> tuple[Any, ...]:
    """The ``messages`` row of ``turn``, in the order of :data:`MESSAGE_COLUMNS`."""
    return (
        turn.id,
        turn.conversation_id,
        encode_text(turn.query),
        encode_text(turn.answer),
        turn.status.value,
        turn.prompt_tokens,
        turn.completion_tokens,
        turn.cost,
        turn.latency,
        encode_text(turn.model),
        turn.created_at,
    )


def step_from_row(row: Sequence[Any]) -> StepRecord:
    return rows.step_from_row(row, decode_text)


def turn_from_row(row: Sequence[Any], steps: list[StepRecord]) -> TurnRecord:
    return rows.turn_from_row(row, steps, decode_text)


def conversation_from_row(row: Sequence[Any]) -> ConversationRecord:
    return rows.conversation_from_row(row, decode_text)
