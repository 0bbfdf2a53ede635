"""Refused requests: a JSON error with its status code, no model call, nothing stored."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serve_support import Running, serving

from praisonlike import Agent
from praisonlike.memory import SQLiteStore
from praisonlike.serve.config import ServeConfig
from praisonlike.testing import LocalLLMServer, Text

TOKENS = {"tok-alice": "alice", "tok-bob": "bob"}


@pytest.fixture
def store() -> Iterator[SQLiteStore]:
    with_store = SQLiteStore(":memory:")
    yield with_store
    with_store.close()


@pytest.fixture
def app(server: LocalLLMServer, store: SQLiteStore) -> Iterator[Running]:
    agent = Agent(instructions="Answer.", llm=server.llm_config())
    with serving(agent.to_asgi(tokens=TOKENS, store=store, max_body_bytes=2048)) as running:
        yield running


def refused(response: httpx.Response, status: int, kind: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert (error["code"], error["type"]) == (status, kind)
    assert error["message"]
    return str(error["message"])


@pytest.mark.parametrize(
    ("body", "names"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"session_id": "s"}', "input"),
        (b'{"input": ""}', "input"),
        (b'{"input": " \\n\\t "}', "input"),
        (b'{"input": "hi", "stream": "yes"}', "stream"),
        (b'{"input": "hi", "options": {"temperature": 2}}', "options.temperature"),
        (b'{"input": "hi", "options": {"timeout": -1}}', "options.timeout"),
        (b'{"input": "hi", "session_id": "../etc/passwd"}', "session_id"),
        (b'{"input": "hi", "colour": "red"}', "colour"),
    ],
)
def test_a_malformed_run_request_is_a_400_naming_the_problem(
    app: Running, server: LocalLLMServer, store: SQLiteStore, body: bytes, names: str
) -> None:
    with app.client("tok-alice") as client:
        response = client.post(
            "/v1/runs", content=body, headers={"content-type": "application/json"}
        )
    assert names in refused(response, 400, "invalid_request")
    assert server.requests == []
    assert store.list_conversations() == []


def test_an_oversized_body_is_a_413_with_or_without_a_length(
    app: Running, server: LocalLLMServer, store: SQLiteStore
) -> None:
    big = {"input": "x" * 5000, "session_id": "big"}
    with app.client("tok-alice") as client:
        declared = client.post("/v1/runs", json=big)

        def chunks() -> Iterator[bytes]:
            yield b'{"input": "'
            for _ in range(10):
                yield b"y" * 500
            yield b'"}'

        streamed = client.post("/v1/runs", content=chunks())
        completions = client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "z" * 5000}]},
        )
    assert "2048" in refused(declared, 413, "payload_too_large")
    refused(streamed, 413, "payload_too_large")
    refused(completions, 413, "payload_too_large")
    assert server.requests == []
    assert store.list_conversations() == []


def test_an_unknown_session_is_a_404(app: Running) -> None:
    with app.client("tok-alice") as client:
        refused(client.get("/v1/sessions/nobody"), 404, "not_found")
        refused(client.get("/v1/sessions/nobody/messages"), 404, "not_found")


def test_an_unknown_run_is_a_404_for_stop_and_steer(app: Running) -> None:
    with app.client("tok-alice") as client:
        refused(client.post("/v1/runs/0123abcd/stop"), 404, "not_found")
        refused(client.post("/v1/runs/0123abcd/steer", json={"text": "hi"}), 404, "not_found")
        refused(client.post("/v1/runs/0123abcd/steer", json={}), 400, "invalid_request")


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer tok-mallory"}, {"Authorization": "Basic dG9rLWFsaWNl"}],
)
def test_a_token_that_maps_to_no_owner_is_a_401(
    app: Running, server: LocalLLMServer, store: SQLiteStore, headers: dict[str, str]
) -> None:
    with httpx.Client(base_url=app.url, headers=headers, timeout=30) as client:
        responses = [
            client.post("/v1/runs", json={"input": "hi", "session_id": "s"}),
            client.post("/v1/runs/abc/stop"),
            client.get("/v1/sessions/s"),
            client.post(
                "/v1/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            ),
        ]
    for response in responses:
        message = refused(response, 401, "unauthorized")
        assert "tok-mallory" not in message
    assert server.requests == []
    assert store.list_conversations() == []


def test_another_owners_session_is_a_403_and_nothing_is_stored(
    app: Running, server: LocalLLMServer, store: SQLiteStore
) -> None:
    server.add(Text("Hello Alice."))
    with app.client("tok-alice") as alice:
        response = alice.post("/v1/runs", json={"input": "hi", "session_id": "a1", "stream": False})
        assert response.status_code == 200
    with app.client("tok-bob") as bob:
        refused(bob.get("/v1/sessions/a1"), 403, "forbidden")
        refused(bob.get("/v1/sessions/a1/messages"), 403, "forbidden")
        refused(
            bob.post("/v1/runs", json={"input": "mine now", "session_id": "a1"}), 403, "forbidden"
        )
    assert len(server.requests) == 1
    assert [t.query for t in store.load_turns("a1")] == ["hi"]
    assert store.get_conversation("a1").owner == "alice"


def test_a_bad_limit_and_an_unknown_route_are_json_errors(app: Running) -> None:
    with app.client("tok-alice") as client:
        refused(client.get("/v1/sessions/s/messages?limit=-3"), 400, "invalid_request")
        refused(client.get("/v1/nothing-here"), 404, "not_found")
        refused(client.get("/v1/runs"), 405, "method_not_allowed")


async def test_without_tokens_the_app_answers_only_on_a_loopback_address(
    server: LocalLLMServer,
) -> None:
    app = Agent(instructions="Answer.", llm=server.llm_config()).to_asgi()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://example.com") as client:
        response = await client.post("/v1/runs", json={"input": "hi"})
    assert "tokens" in refused(response, 403, "forbidden")
    assert server.requests == []


@pytest.mark.parametrize(
    ("headers", "says"),
    [
        ({"Origin": "http://evil.example"}, "web pages"),
        ({"Origin": "null"}, "web pages"),
        ({"Host": "attacker.example"}, "loopback name"),
    ],
)
def test_without_tokens_a_foreign_page_or_host_name_is_refused(
    server: LocalLLMServer, store: SQLiteStore, headers: dict[str, str], says: str
) -> None:
    """What a web page the user visits could send (a simple cross-site POST, or a
    request through a DNS-rebound name): refused before anything runs or is stored."""
    server.add(Text("ran"), Text("ran"))
    agent = Agent(instructions="Answer.", llm=server.llm_config())
    with serving(agent.to_asgi(store=store)) as running, running.client() as client:
        body = b'{"input": "spend money", "session_id": "x1", "stream": false}'
        plain = {"Content-Type": "text/plain", **headers}
        assert says in refused(
            client.post("/v1/runs", content=body, headers=plain), 403, "forbidden"
        )
        assert server.requests == []
        assert store.load_turns("x1") == []

        page = {"Origin": running.url}
        answered = client.post("/v1/runs", content=body, headers=page)
        assert answered.status_code == 200, answered.text
        refused(client.get("/v1/sessions/x1", headers=headers), 403, "forbidden")
        assert client.get("/v1/sessions/x1").status_code == 200
        local = {"Host": "localhost", "Origin": "http://localhost:3000"}
        assert client.get("/v1/sessions/x1", headers=local).status_code == 200


@pytest.mark.parametrize(
    "settings",
    [
        {"ping_interval": 0},
        {"max_body_bytes": 0},
        {"tokens": {}},
        {"tokens": {"": "alice"}},
        {"run_timeout": -1},
    ],
)
def test_invalid_serve_settings_raise_a_configuration_error(settings: dict[str, Any]) -> None:
    from praisonlike.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="invalid serve settings"):
        ServeConfig(**settings)


class Greeter(Agent):
    """A subclass whose constructor takes none of the Agent's arguments."""

    def __init__(self, llm: dict[str, Any]) -> None:
        super().__init__(instructions="Greet.", llm=llm)


def test_an_agent_that_cannot_be_rebuilt_for_a_run_is_a_500_saying_why(
    server: LocalLLMServer,
) -> None:
    with serving(Greeter(server.llm_config()).to_asgi()) as running, running.client() as client:
        response = client.post("/v1/runs", json={"input": "hi"})
    assert "agent_for_run" in refused(response, 500, "server_error")
    assert server.requests == []
