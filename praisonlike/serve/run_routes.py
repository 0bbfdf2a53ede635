"""``POST /v1/runs``, ``GET /v1/runs/{run_id}`` and a run's ``/stop`` and ``/steer``.

A run on an existing session is refused (403) unless the requester owns it.
Stop and steer reach a run of this process in memory; a run elsewhere is
reached through the session store's signals when the store carries them and
the request names the session.
"""

from __future__ import annotations

import asyncio
from typing import Any

from praisonlike._runtime.loggers import get_logger
from praisonlike._runtime.run_ids import new_run_id
from praisonlike.errors import InvalidInputError, PraisonlikeError, UnsupportedInputError
from praisonlike.serve.auth import check_owner
from praisonlike.serve.event_stream import DISCONNECTED, sse_response
from praisonlike.serve.http_errors import ApiError
from praisonlike.serve.requests import RunRequest, SteerRequest, StopRequest, parse
from praisonlike.serve.runs import LiveRun, safe_message
from praisonlike.serve.state import ServerState

_log = get_logger("praisonlike.serve")


async def start_run(state: ServerState, request: Any, requester: str | None) -> Any:
    """Stream the run (an SSE response) or, with ``stream: false``, its JSON body."""
    body = await parse(request, RunRequest, state.config.max_body_bytes)
    session_id = body.session_id or new_run_id()
    if body.session_id is not None:
        record = await state.in_thread("get_conversation", session_id)
        if record is not None:
            check_owner(record.owner, requester, "this session")
    agent = state.agent_for(session_id, requester, body.options.timeout)
    live = await open_run(
        state, agent, body.input, session_id=session_id, owner=requester, detach=body.detach
    )
    if body.stream:
        return sse_response(live, state.config.ping_interval)
    await wait_or_cancel(live, request)
    return {
        "session_id": live.session_id,
        "run_id": live.run_id,
        "result": live.result.model_dump(mode="json") if live.result is not None else None,
        "error": live.end_data()["error"],
    }


async def open_run(
    state: ServerState,
    agent: Any,
    prompt: str,
    *,
    session_id: str | None,
    owner: str | None,
    detach: bool,
    output_json: dict[str, Any] | None = None,
) -> LiveRun:
    """Start the run (asking for an answer matching ``output_json`` when given); 400
    for bad input, 500 (not worth retrying) when the agent cannot start it."""
    try:
        return await state.runs.start(
            agent,
            prompt,
            session_id=session_id,
            owner=owner,
            detach=detach,
            store=state.store,
            output_json=output_json,
        )
    except (InvalidInputError, UnsupportedInputError) as exc:
        raise ApiError(400, str(exc)) from None
    except ApiError:
        raise
    except Exception as exc:
        if not isinstance(exc, PraisonlikeError):
            _log.error("a run could not start", exc_info=exc)
        raise ApiError(500, f"the run could not start: {safe_message(exc)}", retry=False) from None


async def wait_or_cancel(live: LiveRun, request: Any) -> None:
    """Wait for the run's end; cancel it if the client disconnects first (unless detached)."""
    finished = asyncio.create_task(live.finished.wait())
    gone = asyncio.create_task(_disconnected(request))
    try:
        await asyncio.wait({finished, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not finished.done() and not live.detach:
            live.cancel.cancel(DISCONNECTED)
        await finished
    finally:
        gone.cancel()
        finished.cancel()


async def _disconnected(request: Any) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def stop_run(state: ServerState, request: Any, run_id: str, requester: str | None) -> Any:
    body = await parse(request, StopRequest, state.config.max_body_bytes, empty_ok=True)
    live = state.runs.get(run_id)
    reason = body.reason.strip() or "stopped through the API"
    if live is not None:
        check_owner(live.owner, requester, "this run")
        live.cancel.cancel(f"{reason} (by {requester or 'the local user'})")
        return _accepted(run_id, live.session_id, "stopping")
    session_id = await _remote_session(state, run_id, body.session_id, requester)
    await state.in_thread("request_stop", session_id, requester, reason=f"run {run_id}: {reason}")
    return _accepted(run_id, session_id, "stopping")


async def run_status(state: ServerState, run_id: str, requester: str | None) -> Any:
    """A run of this process, running or among the last that ended; 404 otherwise."""
    found = state.runs.status(run_id)
    if found is None:
        raise ApiError(
            404,
            "no such run in this server (it ran in another worker, or ended long ago: its "
            "turn is in its session, GET /v1/sessions/{session_id}/messages)",
        )
    owner, status = found
    check_owner(owner, requester, "this run")
    return status


async def steer_run(state: ServerState, request: Any, run_id: str, requester: str | None) -> Any:
    body = await parse(request, SteerRequest, state.config.max_body_bytes)
    live = state.runs.get(run_id)
    if live is not None:
        check_owner(live.owner, requester, "this run")
        live.agent.steer(body.text)
        return _accepted(run_id, live.session_id, "steered")
    session_id = await _remote_session(state, run_id, body.session_id, requester)
    await state.in_thread("request_steer", session_id, requester, body.text)
    return _accepted(run_id, session_id, "steered")


async def _remote_session(
    state: ServerState, run_id: str, session_id: str | None, requester: str | None
) -> str:
    """The session to signal for a run not in this process; 404/403/409 when there is none."""
    if session_id is None or not hasattr(state.store, "request_stop"):
        raise ApiError(404, "no such run in this server")
    record = await state.in_thread("get_conversation", session_id)
    if record is None:
        raise ApiError(404, "no such session")
    check_owner(record.owner, requester, "this run")
    turns = await state.in_thread("load_turns", session_id, limit=50)
    if any(turn.id == run_id for turn in turns):
        raise ApiError(409, "the run has already finished")
    return session_id


def _accepted(run_id: str, session_id: str | None, status: str) -> dict[str, Any]:
    return {"run_id": run_id, "session_id": session_id, "status": status}
