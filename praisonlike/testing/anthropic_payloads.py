"""The JSON the server sends on Anthropic's Messages wire (``POST /v1/messages``).

The same script items as the chat-completions wire, written as Anthropic
writes them: a ``message`` object with ``text`` and ``tool_use`` content
blocks, its stream of named server-sent events (``message_start``,
``content_block_start`` / ``_delta`` / ``_stop``, ``message_delta``,
``message_stop``), and ``{"type": "error", "error": {...}}`` errors with
Anthropic's error types. LiteLLM's ``anthropic/...`` provider reads them, so a
test drives a non-OpenAI provider through LiteLLM end to end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from praisonlike.testing.payloads import Answer, split
from praisonlike.testing.script import Fault, ReportedUsage, Text, ToolCalls

MESSAGES_PATHS = frozenset({"/v1/messages", "/messages"})
"""Where the Messages API is served (LiteLLM appends ``/v1/messages`` to ``api_base``)."""

Event = tuple[str, dict[str, Any]]
"""A named server-sent event and its JSON data."""

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
    529: "overloaded_error",
}
_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def error_json(fault: Fault) -> dict[str, Any]:
    """The Anthropic error body for ``fault``: its type from the status, its message.

    A context-length fault says ``prompt is too long``, as Anthropic does (the
    words LiteLLM looks for to raise its context-window error).
    """
    message = fault.message
    if fault.code == "context_length_exceeded":
        message = f"prompt is too long: {message}"
    return {
        "type": "error",
        "error": {"type": _ERROR_TYPES.get(fault.status, "api_error"), "message": message},
    }


def usage_json(usage: ReportedUsage, *, output: int | None = None) -> dict[str, int]:
    """Anthropic's usage: ``input_tokens`` leaves out the cache reads and writes."""
    cached, written = usage.cached_tokens, usage.cache_write_tokens
    return {
        "input_tokens": usage.prompt_tokens - cached - written,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": cached,
        "output_tokens": usage.completion_tokens if output is None else output,
    }


def _tool_input(arguments_json: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments_json)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ValueError(
            "a tool call's arguments must be a JSON object on the Anthropic wire unless "
            f"streamed, got {arguments_json!r}"
        )
    return value


class MessageFactory:
    """Builds the ``message`` object, or its stream of events, of one answer.

    ``call_id`` supplies ids for tool calls that have none; it is called once
    per such call, in order.
    """

    def __init__(self, message_id: str, model: str, call_id: Callable[[], str]) -> None:
        self.message_id = message_id
        self.model = model
        self._call_id = call_id

    def _ids(self, answer: ToolCalls) -> list[str]:
        return [call.id if call.id is not None else self._call_id() for call in answer.calls]

    def _envelope(self, content: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
        return {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
        }

    def message(self, answer: Answer, usage: ReportedUsage) -> dict[str, Any]:
        """A non-streamed ``message``. Raises ValueError for tool-call arguments that
        are not a JSON object (Anthropic's ``input`` is one)."""
        content: list[dict[str, Any]] = []
        if answer.content:
            content.append({"type": "text", "text": answer.content})
        if isinstance(answer, ToolCalls):
            content += [
                {
                    "type": "tool_use",
                    "id": call_id,
                    "name": call.name,
                    "input": _tool_input(call.arguments_json),
                }
                for call, call_id in zip(answer.calls, self._ids(answer), strict=True)
            ]
        body = self._envelope(content, _stop_reason(answer))
        body["usage"] = usage_json(usage)
        return body

    def start(self, usage: ReportedUsage) -> list[Event]:
        """``message_start`` (with the input tokens) and a ``ping``."""
        message = self._envelope([], None)
        message["usage"] = usage_json(usage, output=1)
        return [
            ("message_start", {"type": "message_start", "message": message}),
            ("ping", {"type": "ping"}),
        ]

    def text_block(self, index: int, text: str, size: int) -> Iterator[Event]:
        """A text block: its start, one delta per ``size`` characters; not its stop."""
        yield _block_start(index, {"type": "text", "text": ""})
        for piece in split(text, size):
            yield _block_delta(index, {"type": "text_delta", "text": piece})

    def stream(self, answer: Answer, usage: ReportedUsage) -> list[Event]:
        """Every event of a streamed answer, ``message_start`` to ``message_stop``."""
        events = self.start(usage)
        index = 0
        if answer.content or isinstance(answer, Text):
            events += [*self.text_block(0, answer.content, answer.chunk_size), _block_stop(0)]
            index = 1
        if isinstance(answer, ToolCalls):
            for call, call_id in zip(answer.calls, self._ids(answer), strict=True):
                block = {"type": "tool_use", "id": call_id, "name": call.name, "input": {}}
                events.append(_block_start(index, block))
                events += [
                    _block_delta(index, {"type": "input_json_delta", "partial_json": piece})
                    for piece in split(call.arguments_json, answer.chunk_size)
                ]
                events.append(_block_stop(index))
                index += 1
        delta = {"stop_reason": _stop_reason(answer), "stop_sequence": None}
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": delta,
                    "usage": {"output_tokens": usage.completion_tokens},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        return events


def _stop_reason(answer: Answer) -> str:
    if isinstance(answer, ToolCalls):
        return "tool_use"
    return _STOP_REASONS.get(answer.finish_reason, answer.finish_reason)


def _block_start(index: int, block: dict[str, Any]) -> Event:
    return "content_block_start", {
        "type": "content_block_start",
        "index": index,
        "content_block": block,
    }


def _block_delta(index: int, delta: dict[str, Any]) -> Event:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def _block_stop(index: int) -> Event:
    return "content_block_stop", {"type": "content_block_stop", "index": index}
