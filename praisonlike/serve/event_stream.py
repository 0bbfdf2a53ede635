"""The SSE stream of a run: ``session``, the SDK's events, ``ping``, and ``end`` last.

Every message has an ``id`` counting from 1 over the whole stream, pings
included. Pings keep a fixed cadence from the start of the stream, whatever
else is sent: a ping that is due goes before the next event. If the client
goes away before ``end``, the run is cancelled unless it was started with
``detach``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from praisonlike.serve.runs import LiveRun

DISCONNECTED = "the client disconnected"


def _message(ident: int, event: str, data: str) -> bytes:
    return f"id: {ident}\r\nevent: {event}\r\ndata: {data}\r\n\r\n".encode()


async def run_messages(live: LiveRun, ping_interval: float) -> AsyncIterator[bytes]:
    """The encoded messages of ``live``'s stream; events already queued go out in one write."""
    ident = 0
    loop = asyncio.get_running_loop()
    next_ping = loop.time() + ping_interval
    try:
        ident += 1
        yield _message(
            ident,
            "session",
            json.dumps(
                {
                    "session_id": live.session_id,
                    "run_id": live.run_id,
                    "owner": live.owner,
                    "detach": live.detach,
                }
            ),
        )
        while True:
            now = loop.time()
            if now >= next_ping:
                while next_ping <= now:
                    next_ping += ping_interval
                ident += 1
                yield _message(ident, "ping", json.dumps({"time": time.time()}))
                continue
            if not live.queue.empty():
                item = live.queue.get_nowait()
            else:
                try:
                    item = await asyncio.wait_for(live.queue.get(), timeout=next_ping - now)
                except asyncio.TimeoutError:
                    continue
            chunk = bytearray()
            while item is not None:
                ident += 1
                chunk += _message(ident, item.event, item.data)
                if live.queue.empty():
                    break
                item = live.queue.get_nowait()
            if item is None:
                ident += 1
                chunk += _message(ident, "end", json.dumps(live.end_data()))
                yield bytes(chunk)
                return
            yield bytes(chunk)
    finally:
        _client_gone(live)


def _client_gone(live: LiveRun) -> None:
    if not live.finished.is_set() and not live.detach:
        live.cancel.cancel(DISCONNECTED)


def sse_response(live: LiveRun, ping_interval: float) -> Any:
    """The ``text/event-stream`` response of ``live``."""
    from sse_starlette.sse import EventSourceResponse

    headers = {"X-Run-Id": live.run_id, "Cache-Control": "no-store"}
    if live.session_id is not None:
        headers["X-Session-Id"] = live.session_id

    async def closed(message: Any) -> None:
        _client_gone(live)

    return EventSourceResponse(
        run_messages(live, ping_interval),
        ping=0,
        headers=headers,
        client_close_handler_callable=closed,
    )
