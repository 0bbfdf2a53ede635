"""How each wire writes a playable answer: the OpenAI chat-completions wire and Anthropic's.

The :class:`~praisonlike.testing.playback.Player` picks one format per request
(:func:`format_for`) and leaves every wire-specific byte to it: the usage it
reports, an error body, a broken stream, a completion and its stream of framed
events, and the start of a stream cut short.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any, Protocol

from praisonlike.testing import anthropic_payloads as anthropic
from praisonlike.testing.anthropic_cache import PromptCache
from praisonlike.testing.payloads import Answer, ChunkFactory, error_json, usage_for
from praisonlike.testing.script import (
    DEFAULT_CHUNK_SIZE,
    DropConnection,
    Fault,
    RecordedRequest,
    ReportedUsage,
    Text,
)
from praisonlike.testing.wire import (
    END_OF_CHUNKS,
    chunk,
    sse_event,
    sse_named_event,
    sse_raw_event,
)

BROKEN_JSON = b'{"id": "chatcmpl-broken", "choices": [{"index": 0, "delta": {"content": '


class WireFormat(Protocol):
    def usage(self, answer: Answer) -> ReportedUsage:
        """The usage reported for ``answer`` (its explicit one, else counted)."""
        ...

    def error_body(self, fault: Fault) -> dict[str, Any]: ...

    def broken_stream(self) -> bytes:
        """A stream whose first event is not valid JSON, framed, without the end."""
        ...

    def completion(self, answer: Answer, usage: ReportedUsage) -> dict[str, Any]: ...

    def stream(self, answer: Answer, usage: ReportedUsage) -> tuple[list[bytes], int | None]:
        """The framed events, the last one ending the body, and the index of the one
        that reports the usage (None when the client did not ask for it)."""
        ...

    def partial_stream(self, drop: DropConnection) -> list[bytes]:
        """The framed events a stream cut short by ``drop`` sends before the cut."""
        ...


IdSource = Callable[[str], str]


def format_for(request: RecordedRequest, next_id: IdSource, cache: PromptCache) -> WireFormat:
    """The format of the wire ``request`` came in on."""
    if request.anthropic:
        return AnthropicFormat(request, next_id, cache)
    return OpenAIFormat(request, next_id)


class OpenAIFormat:
    """Chat completions: ``chat.completion`` objects and ``data:`` chunks ending in ``[DONE]``."""

    def __init__(self, request: RecordedRequest, next_id: IdSource) -> None:
        self._request = request
        self._next_id = next_id

    @cached_property
    def _factory(self) -> ChunkFactory:
        """Built on first use: a fault takes no completion id."""
        next_id = self._next_id
        return ChunkFactory(
            next_id("chatcmpl-"), self._request.model or "test-model", lambda: next_id("call_")
        )

    def usage(self, answer: Answer) -> ReportedUsage:
        return usage_for(answer, self._request.body)

    def error_body(self, fault: Fault) -> dict[str, Any]:
        return error_json(fault)

    def broken_stream(self) -> bytes:
        return sse_raw_event(BROKEN_JSON) + sse_raw_event(b"[DONE]")

    def completion(self, answer: Answer, usage: ReportedUsage) -> dict[str, Any]:
        return self._factory.completion(answer, usage)

    def stream(self, answer: Answer, usage: ReportedUsage) -> tuple[list[bytes], int | None]:
        include_usage = _wants_usage(self._request.body)
        chunks = self._factory.stream(answer, usage, include_usage=include_usage)
        events = [sse_event(c) for c in chunks]
        events.append(sse_raw_event(b"[DONE]") + END_OF_CHUNKS)
        return events, len(events) - 2 if include_usage else None

    def partial_stream(self, drop: DropConnection) -> list[bytes]:
        deltas = list(self._factory.content_deltas(drop.then_content, DEFAULT_CHUNK_SIZE))
        return [sse_event(self._factory.chunk(delta)) for delta in deltas[: 1 + drop.after_chunks]]


class AnthropicFormat:
    """Anthropic's Messages wire: ``message`` objects and named events; its prompt cache
    (``cache``) decides the cache reads and writes of a counted usage."""

    def __init__(self, request: RecordedRequest, next_id: IdSource, cache: PromptCache) -> None:
        self._request = request
        self._next_id = next_id
        self._cache = cache

    @cached_property
    def _messages(self) -> anthropic.MessageFactory:
        """Built on first use: a fault takes no message id."""
        next_id = self._next_id
        return anthropic.MessageFactory(
            next_id("msg_"), self._request.model or "test-model", lambda: next_id("toolu_")
        )

    def usage(self, answer: Answer) -> ReportedUsage:
        usage = usage_for(answer, self._request.body)
        return usage if answer.usage is not None else self._cache.usage(self._request.body, usage)

    def error_body(self, fault: Fault) -> dict[str, Any]:
        return anthropic.error_json(fault)

    def broken_stream(self) -> bytes:
        return chunk(b"event: message_start\ndata: " + BROKEN_JSON + b"\n\n")

    def completion(self, answer: Answer, usage: ReportedUsage) -> dict[str, Any]:
        return self._messages.message(answer, usage)

    def stream(self, answer: Answer, usage: ReportedUsage) -> tuple[list[bytes], int | None]:
        named = self._messages.stream(answer, usage)
        events = [sse_named_event(name, data) for name, data in named]
        events[-1] += END_OF_CHUNKS
        return events, len(events) - 2

    def partial_stream(self, drop: DropConnection) -> list[bytes]:
        events = self._messages.start(self.usage(Text(drop.then_content)))
        text = self._messages.text_block(0, drop.then_content, DEFAULT_CHUNK_SIZE)
        events += list(text)[: 1 + drop.after_chunks]
        return [sse_named_event(name, data) for name, data in events]


def _wants_usage(body: Mapping[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True
