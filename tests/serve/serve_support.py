"""Running a served agent for real: Uvicorn on 127.0.0.1, port 0, in a thread; SSE parsing."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn


@dataclass
class Running:
    url: str
    app: Any

    def client(self, token: str | None = None, timeout: float = 30.0) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)


@contextmanager
def serving(app: Any, host: str = "127.0.0.1") -> Iterator[Running]:
    """Serve ``app`` with Uvicorn on ``host`` and a free port until the block ends."""
    config = uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Running(url=f"http://{host}:{port}", app=app)
    finally:
        server.should_exit = True
        thread.join(30)


@dataclass(frozen=True)
class Message:
    id: int
    event: str
    data: Any


def sse_messages(lines: Iterator[str]) -> Iterator[Message]:
    """Parse an SSE stream line by line (``id``, ``event``, ``data``; comments skipped)."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            if fields:
                yield Message(int(fields["id"]), fields["event"], json.loads(fields["data"]))
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields[name] = value[1:] if value.startswith(" ") else value
    if fields:
        yield Message(int(fields["id"]), fields["event"], json.loads(fields["data"]))


def stream_run(client: httpx.Client, body: dict[str, Any]) -> list[Message]:
    """POST /v1/runs and read the stream to its end."""
    with client.stream("POST", "/v1/runs", json=body) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        return list(sse_messages(response.iter_lines()))


def wait_until(check: Any, what: str, limit: float = 20.0) -> Any:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Reader:
    """Reads one run's stream on a thread, so the test can act while it runs."""

    def __init__(self, running: Running, body: dict[str, Any], token: str | None = None) -> None:
        self.messages: list[Message] = []
        self.status: int | None = None
        self._client = running.client(token)
        self._body = body
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with self._client.stream("POST", "/v1/runs", json=self._body) as response:
            self.status = response.status_code
            for message in sse_messages(response.iter_lines()):
                self.messages.append(message)

    def first(self, event: str) -> Message:
        return wait_until(lambda: next((m for m in self.messages if m.event == event), None), event)

    def finish(self) -> list[Message]:
        self._thread.join(30)
        assert not self._thread.is_alive(), "the stream did not end"
        self._client.close()
        return self.messages


def turns(running: Running, session_id: str, token: str | None = None) -> list[dict[str, Any]]:
    with running.client(token) as client:
        response = client.get(f"/v1/sessions/{session_id}/messages")
        assert response.status_code == 200, response.text
        return list(response.json()["turns"])
