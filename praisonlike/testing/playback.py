"""Writing one resolved response onto a connection: JSON, SSE, faults, drops.

A :class:`Player` knows nothing of the script; the server hands it a
playable response (delays and callables already resolved) and the request it
answers, and learns whether the connection may be kept alive afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from praisonlike.testing import anthropic_payloads as anthropic
from praisonlike.testing.anthropic_cache import PromptCache
from praisonlike.testing.payloads import Answer, ChunkFactory, error_json, usage_for
from praisonlike.testing.script import (
    DEFAULT_CHUNK_SIZE,
    DropConnection,
    Fault,
    MalformedBody,
    RecordedRequest,
    ReportedUsage,
    Text,
    ToolCalls,
)
from praisonlike.testing.wire import (
    END_OF_CHUNKS,
    chunk,
    json_response,
    raw_response,
    sse_event,
    sse_named_event,
    sse_raw_event,
    stream_head,
)

Playable: TypeAlias = Text | ToolCalls | Fault | DropConnection | MalformedBody
PLAYABLE = (Text, ToolCalls, Fault, DropConnection, MalformedBody)
_BROKEN_JSON = b'{"id": "chatcmpl-broken", "choices": [{"index": 0, "delta": {"content": '


class Player:
    """Writes responses; ``next_id(prefix)`` numbers completions and tool calls.

    ``count_tokens`` is called with the usage of every answer whose usage is
    sent, just before it is written: a client that has received a usage
    always finds it counted. ``prompt_cache`` plays Anthropic's prompt cache for
    the Messages wire.
    """

    def __init__(
        self, next_id: Callable[[str], str], count_tokens: Callable[[ReportedUsage], None]
    ) -> None:
        self._next_id = next_id
        self._count_tokens = count_tokens
        self.prompt_cache = PromptCache()

    def _usage(self, answer: Answer, request: RecordedRequest) -> ReportedUsage:
        usage = usage_for(answer, request.body)
        if request.anthropic and answer.usage is None:
            return self.prompt_cache.usage(request.body, usage.completion_tokens)
        return usage

    async def play(
        self,
        response: Playable,
        request: RecordedRequest,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> bool:
        """Write ``response``; False when the connection must be closed afterwards."""
        if isinstance(response, DropConnection):
            if request.stream:
                await self._write_partial_stream(response, request, writer)
            return False
        if isinstance(response, Text | ToolCalls):
            await self._write_answer(response, request, writer, keep_alive)
        elif isinstance(response, Fault):
            headers = {}
            if response.retry_after is not None:
                headers["Retry-After"] = _seconds(response.retry_after)
            body = anthropic.error_json(response) if request.anthropic else error_json(response)
            writer.write(
                json_response(response.status, body, keep_alive=keep_alive, extra_headers=headers)
            )
        elif request.stream:
            if request.anthropic:
                broken = chunk(b"event: message_start\ndata: " + _BROKEN_JSON + b"\n\n")
            else:
                broken = sse_raw_event(_BROKEN_JSON) + sse_raw_event(b"[DONE]")
            writer.write(stream_head(keep_alive=keep_alive) + broken + END_OF_CHUNKS)
        else:
            writer.write(raw_response(200, _BROKEN_JSON, keep_alive=keep_alive))
        await writer.drain()
        return keep_alive

    def _factory(self, request: RecordedRequest) -> ChunkFactory:
        return ChunkFactory(
            self._next_id("chatcmpl-"),
            request.model or "test-model",
            lambda: self._next_id("call_"),
        )

    async def _write_partial_stream(
        self, drop: DropConnection, request: RecordedRequest, writer: asyncio.StreamWriter
    ) -> None:
        pieces = [stream_head(keep_alive=False)]
        if request.anthropic:
            messages = self._messages(request)
            usage = self._usage(Text(drop.then_content), request)
            events = [*messages.start(usage)]
            text = messages.text_block(0, drop.then_content, DEFAULT_CHUNK_SIZE)
            events += list(text)[: 1 + drop.after_chunks]
            pieces += [sse_named_event(name, data) for name, data in events]
        else:
            factory = self._factory(request)
            deltas = list(factory.content_deltas(drop.then_content, DEFAULT_CHUNK_SIZE))
            pieces += [sse_event(factory.chunk(delta)) for delta in deltas[: 1 + drop.after_chunks]]
        writer.write(b"".join(pieces))
        await writer.drain()

    def _messages(self, request: RecordedRequest) -> anthropic.MessageFactory:
        return anthropic.MessageFactory(
            self._next_id("msg_"), request.model or "test-model", lambda: self._next_id("toolu_")
        )

    async def _write_answer(
        self,
        answer: Answer,
        request: RecordedRequest,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> None:
        usage = self._usage(answer, request)
        if not request.stream:
            if request.anthropic:
                payload = self._messages(request).message(answer, usage)
            else:
                payload = self._factory(request).completion(answer, usage)
            self._count_tokens(usage)
            writer.write(json_response(200, payload, keep_alive=keep_alive))
            await writer.drain()
            return
        events, usage_index = self._events(answer, usage, request)
        head = stream_head(keep_alive=keep_alive)
        delay = answer.chunk_delay if isinstance(answer, Text) else 0.0
        if not delay:
            if usage_index is not None:
                self._count_tokens(usage)
            writer.write(head + b"".join(events))
            await writer.drain()
            return
        writer.write(head)
        for index, event in enumerate(events):
            if index:
                await writer.drain()
                await asyncio.sleep(delay)
            if index == usage_index:
                self._count_tokens(usage)
            writer.write(event)
        await writer.drain()

    def _events(
        self, answer: Answer, usage: ReportedUsage, request: RecordedRequest
    ) -> tuple[list[bytes], int | None]:
        """A streamed answer's framed events, and the index of the one that reports
        the usage (None when the client did not ask for it)."""
        if request.anthropic:
            named = self._messages(request).stream(answer, usage)
            return [sse_named_event(name, data) for name, data in named[:-1]] + [
                sse_named_event(*named[-1]) + END_OF_CHUNKS
            ], len(named) - 2
        include_usage = _wants_usage(request.body)
        factory = self._factory(request)
        events = [sse_event(c) for c in factory.stream(answer, usage, include_usage=include_usage)]
        events.append(sse_raw_event(b"[DONE]") + END_OF_CHUNKS)
        return events, len(events) - 2 if include_usage else None


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _wants_usage(body: Mapping[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True
