"""A tiny HTTP server that answers each request with exact bytes, then closes the connection.

LocalLLMServer only sends well-formed HTTP; this one sends whatever a test
gives it (a response cut at any byte, a body LocalLLMServer's types cannot
express), so the client's handling of broken wire data can be tested.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any

from praisonlike.testing.payloads import ChunkFactory
from praisonlike.testing.script import ReportedUsage, Text, ToolCalls
from praisonlike.testing.wire import (
    END_OF_CHUNKS,
    json_response,
    sse_event,
    sse_raw_event,
    stream_head,
)

Answer = bytes | Callable[[dict[str, Any]], bytes]


NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
"""The answer to anything but a POST (an agent's look-up of the server's model listing)."""


def _read_request(connection: socket.socket) -> tuple[str, dict[str, Any]] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        piece = connection.recv(65536)
        if not piece:
            return None
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        piece = connection.recv(65536)
        if not piece:
            return None
        body += piece
    parsed = json.loads(body[:length] or b"{}")
    method = head.split(b" ", 1)[0].decode("ascii", "replace")
    return method, parsed if isinstance(parsed, dict) else {}


class RawHTTPServer:
    """Serves the queued answers in order (then ``default``), one per POST connection;
    any other request is answered 404, neither recorded nor taking an answer.

    An answer is bytes, or a callable from the parsed JSON request body to bytes.
    Every response is followed by closing the connection, so a cut response is
    never mistaken for a kept-alive one.
    """

    def __init__(self, default: Answer | None = None) -> None:
        self.default = default
        self._answers: deque[Answer] = deque()
        self._lock = threading.Lock()
        self.bodies: list[dict[str, Any]] = []
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self._thread = threading.Thread(target=self._serve, name="RawHTTPServer", daemon=True)
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}/v1"

    def llm_config(self) -> dict[str, Any]:
        return {"model": "openai/test-model", "api_base": self.url, "api_key": "sk-test"}

    def add(self, *answers: Answer) -> None:
        with self._lock:
            self._answers.extend(answers)

    def reset(self) -> None:
        with self._lock:
            self._answers.clear()
            self.bodies.clear()

    def _next(self) -> Answer | None:
        with self._lock:
            return self._answers.popleft() if self._answers else self.default

    def _serve(self) -> None:
        while not self._stopped:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with connection:
                try:
                    request = _read_request(connection)
                    if request is None:
                        continue
                    method, body = request
                    if method != "POST":
                        connection.sendall(NOT_FOUND)
                        connection.shutdown(socket.SHUT_RDWR)
                        continue
                    with self._lock:
                        self.bodies.append(body)
                    answer = self._next()
                    data = answer(body) if callable(answer) else answer
                    if data:
                        connection.sendall(data)
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    continue

    def __enter__(self) -> RawHTTPServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopped = True
        with socket.create_connection(self._socket.getsockname(), timeout=5):
            pass
        self._thread.join(5)
        self._socket.close()


def completion_bytes(message: dict[str, Any], *, usage: Any = None, finish: str = "stop") -> bytes:
    """A whole non-streamed chat completion; ``usage`` is sent as given (``...`` leaves it out)."""
    payload: dict[str, Any] = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if usage is not ...:
        payload["usage"] = usage
    return json_response(200, payload, keep_alive=False)


def stream_bytes(answer: Text | ToolCalls, usage: ReportedUsage) -> bytes:
    """A whole SSE response (chunked encoding) as LocalLLMServer would stream ``answer``."""
    counter = iter(range(1, 1000))
    factory = ChunkFactory("chatcmpl-raw", "test-model", lambda: f"call_{next(counter)}")
    events = [sse_event(c) for c in factory.stream(answer, usage, include_usage=True)]
    return (
        stream_head(keep_alive=False) + b"".join(events) + sse_raw_event(b"[DONE]") + END_OF_CHUNKS
    )
