"""Writing one resolved response onto a connection: JSON, SSE, faults, drops.

A :class:`Player` knows nothing of the script; the server hands it a
playable response (delays and callables already resolved) and the request it
answers, and learns whether the connection may be kept alive afterwards. What
the bytes look like on the request's wire is the business of its
:mod:`~praisonlike.testing.formats` format.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeAlias

from praisonlike.testing.anthropic_cache import PromptCache
from praisonlike.testing.formats import BROKEN_JSON, WireFormat, format_for
from praisonlike.testing.payloads import Answer
from praisonlike.testing.script import (
    DropConnection,
    Fault,
    MalformedBody,
    RecordedRequest,
    ReportedUsage,
    Text,
    ToolCalls,
)
from praisonlike.testing.wire import END_OF_CHUNKS, json_response, raw_response, stream_head

Playable: TypeAlias = Text | ToolCalls | Fault | DropConnection | MalformedBody
PLAYABLE = (Text, ToolCalls, Fault, DropConnection, MalformedBody)


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

    async def play(
        self,
        response: Playable,
        request: RecordedRequest,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> bool:
        """Write ``response``; False when the connection must be closed afterwards."""
        wire = format_for(request, self._next_id, self.prompt_cache)
        if isinstance(response, DropConnection):
            if request.stream:
                writer.write(
                    b"".join([stream_head(keep_alive=False), *wire.partial_stream(response)])
                )
                await writer.drain()
            return False
        if isinstance(response, Text | ToolCalls):
            await self._write_answer(response, request, wire, writer, keep_alive)
        elif isinstance(response, Fault):
            headers = {}
            if response.retry_after is not None:
                headers["Retry-After"] = _seconds(response.retry_after)
            body = wire.error_body(response)
            writer.write(
                json_response(response.status, body, keep_alive=keep_alive, extra_headers=headers)
            )
        elif request.stream:
            writer.write(stream_head(keep_alive=keep_alive) + wire.broken_stream() + END_OF_CHUNKS)
        else:
            writer.write(raw_response(200, BROKEN_JSON, keep_alive=keep_alive))
        await writer.drain()
        return keep_alive

    async def _write_answer(
        self,
        answer: Answer,
        request: RecordedRequest,
        wire: WireFormat,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> None:
        usage = wire.usage(answer)
        if not request.stream:
            payload = wire.completion(answer, usage)
            self._count_tokens(usage)
            writer.write(json_response(200, payload, keep_alive=keep_alive))
            await writer.drain()
            return
        events, usage_index = wire.stream(answer, usage)
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


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
