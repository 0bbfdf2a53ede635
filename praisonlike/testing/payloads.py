"""The JSON the server sends: completions, stream chunks, errors, usage.

Pure functions of a response and the request it answers, so the wire format
can be read (and checked) apart from the networking.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from praisonlike.testing.script import Fault, ReportedUsage, Text, ToolCalls

Answer = Text | ToolCalls


def count_words(text: str) -> int:
    return len(text.split())


def message_text(content: Any) -> str:
    """A message's text: a string, or the ``text`` of its content parts joined by spaces."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    return ""


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """1 + the whitespace-separated words of the system prompt (Anthropic's top-level
    ``system``) and of every message's text content."""
    return 1 + sum(item_words(item) for key in ("system", "messages") for item in items(body, key))


def items(body: Mapping[str, Any], key: str) -> list[Any]:
    """``body[key]`` as a list: a list as it is, one value as a list of it, none as []."""
    value = body.get(key)
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def item_words(item: Any) -> int:
    """The words of a string, a text block (``{"text": ...}``) or a message's content."""
    if isinstance(item, str):
        return count_words(item)
    if not isinstance(item, Mapping):
        return 0
    text = item.get("text")
    return count_words(text if isinstance(text, str) else message_text(item.get("content")))


def usage_for(answer: Answer, body: Mapping[str, Any]) -> ReportedUsage:
    """The answer's explicit usage, else the deterministic word count.

    Completion tokens are 1 + the words of the content and of every tool
    call's name and arguments string.
    """
    if answer.usage is not None:
        return answer.usage
    words = count_words(answer.content)
    if isinstance(answer, ToolCalls):
        words += sum(
            count_words(call.name) + count_words(call.arguments_json) for call in answer.calls
        )
    return ReportedUsage(prompt_tokens(body), 1 + words)


def usage_json(usage: ReportedUsage) -> dict[str, Any]:
    body: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
    if usage.cached_tokens:
        body["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens}
    return body


def error_json(fault: Fault) -> dict[str, Any]:
    return {
        "error": {
            "message": fault.message,
            "type": fault.type,
            "param": None,
            "code": fault.code,
        }
    }


def no_route(method: str, path: str) -> Fault:
    """The 404 for a request to a path the server does not serve."""
    message = f"LocalLLMServer: no route for {method} {path}"
    return Fault(404, message, type="invalid_request_error", code="not_found")


def models_json(names: Iterable[str], context_window: int | None) -> dict[str, Any]:
    """A ``GET /v1/models`` listing of ``names``; with ``context_window``, each entry
    carries it as ``max_model_len``, as vLLM lists its window."""
    window = {"max_model_len": context_window} if context_window else {}
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "praisonlike", **window}
            for name in names
        ],
    }


def split(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


class ChunkFactory:
    """Builds the ``chat.completion(.chunk)`` objects of one answer.

    ``call_id`` supplies ids for tool calls that have none; it is called once
    per such call, in order.
    """

    def __init__(self, completion_id: str, model: str, call_id: Callable[[], str]) -> None:
        self.completion_id = completion_id
        self.model = model
        self.created = int(time.time())
        self._call_id = call_id

    def call_ids(self, answer: ToolCalls) -> list[str]:
        return [call.id if call.id is not None else self._call_id() for call in answer.calls]

    def completion(self, answer: Answer, usage: ReportedUsage) -> dict[str, Any]:
        """A non-streaming ``chat.completion`` object."""
        message: dict[str, Any] = {"role": "assistant", "content": answer.content}
        finish_reason = "tool_calls"
        if isinstance(answer, ToolCalls):
            message["content"] = answer.content or None
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json},
                }
                for call, call_id in zip(answer.calls, self.call_ids(answer), strict=True)
            ]
        else:
            finish_reason = answer.finish_reason
        return {
            "id": self.completion_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
            ],
            "usage": usage_json(usage),
            "system_fingerprint": None,
        }

    def chunk(
        self,
        delta: dict[str, Any],
        *,
        finish_reason: str | None = None,
        with_usage_field: bool = False,
    ) -> dict[str, Any]:
        """One ``chat.completion.chunk`` with a single choice.

        ``with_usage_field`` adds ``"usage": null``, as OpenAI does on every
        chunk when the client asked for ``stream_options.include_usage``.
        """
        chunk: dict[str, Any] = {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }
        if with_usage_field:
            chunk["usage"] = None
        return chunk

    def usage_chunk(self, usage: ReportedUsage) -> dict[str, Any]:
        """The trailing chunk with empty ``choices`` that carries usage."""
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": usage_json(usage),
        }

    def content_deltas(self, content: str, size: int) -> Iterator[dict[str, Any]]:
        """The role delta, then one delta per ``size`` characters of ``content``."""
        yield {"role": "assistant", "content": ""}
        for piece in split(content, size):
            yield {"content": piece}

    def tool_call_deltas(self, answer: ToolCalls) -> Iterator[dict[str, Any]]:
        """Content deltas (if any), then each call's opening and argument deltas."""
        yield from self.content_deltas(answer.content, answer.chunk_size)
        for index, (call, call_id) in enumerate(
            zip(answer.calls, self.call_ids(answer), strict=True)
        ):
            yield {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    }
                ]
            }
            for fragment in split(call.arguments_json, answer.chunk_size):
                function: dict[str, str] = {"arguments": fragment}
                if answer.repeat_name_in_chunks:
                    function = {"name": call.name, "arguments": fragment}
                yield {"tool_calls": [{"index": index, "function": function}]}

    def stream(
        self, answer: Answer, usage: ReportedUsage, *, include_usage: bool
    ) -> Iterator[dict[str, Any]]:
        """Every chunk of a streamed answer, up to (not including) ``[DONE]``."""
        if isinstance(answer, ToolCalls):
            deltas = self.tool_call_deltas(answer)
            finish_reason = "tool_calls"
        else:
            deltas = self.content_deltas(answer.content, answer.chunk_size)
            finish_reason = answer.finish_reason
        for delta in deltas:
            yield self.chunk(delta, with_usage_field=include_usage)
        yield self.chunk({}, finish_reason=finish_reason, with_usage_field=include_usage)
        if include_usage:
            yield self.usage_chunk(usage)
