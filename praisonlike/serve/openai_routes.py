"""``POST /v1/chat/completions``: the agent behind OpenAI's chat-completions API; and
``GET /v1/models`` (``/v1/models/{id}``), which lists the served agent as the one model,
by its name (``agent`` when it has none), for clients that pick a model from that list
first; a request may still name any model.

Each request is one stateless turn: the request's earlier user and assistant
text messages become the history, its last message (from the user) the
prompt; system messages are ignored (the agent has its own instructions).
Tool rounds happen inside; the client sees the answer and the turn's usage.
A failed turn answers an OpenAI-style error (see :func:`failure_status`) with
an ``x-should-retry`` header, which OpenAI's clients obey: ``true`` only for
a model error a retry may cure that the server did not retry itself. A
failure mid-stream sends one ``{"error": ...}`` chunk. Text taken back by a
``stream_reset`` cannot be taken back here: the retried text follows.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

from praisonlike.agent.structured_output import output_spec
from praisonlike.errors import ConfigurationError, LLMError, PraisonlikeError, RunTimeout
from praisonlike.serve.event_stream import DISCONNECTED
from praisonlike.serve.http_errors import ApiError, error_body, error_response
from praisonlike.serve.requests import ChatCompletionRequest, parse
from praisonlike.serve.run_routes import open_run, wait_or_cancel
from praisonlike.serve.runs import LiveRun
from praisonlike.serve.state import ServerState


async def chat_completions(state: ServerState, request: Any, requester: str | None) -> Any:
    from starlette.responses import JSONResponse

    body = await parse(request, ChatCompletionRequest, state.config.max_body_bytes)
    history, prompt = _conversation(body.messages)
    schema = answer_schema(body.response_format)
    agent = state.agent_for(None, requester, None, history)
    live = await open_run(
        state, agent, prompt, session_id=None, owner=requester, detach=False, output_json=schema
    )
    model = body.model or agent.llm or "praisonlike"
    created = int(time.time())
    if body.stream:
        return _stream_response(live, model, created, body.include_usage)
    await wait_or_cancel(live, request)
    if live.error is not None or live.result is None:
        status, retry = failure_status(live.error)
        return error_response(status, _failure_message(live), retry=retry)
    result = live.result
    completion = {
        "id": f"chatcmpl-{live.run_id}",
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": result.text},
                "finish_reason": "stop",
            }
        ],
        "usage": _usage(result),
    }
    return JSONResponse(completion, headers={"X-Run-Id": live.run_id})


def answer_schema(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON schema a request's ``response_format`` asks the answer to match (the
    turn's ``output_json``): ``json_schema`` gives its ``schema``, ``json_object`` any
    object, ``text`` (or none) a text answer. ApiError (400) for another type or a
    schema that is not a valid JSON schema."""
    requested = response_format or {}
    kind = requested.get("type", "text")
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "object"}
    spec = requested.get("json_schema")
    if (
        kind != "json_schema"
        or not isinstance(spec, dict)
        or not isinstance(spec.get("schema"), dict)
    ):
        raise ApiError(
            400,
            'invalid request: response_format must be {"type": "text"}, '
            '{"type": "json_object"} or {"type": "json_schema", '
            '"json_schema": {"name": ..., "schema": {...}}}',
        )
    schema = dict(spec["schema"])
    if isinstance(spec.get("name"), str):
        schema.setdefault("title", spec["name"])
    try:
        output_spec(None, schema)
    except ConfigurationError as exc:
        raise ApiError(400, f"invalid request: response_format: {exc}") from None
    return schema


STARTED = int(time.time())
"""When this process loaded the app: the listed model's ``created``."""


def models(state: ServerState) -> dict[str, Any]:
    """``GET /v1/models``: the served agent as OpenAI's model list (one entry)."""
    return {"object": "list", "data": [_model_entry(state)]}


def model(state: ServerState, model_id: str) -> dict[str, Any]:
    """``GET /v1/models/{id}``: the served agent's entry; ApiError (404) for another id."""
    entry = _model_entry(state)
    if model_id != entry["id"]:
        raise ApiError(404, f"no model {model_id!r}: this server serves {entry['id']!r}")
    return entry


def _model_entry(state: ServerState) -> dict[str, Any]:
    name = state.agent.name or "agent"
    return {"id": name, "object": "model", "created": STARTED, "owned_by": "praisonlike"}


def failure_status(error: BaseException | None) -> tuple[int, bool]:
    """The status a failed turn answers, and whether the same request may succeed if sent again.

    504 for the run's timeout; 500 for a configuration error (a missing key,
    a model LiteLLM cannot route) or an error that is not one of the SDK's
    typed errors; 502 for any other failure (a model error, a stop). Only a
    model error a retry may cure (a rate limit, a server error, a dropped
    connection) that the server did not already retry may succeed again.
    """
    if isinstance(error, RunTimeout):
        return 504, False
    if isinstance(error, ConfigurationError) or not isinstance(error, PraisonlikeError):
        return 500, False
    if isinstance(error, LLMError):
        from praisonlike.models.error_classification import classify_llm_error

        return 502, error.retried == 0 and classify_llm_error(error).retryable
    return 502, False


def _failure_message(live: LiveRun) -> str:
    error = live.end_data()["error"]
    return str(error["message"]) if error else "the run failed"


def _text(content: Any) -> str | None:
    """The text of a message's content; ApiError (400) for a part that is not text
    (an image, audio, a file), which this endpoint does not pass on."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        kinds = {p.get("type") if isinstance(p, dict) else None for p in content}
        if kinds - {"text"}:
            raise ApiError(
                400,
                "invalid request: this endpoint takes text content only, not "
                + ", ".join(sorted(str(kind) for kind in kinds - {"text"}))
                + " parts",
            )
        texts = [p.get("text") for p in content]
        if texts and all(isinstance(text, str) for text in texts):
            return "".join(texts)
    return None


def _conversation(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The history (user/assistant text) and the prompt (the last message, from the user)."""
    last = messages[-1]
    prompt = _text(last.get("content"))
    if last.get("role") != "user" or not prompt or not prompt.strip():
        raise ApiError(400, "invalid request: the last message must be a user message with text")
    history = []
    for message in messages[:-1]:
        role = message.get("role")
        text = _text(message.get("content"))
        if role in ("user", "assistant") and text:
            history.append({"role": role, "content": text})
    return history, prompt


def _usage(result: Any) -> dict[str, int]:
    usage = result.usage
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


def _stream_response(live: LiveRun, model: str, created: int, include_usage: bool) -> Any:
    from sse_starlette.sse import EventSourceResponse

    async def closed(message: Any) -> None:
        if not live.finished.is_set():
            live.cancel.cancel(DISCONNECTED)

    return EventSourceResponse(
        _chunks(live, model, created, include_usage),
        ping=0,
        headers={"X-Run-Id": live.run_id},
        client_close_handler_callable=closed,
    )


async def _chunks(
    live: LiveRun, model: str, created: int, include_usage: bool
) -> AsyncIterator[bytes]:
    """OpenAI's chunks: the role, the text deltas, the finish reason; with
    ``include_usage``, each chunk has ``"usage": null`` and a last one with no
    choices carries the turn's usage."""

    def data(choices: list[dict[str, Any]], usage: dict[str, int] | None = None) -> bytes:
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{live.run_id}",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": choices,
        }
        if include_usage:
            payload["usage"] = usage
        return f"data: {json.dumps(payload)}\n\n".encode()

    def chunk(delta: dict[str, Any], finish: str | None) -> bytes:
        return data([{"index": 0, "delta": delta, "finish_reason": finish}])

    try:
        yield chunk({"role": "assistant", "content": ""}, None)
        while (item := await live.queue.get()) is not None:
            if item.event == "text_delta":
                yield chunk({"content": json.loads(item.data)["text"]}, None)
        if live.error is not None or live.result is None:
            body = error_body(failure_status(live.error)[0], _failure_message(live))
            yield f"data: {json.dumps(body)}\n\n".encode()
        else:
            yield chunk({}, "stop")
            if include_usage:
                yield data([], _usage(live.result))
        yield b"data: [DONE]\n\n"
    finally:
        if not live.finished.is_set():
            live.cancel.cancel(DISCONNECTED)
