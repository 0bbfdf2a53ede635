"""A canary provider key and a canary bearer token never leave the server.

The served agent talks to LocalLLMServer with ``api_key=PROVIDER_CANARY``;
clients authenticate with ``TOKEN_CANARY`` (and a wrong token is tried too).
Every response (bodies and headers), every SSE event, the log records of the
server's, Uvicorn's, LiteLLM's, httpx's and openai's loggers at DEBUG, and the
session database's raw bytes are searched for them; the LLM server seeing the
key in its ``Authorization`` header is the positive control.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from serve_support import Running, serving

from praisonlike import Agent, ExecutionConfig
from praisonlike.testing import Call, Fault, LocalLLMServer, Text, ToolCalls

PROVIDER_CANARY = f"sk-canary-{uuid.uuid4().hex}"
TOKEN_CANARY = f"tok-canary-{uuid.uuid4().hex}"
WRONG_TOKEN = f"tok-wrong-{uuid.uuid4().hex}"
LOGGERS = (
    "praisonlike",
    "uvicorn",
    "uvicorn.error",
    "uvicorn.access",
    "sse_starlette",
    "LiteLLM",
    "httpx",
    "httpcore",
    "openai",
)


class Collecting(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture
def app(server: LocalLLMServer, tmp_path: Path) -> Iterator[Running]:
    agent = Agent(
        instructions="You answer.",
        llm={**server.llm_config(), "api_key": PROVIDER_CANARY},
        tools=[add],
        execution=ExecutionConfig(max_retries=0),
    )
    served = agent.to_asgi(
        tokens={TOKEN_CANARY: "alice"}, store=str(tmp_path / "sessions.db"), ping_interval=0.1
    )
    with serving(served) as running:
        yield running


@pytest.fixture
def logs(app: Running) -> Iterator[Collecting]:
    handler = Collecting()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    loggers = [logging.getLogger(name) for name in LOGGERS]
    saved = [(logger.level, list(logger.handlers)) for logger in loggers]
    for logger in loggers:
        logger.handlers = [handler]
        logger.setLevel(logging.DEBUG)
    yield handler
    for logger, (level, handlers) in zip(loggers, saved, strict=True):
        logger.handlers = handlers
        logger.setLevel(level)


def seen(response: httpx.Response) -> str:
    return f"{response.status_code} {dict(response.headers)} {response.text}"


def test_no_key_or_token_in_any_response_event_log_or_stored_byte(
    app: Running, server: LocalLLMServer, logs: Collecting, tmp_path: Path
) -> None:
    server.add(
        ToolCalls([Call("add", {"a": 1, "b": 2})]),
        Text("3"),
        Fault.authentication(),
        Text("three"),
        ToolCalls([Call("add", {"a": 2, "b": 2})]),
        Text("4"),
        Text("four", chunk_size=1),
    )
    texts: list[str] = []
    with app.client(TOKEN_CANARY) as client:
        with client.stream("POST", "/v1/runs", json={"input": "1+2?", "session_id": "s"}) as r:
            r.read()
            texts.append(seen(r))
        with client.stream("POST", "/v1/runs", json={"input": "again", "session_id": "s"}) as r:
            r.read()
            assert "AuthenticationError" in r.text
            texts.append(seen(r))
        texts.append(seen(client.post("/v1/runs", json={"input": "x", "stream": False})))
        texts.append(seen(client.get("/v1/sessions/s")))
        texts.append(seen(client.get("/v1/sessions/s/messages")))
        texts.append(seen(client.post("/v1/runs/nope/stop")))
        texts.append(seen(client.post("/v1/runs", content=b"{broken")))
    with httpx.Client(base_url=app.url, headers={"Authorization": f"Bearer {WRONG_TOKEN}"}) as bad:
        texts.append(seen(bad.post("/v1/runs", json={"input": "hi"})))
    chat = openai.OpenAI(base_url=f"{app.url}/v1", api_key=TOKEN_CANARY, max_retries=0)
    answer = chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "2+2"}])
    texts.append(answer.model_dump_json())
    stream = chat.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "2+2"}], stream=True
    )
    texts += [chunk.model_dump_json() for chunk in stream]
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("sessions.db*"))

    assert any(
        r.headers.get("authorization") == f"Bearer {PROVIDER_CANARY}" for r in server.requests
    )
    assert stored
    assert any(line.startswith("uvicorn.access") for line in logs.lines)
    assert any(line.startswith(("LiteLLM", "openai.")) for line in logs.lines)  # the transport's
    for secret in (PROVIDER_CANARY, TOKEN_CANARY, WRONG_TOKEN):
        for prefix in (secret, secret[:20]):
            assert [t for t in texts + logs.lines if prefix in t] == []
            assert prefix.encode() not in stored
