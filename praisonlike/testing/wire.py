"""Minimal HTTP/1.1 for the test server: read requests, frame responses.

Only what OpenAI clients send is understood: a request line, headers, and a
body framed by ``Content-Length`` or ``Transfer-Encoding: chunked``.
Responses are built as whole byte strings so a non-streaming answer goes out
in a single write; streams use chunked transfer encoding so the connection
can be kept alive afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024


class BadHttpRequest(Exception):
    """The peer sent something that is not a request this server can parse."""


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    keep_alive: bool


def _parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    try:
        text = head.decode("latin-1")
        request_line, *header_lines = text.split("\r\n")
        method, target, version = request_line.split(" ")
    except ValueError as exc:
        raise BadHttpRequest("malformed request line") from exc
    headers: dict[str, str] = {}
    for line in header_lines:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise BadHttpRequest(f"malformed header line {line!r}")
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return method, target.split("?", 1)[0], version, headers


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError as exc:
            raise BadHttpRequest("malformed chunk size") from exc
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass
            return b"".join(parts)
        total += size
        if total > MAX_BODY_BYTES:
            raise BadHttpRequest("request body too large")
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


async def read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> HttpRequest | None:
    """The next request on the connection, or None if the peer closed it cleanly.

    Answers ``Expect: 100-continue`` (as curl sends for large bodies) before
    reading the body. Raises :class:`BadHttpRequest` for unparseable input and
    :class:`asyncio.IncompleteReadError` when the peer vanishes mid-request.
    """
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise
    except asyncio.LimitOverrunError as exc:
        raise BadHttpRequest("request head too large") from exc
    method, path, version, headers = _parse_head(head[:-4])
    if headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    else:
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError as exc:
            raise BadHttpRequest("malformed Content-Length") from exc
        if not 0 <= length <= MAX_BODY_BYTES:
            raise BadHttpRequest("bad Content-Length")
        body = await reader.readexactly(length) if length else b""
    connection = headers.get("connection", "").lower()
    keep_alive = "close" not in connection and (version == "HTTP/1.1" or "keep-alive" in connection)
    return HttpRequest(method, path, headers, body, keep_alive)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error" if status >= 400 else "OK"


def _head(status: int, headers: Mapping[str, str], keep_alive: bool) -> bytes:
    lines = [f"HTTP/1.1 {status} {_reason(status)}"]
    lines.extend(f"{name}: {value}" for name, value in headers.items())
    lines.append(f"Connection: {'keep-alive' if keep_alive else 'close'}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def raw_response(
    status: int,
    body: bytes,
    *,
    keep_alive: bool,
    content_type: str = "application/json",
    extra_headers: Mapping[str, str] | None = None,
) -> bytes:
    """Status line, headers and body as one byte string."""
    headers = {"Content-Type": content_type, "Content-Length": str(len(body))}
    headers.update(extra_headers or {})
    return _head(status, headers, keep_alive) + body


def json_response(
    status: int,
    payload: Any,
    *,
    keep_alive: bool,
    extra_headers: Mapping[str, str] | None = None,
) -> bytes:
    return raw_response(
        status,
        json.dumps(payload, separators=(",", ":")).encode(),
        keep_alive=keep_alive,
        extra_headers=extra_headers,
    )


def stream_head(*, keep_alive: bool) -> bytes:
    """The headers of a server-sent-events response in chunked encoding."""
    headers = {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache",
        "Transfer-Encoding": "chunked",
    }
    return _head(200, headers, keep_alive)


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked-encoding body."""
    return b"%x\r\n%b\r\n" % (len(data), data)


END_OF_CHUNKS = b"0\r\n\r\n"


def sse_event(payload: Any) -> bytes:
    """One ``data:`` event carrying ``payload`` as JSON, framed as a chunk."""
    return chunk(b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n")


def sse_raw_event(data: bytes) -> bytes:
    """One ``data:`` event with ``data`` verbatim (used for ``[DONE]`` and broken JSON)."""
    return chunk(b"data: " + data + b"\n\n")


def sse_named_event(name: str, payload: Any) -> bytes:
    """One ``event: <name>`` event with ``payload`` as JSON (Anthropic's framing), as a chunk."""
    data = json.dumps(payload, separators=(",", ":")).encode()
    return chunk(b"event: " + name.encode() + b"\ndata: " + data + b"\n\n")
