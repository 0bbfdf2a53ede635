"""POST /v1/chat/completions through the official openai client, sync and streaming."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from serve_support import Running, serving, wait_until

from praisonlike import Agent, ExecutionConfig, RunContext
from praisonlike.testing import Call, Delay, Fault, LocalLLMServer, Text, ToolCalls


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: sunny, 26c"


@pytest.fixture
def app(server: LocalLLMServer) -> Iterator[Running]:
    agent = Agent(
        instructions="You report the weather.",
        llm=server.llm_config(),
        tools=[get_weather],
        execution=ExecutionConfig(max_retries=0),
    )
    with serving(agent.to_asgi(tokens={"tok-alice": "alice"}, run_timeout=2)) as running:
        yield running


def client(app: Running, key: str = "tok-alice") -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{app.url}/v1", api_key=key, max_retries=0)


def test_the_openai_client_gets_the_answer_after_the_tool_round(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(ToolCalls([Call("get_weather", {"city": "Rome"})]), Text("Sunny in Rome, 26c."))
    completion = client(app).chat.completions.create(
        model="weather-agent",
        messages=[
            {"role": "system", "content": "ignored: the agent has its own instructions"},
            {"role": "user", "content": "I like Rome."},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "Weather in Rome?"},
        ],
    )
    assert completion.choices[0].message.content == "Sunny in Rome, 26c."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "weather-agent"
    assert completion.usage is not None and completion.usage.total_tokens > 0
    first = server.requests[0].messages
    assert first[-3:] == [
        {"role": "user", "content": "I like Rome."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Weather in Rome?"},
    ]
    assert "ignored" not in str(first)
    assert server.requests[1].messages[-1]["content"] == "Rome: sunny, 26c"


@pytest.mark.parametrize("include_usage", [True, False, None])
def test_the_openai_client_streams_the_answer(
    app: Running, server: LocalLLMServer, include_usage: bool | None
) -> None:
    server.add(
        ToolCalls([Call("get_weather", {"city": "Lima"})]), Text("Lima is sunny.", chunk_size=3)
    )
    options: Any = {} if include_usage is None else {"include_usage": include_usage}
    stream = client(app).chat.completions.create(
        model="weather-agent",
        messages=[{"role": "user", "content": "Weather in Lima?"}],
        stream=True,
        stream_options=options or openai.NOT_GIVEN,
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Lima is sunny."
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
    if include_usage:  # as OpenAI: one last chunk without choices carries the usage
        *answer, last = chunks
        assert last.choices == [] and last.usage is not None and last.usage.total_tokens > 0
        assert all(c.usage is None for c in answer)
    else:
        answer = chunks
        assert all(c.usage is None for c in chunks)
    assert answer[-1].choices[0].finish_reason == "stop"


def test_a_wrong_key_is_an_authentication_error(app: Running, server: LocalLLMServer) -> None:
    with pytest.raises(openai.AuthenticationError):
        client(app, key="tok-mallory").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
    assert server.requests == []


def test_a_last_message_not_from_the_user_is_a_bad_request(
    app: Running, server: LocalLLMServer
) -> None:
    with pytest.raises(openai.BadRequestError, match="last message"):
        client(app).chat.completions.create(
            model="m", messages=[{"role": "assistant", "content": "hi"}]
        )
    assert server.requests == []


def test_a_turn_over_the_servers_timeout_is_a_504(app: Running, server: LocalLLMServer) -> None:
    server.add(Delay(30, Text("late")))
    with pytest.raises(openai.APIStatusError) as caught:
        client(app).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 504
    assert caught.value.response.headers["x-should-retry"] == "false"


def test_served_turns_add_to_the_agents_usage(server: LocalLLMServer) -> None:
    agent = Agent(instructions="You answer.", llm=server.llm_config())
    server.add(Text("one"), Text("two"))
    with serving(agent.to_asgi(tokens={"tok-alice": "alice"})) as running:
        with running.client("tok-alice") as http:
            http.post("/v1/runs", json={"input": "first", "stream": False})
        history = [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "one"},
            {"role": "user", "content": "second"},
        ]
        client(running).chat.completions.create(model="m", messages=history)
    assert agent.usage.requests == 2
    assert agent.usage.total_tokens > 0


def test_a_streaming_client_that_leaves_cancels_the_turn(server: LocalLLMServer) -> None:
    seen: list[str] = []
    started = threading.Event()

    def watch(ctx: RunContext[None]) -> str:
        """Wait until the run is cancelled (or give up)."""
        started.set()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if ctx.cancel_token is not None and ctx.cancel_token.cancelled:
                seen.append("cancelled")
                return "cancelled"
            time.sleep(0.02)
        seen.append("not cancelled")
        return "done"

    agent = Agent(instructions="You answer.", llm=server.llm_config(), tools=[watch])
    server.add(ToolCalls([Call("watch", {})]), Text("never read"))
    with serving(agent.to_asgi(tokens={"tok-alice": "alice"})) as running:
        stream = client(running).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        next(iter(stream))
        assert started.wait(20)
        stream.close()
        wait_until(lambda: seen, "the tool to see the run end")
    assert seen == ["cancelled"]
    assert len(server.requests) == 1


def test_a_model_error_the_server_retried_is_not_retried_again_by_the_openai_client(
    server: LocalLLMServer,
) -> None:
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        execution=ExecutionConfig(max_retries=1, retry_base=0.01, retry_max=0.01),
    )
    server.add(Fault.server_error(), Fault.server_error())
    with serving(agent.to_asgi()) as running:
        patient = openai.OpenAI(base_url=f"{running.url}/v1", api_key="unused", max_retries=2)
        with pytest.raises(openai.APIStatusError) as caught:
            patient.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 502
    assert caught.value.response.headers["x-should-retry"] == "false"
    assert len(server.requests) == 2


def test_a_model_error_the_server_did_not_retry_is_left_to_the_client(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Fault.server_error(), Text("Second time lucky."))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with app.client("tok-alice") as http:
        failed = http.post("/v1/chat/completions", json=body)
        again = http.post("/v1/chat/completions", json=body)
    assert (failed.status_code, failed.json()["error"]["type"]) == (502, "bad_gateway")
    assert failed.headers["x-should-retry"] == "true"
    assert again.json()["choices"][0]["message"]["content"] == "Second time lucky."


def test_a_configuration_error_is_a_500_the_openai_client_does_not_retry() -> None:
    built: list[str | None] = []

    class Counting(Agent):
        def agent_for_run(self, **kwargs: Any) -> Any:
            built.append(kwargs["session_id"])
            return super().agent_for_run(**kwargs)

    agent = Counting(instructions="You answer.", llm="openai/gpt-4o-mini")
    with serving(agent.to_asgi()) as running:
        patient = openai.OpenAI(base_url=f"{running.url}/v1", api_key="unused", max_retries=2)
        with pytest.raises(openai.InternalServerError) as caught:
            patient.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        streamed = httpx.post(
            f"{running.url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True},
            timeout=30,
        )
    assert caught.value.status_code == 500
    assert caught.value.response.headers["x-should-retry"] == "false"
    error = caught.value.response.json()["error"]
    assert error["type"] == "server_error" and "OPENAI_API_KEY" in error["message"]
    assert built == [None, None]
    assert '"code": 500' in streamed.text and streamed.text.endswith("data: [DONE]\n\n")


IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


@pytest.mark.parametrize(
    ("extra", "messages", "names"),
    [
        (
            {},
            [{"role": "user", "content": [{"type": "text", "text": "What is it?"}, IMAGE]}],
            "image_url",
        ),
        (
            {},
            [{"role": "user", "content": [IMAGE]}, {"role": "user", "content": "And?"}],
            "image_url",
        ),
        ({"n": 2}, [{"role": "user", "content": "hi"}], "n"),
        (
            {"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]},
            [{"role": "user", "content": "hi"}],
            "tools: Value error, this endpoint serves an agent that calls its own tools",
        ),
        (
            {"functions": [{"name": "f", "parameters": {}}]},
            [{"role": "user", "content": "hi"}],
            "functions: Value error",
        ),
    ],
    ids=["image-in-the-prompt", "image-in-the-history", "two-answers", "tools", "functions"],
)
def test_what_the_endpoint_cannot_honour_is_refused_not_dropped(
    app: Running, server: LocalLLMServer, extra: dict[str, Any], messages: Any, names: str
) -> None:
    """An image or a request for several answers was answered as if it were not there."""
    with pytest.raises(openai.BadRequestError, match=names):
        client(app).chat.completions.create(model="m", messages=messages, **extra)
    assert server.requests == []


def test_a_plain_answer_names_its_run_and_a_null_stream_is_not_streamed(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Text("Fine."))
    with httpx.Client(base_url=app.url, timeout=30) as http:
        response = http.post(
            "/v1/chat/completions",
            json={"model": "m", "stream": None, "messages": [{"role": "user", "content": "hi"}]},
            headers={"Authorization": "Bearer tok-alice"},
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["choices"][0]["message"]["content"] == "Fine."
    assert response.headers["x-run-id"] == body["id"].removeprefix("chatcmpl-")


def test_an_empty_tools_list_is_no_client_tool(app: Running, server: LocalLLMServer) -> None:
    server.add(Text("Fine."))
    answer = client(app).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=[], tool_choice="auto"
    )
    assert answer.choices[0].message.content == "Fine."


def test_the_models_list_names_the_served_agent(server: LocalLLMServer) -> None:
    agent = Agent(instructions="x", name="weather-desk", llm=server.llm_config())
    with serving(agent.to_asgi(tokens={"tok-alice": "alice"})) as running:
        openai_client = client(running)
        [listed] = openai_client.models.list().data
        assert (listed.id, listed.object, listed.owned_by) == (
            "weather-desk",
            "model",
            "praisonlike",
        )
        assert openai_client.models.retrieve("weather-desk").id == "weather-desk"
        with pytest.raises(openai.NotFoundError, match="no model 'gpt-4o'"):
            openai_client.models.retrieve("gpt-4o")
        with pytest.raises(openai.AuthenticationError):
            client(running, key="tok-mallory").models.list()
        server.add(Text("Sunny."))
        answer = openai_client.chat.completions.create(
            model=listed.id, messages=[{"role": "user", "content": "Weather?"}]
        )
        assert (answer.model, answer.choices[0].message.content) == ("weather-desk", "Sunny.")


CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp": {"type": "integer"}},
    "required": ["city", "temp"],
}


def test_a_json_schema_response_format_is_the_turns_answer_schema(
    app: Running, server: LocalLLMServer
) -> None:
    server.extend([Text("It is sunny in Paris."), Text('{"city": "Paris", "temp": 26}')])
    answer = client(app).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": CITY}},
    )

    assert json.loads(answer.choices[0].message.content or "") == {"city": "Paris", "temp": 26}
    first, second = server.requests
    assert '"temp"' in first.messages[0]["content"]  # the schema, in the system prompt
    assert "did not match the required schema" in second.messages[-1]["content"]


def test_a_json_object_response_format_streams_an_object(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Text('{"ok": true}'))
    chunks = client(app).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "ok?"}],
        response_format={"type": "json_object"},
        stream=True,
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert json.loads(text) == {"ok": True}


@pytest.mark.parametrize(
    ("response_format", "says"),
    [
        ({"type": "yaml"}, "response_format must be"),
        ({"type": "json_schema", "json_schema": {"name": "x"}}, "response_format must be"),
        (
            {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "nonsense"}}},
            "output_json is not a valid JSON schema: at type",
        ),
    ],
    ids=["unknown-type", "no-schema", "invalid-schema"],
)
def test_a_response_format_that_cannot_be_honoured_is_a_bad_request(
    app: Running, server: LocalLLMServer, response_format: dict[str, Any], says: str
) -> None:
    with pytest.raises(openai.BadRequestError, match=says):
        client(app).chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            response_format=response_format,  # type: ignore[arg-type]
        )
    assert server.requests == []
