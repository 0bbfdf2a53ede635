"""``GET /v1/sessions/{id}`` and ``/messages``: a session and its stored turns, owner-checked."""

from __future__ import annotations

from typing import Any

from praisonlike.serve.auth import check_owner
from praisonlike.serve.http_errors import ApiError
from praisonlike.serve.state import ServerState


async def owned_session(state: ServerState, session_id: str, requester: str | None) -> Any:
    """The session's record; 404 when there is none, 403 when another owner's."""
    record = await state.in_thread("get_conversation", session_id)
    if record is None:
        raise ApiError(404, "no such session")
    check_owner(record.owner, requester, "this session")
    return record


async def session(state: ServerState, session_id: str, requester: str | None) -> dict[str, Any]:
    record = await owned_session(state, session_id, requester)
    return dict(record.model_dump(mode="json"))


async def messages(
    state: ServerState, session_id: str, requester: str | None, limit: int | None
) -> dict[str, Any]:
    await owned_session(state, session_id, requester)
    turns = await state.in_thread("load_turns", session_id, limit=limit)
    return {"session_id": session_id, "turns": [_turn(t) for t in turns]}


def _turn(turn: Any) -> dict[str, Any]:
    data = turn.model_dump(mode="json", exclude={"conversation_id", "steps"})
    data["steps"] = [step.model_dump(mode="json", exclude={"messages"}) for step in turn.steps]
    return dict(data)
