"""POST /v1/runs over real HTTP: the SSE wire format, pings, timeout, stop, steer, disconnect."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter
from serve_support import Reader, Running, serving, sse_messages, stream_run, turns, wait_until

from praisonlike import Agent, ExecutionConfig
from praisonlike.events import Event
from praisonlike.hooks import HookContext, HookPoint
from praisonlike.testing import Call, Delay, Fault, LocalLLMServer, Text, ToolCalls

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
TOKENS = {"tok-alice": "alice", "tok-bob": "bob"}


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: sunny, 26c"


def slow_lookup(topic: str) -> str:
    """A lookup that takes a while."""
    time.sleep(1.0)
    return f"notes on {topic}"


def make_agent(server: LocalLLMServer, **kwargs: Any) -> Agent:
    return Agent(
        instructions="You report the weather.",
        llm=server.llm_config(),
        tools=[get_weather, slow_lookup],
        execution=ExecutionConfig(max_retries=0),
        **kwargs,
    )


@pytest.fixture
def app(server: LocalLLMServer) -> Iterator[Running]:
    with serving(make_agent(server).to_asgi(ping_interval=0.2)) as running:
        yield running


@pytest.fixture
def authed(server: LocalLLMServer) -> Iterator[Running]:
    with serving(make_agent(server).to_asgi(tokens=TOKENS)) as running:
        yield running


def test_a_tool_turn_streams_every_event_with_ids_and_ends_with_end(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(
        ToolCalls([Call("get_weather", {"city": "Paris"})]),
        Text("It is sunny in Paris, 26c.", chunk_size=5),
    )
    with app.client() as client:
        messages = stream_run(client, {"input": "Weather in Paris?", "session_id": "paris"})

    assert [m.id for m in messages] == list(range(1, len(messages) + 1))
    assert messages[0].event == "session"
    assert messages[0].data["session_id"] == "paris"
    run_id = messages[0].data["run_id"]
    assert messages[-1].event == "end"
    assert messages[-1].data == {
        "run_id": run_id,
        "session_id": "paris",
        "termination_reason": "completed",
        "error": None,
    }
    sdk = [m for m in messages if m.event not in ("session", "ping", "end")]
    parsed = [EVENTS.validate_python(m.data) for m in sdk]
    assert all(
        event.type == m.event and event.run_id == run_id
        for event, m in zip(parsed, sdk, strict=True)
    )
    types = [event.type for event in parsed]
    assert types[0] == "run_started" and types[-1] == "run_finished"
    assert types.index("tool_call") < types.index("tool_result") < types.index("text_delta")
    tool_call = next(e for e in parsed if e.type == "tool_call")
    assert (tool_call.name, tool_call.arguments) == ("get_weather", {"city": "Paris"})
    tool_result = next(e for e in parsed if e.type == "tool_result")
    assert tool_result.result == "Paris: sunny, 26c"
    text = "".join(e.text for e in parsed if e.type == "text_delta")
    assert text == "It is sunny in Paris, 26c."
    finished = parsed[-1]
    assert finished.result.text == text and finished.result.usage.total_tokens > 0

    stored = turns(app, "paris")
    assert [(t["id"], t["query"], t["answer"], t["status"]) for t in stored] == [
        (run_id, "Weather in Paris?", text, "normal")
    ]
    assert "tool_call" in [step["event_type"] for step in stored[0]["steps"]]


def test_the_next_run_of_a_session_sees_its_history(app: Running, server: LocalLLMServer) -> None:
    server.add(Text("Hello Ada."), Text("Your name is Ada."))
    with app.client() as client:
        stream_run(client, {"input": "I am Ada.", "session_id": "ada"})
        stream_run(client, {"input": "What is my name?", "session_id": "ada"})
    second = server.requests[1].messages
    assert {"role": "user", "content": "I am Ada."} in second
    assert {"role": "assistant", "content": "Hello Ada."} in second


def test_pings_come_at_the_configured_interval_while_the_run_is_slow(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Delay(1.5, Text("Done.")))
    with app.client() as client:
        messages = stream_run(client, {"input": "Take your time."})
    pings = [m for m in messages if m.event == "ping"]
    assert len(pings) >= 3, [m.event for m in messages]
    assert all(isinstance(p.data["time"], float) for p in pings)
    assert messages[-1].event == "end"
    assert messages[-1].data["termination_reason"] == "completed"


def test_a_run_over_its_timeout_ends_the_stream_with_timeout(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Delay(30, Text("Too late.")))
    with app.client() as client:
        messages = stream_run(
            client, {"input": "Slow one.", "session_id": "slow", "options": {"timeout": 0.5}}
        )
    end = messages[-1]
    assert end.event == "end"
    assert end.data["termination_reason"] == "timeout"
    assert end.data["error"]["type"] == "RunTimeout"
    stored = turns(app, "slow")
    assert [(t["status"], t["answer"]) for t in stored] == [("timeout", "")]


def test_a_run_without_streaming_answers_its_result_as_json(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(ToolCalls([Call("get_weather", {"city": "Oslo"})]), Text("Sunny in Oslo."))
    with app.client() as client:
        response = client.post("/v1/runs", json={"input": "Oslo?", "stream": False})
    assert response.status_code == 200
    body = response.json()
    assert body["error"] is None
    assert body["result"]["output"] == "Sunny in Oslo."
    assert body["result"]["termination_reason"] == "completed"
    assert [c["name"] for c in body["result"]["tool_calls"]] == ["get_weather"]
    assert body["result"]["run_id"] == body["run_id"]


def test_the_owner_stops_a_run_and_it_is_stored_as_cancelled(
    authed: Running, server: LocalLLMServer
) -> None:
    server.add(Text("a long answer " * 200, chunk_size=5, chunk_delay=0.05))
    reader = Reader(authed, {"input": "Talk.", "session_id": "talk"}, token="tok-alice")
    run_id = reader.first("text_delta").data["run_id"]
    with authed.client("tok-alice") as alice:
        response = alice.post(f"/v1/runs/{run_id}/stop", json={"reason": "enough"})
    assert response.status_code == 202
    assert response.json() == {"run_id": run_id, "session_id": "talk", "status": "stopping"}
    messages = reader.finish()
    assert messages[-1].event == "end"
    assert messages[-1].data["termination_reason"] == "cancelled"
    assert messages[-1].data["error"]["type"] == "RunCancelled"
    stored = turns(authed, "talk", "tok-alice")
    assert [(t["status"], t["answer"]) for t in stored] == [("cancelled", "")]


def test_a_stop_from_someone_else_is_refused_and_the_run_goes_on(
    authed: Running, server: LocalLLMServer
) -> None:
    server.add(Text("all of it, to the end", chunk_size=2, chunk_delay=0.05))
    reader = Reader(authed, {"input": "Talk.", "session_id": "mine"}, token="tok-alice")
    run_id = reader.first("text_delta").data["run_id"]
    with authed.client("tok-bob") as bob:
        stop = bob.post(f"/v1/runs/{run_id}/stop", json={})
        steer = bob.post(f"/v1/runs/{run_id}/steer", json={"text": "say something else"})
        peek = bob.get("/v1/sessions/mine/messages")
    assert (stop.status_code, stop.json()["error"]["type"]) == (403, "forbidden")
    assert steer.status_code == 403
    assert peek.status_code == 403
    messages = reader.finish()
    assert messages[-1].data["termination_reason"] == "completed"
    text = "".join(m.data["text"] for m in messages if m.event == "text_delta")
    assert text == "all of it, to the end"


def test_steering_reaches_the_running_turn(app: Running, server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("slow_lookup", {"topic": "tides"})]), Text("Tides, in French."))
    reader = Reader(app, {"input": "Tell me about tides.", "session_id": "tides"})
    run_id = reader.first("tool_call").data["run_id"]
    with app.client() as client:
        response = client.post(f"/v1/runs/{run_id}/steer", json={"text": "Answer in French."})
    assert response.status_code == 202
    messages = reader.finish()
    assert "steering" in [m.event for m in messages]
    assert {"role": "user", "content": "Answer in French."} in server.requests[1].messages


def test_a_client_that_disconnects_cancels_its_run(app: Running, server: LocalLLMServer) -> None:
    server.add(Text("words " * 400, chunk_size=3, chunk_delay=0.05))
    with (
        app.client() as client,
        client.stream(
            "POST", "/v1/runs", json={"input": "Talk.", "session_id": "gone"}
        ) as response,
    ):
        for message in sse_messages(response.iter_lines()):
            if message.event == "text_delta":
                break
    stored = wait_until(lambda: turns(app, "gone"), "the cancelled turn to be stored")
    assert [(t["status"], t["answer"]) for t in stored] == [("cancelled", "")]


def test_a_detached_run_finishes_after_its_client_is_gone(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Text("finished anyway", chunk_size=2, chunk_delay=0.05))
    body = {"input": "Go on without me.", "session_id": "detached", "detach": True}
    with app.client() as client, client.stream("POST", "/v1/runs", json=body) as response:
        for message in sse_messages(response.iter_lines()):
            if message.event == "text_delta":
                break
    stored = wait_until(lambda: turns(app, "detached"), "the detached turn to be stored")
    assert [(t["status"], t["answer"]) for t in stored] == [("normal", "finished anyway")]


def test_a_detached_run_can_be_followed_until_it_ends(
    authed: Running, server: LocalLLMServer
) -> None:
    server.add(Text("finished anyway", chunk_size=2, chunk_delay=0.05))
    body = {"input": "Go on without me.", "session_id": "followed", "detach": True}
    with authed.client("tok-alice") as alice:
        with alice.stream("POST", "/v1/runs", json=body) as response:
            run_id = response.headers["x-run-id"]
            for message in sse_messages(response.iter_lines()):
                if message.event == "text_delta":
                    break
        running = alice.get(f"/v1/runs/{run_id}").json()
        assert running == {"run_id": run_id, "session_id": "followed", "status": "running"}
        with authed.client("tok-bob") as bob:
            assert bob.get(f"/v1/runs/{run_id}").status_code == 403
        ended = wait_until(
            lambda: (r := alice.get(f"/v1/runs/{run_id}").json())["status"] == "ended" and r,
            "the detached run to end",
        )
        missing = alice.get("/v1/runs/no-such-run")
    assert ended["termination_reason"] == "completed" and ended["error"] is None
    assert ended["result"]["output"] == "finished anyway"
    assert (missing.status_code, missing.json()["error"]["type"]) == (404, "not_found")


def test_a_second_run_of_a_busy_session_is_refused(app: Running, server: LocalLLMServer) -> None:
    server.add(Text("slow", chunk_size=1, chunk_delay=0.2))
    reader = Reader(app, {"input": "One.", "session_id": "busy"})
    reader.first("run_started")
    with app.client() as client:
        response = client.post("/v1/runs", json={"input": "Two.", "session_id": "busy"})
    assert (response.status_code, response.json()["error"]["type"]) == (409, "conflict")
    reader.finish()
    assert len(server.requests) == 1


def test_a_stop_after_the_run_finished_is_an_unknown_run(
    app: Running, server: LocalLLMServer
) -> None:
    server.add(Text("quick"))
    with app.client() as client:
        messages = stream_run(client, {"input": "Hi."})
        response = client.post(f"/v1/runs/{messages[0].data['run_id']}/stop")
    assert (response.status_code, response.json()["error"]["type"]) == (404, "not_found")


def test_sse_headers_name_the_run_and_session(app: Running, server: LocalLLMServer) -> None:
    server.add(Text("ok"))
    with (
        httpx.Client(base_url=app.url, timeout=30) as client,
        client.stream("POST", "/v1/runs", json={"input": "Hi.", "session_id": "hdr"}) as response,
    ):
        messages = list(sse_messages(response.iter_lines()))
        assert response.headers["x-session-id"] == "hdr"
        assert response.headers["x-run-id"] == messages[0].data["run_id"]


def test_a_client_that_leaves_a_json_run_cancels_it(app: Running, server: LocalLLMServer) -> None:
    server.add(Delay(30, Text("nobody is listening")))
    with app.client(timeout=1.0) as client, pytest.raises(httpx.ReadTimeout):
        client.post("/v1/runs", json={"input": "Wait.", "session_id": "left", "stream": False})
    stored = wait_until(lambda: turns(app, "left"), "the cancelled turn to be stored")
    assert [(t["status"], t["answer"]) for t in stored] == [("cancelled", "")]


def test_retries_and_fallbacks_are_streamed_as_they_happen(server: LocalLLMServer) -> None:
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        fallback_models=["openai/other-model"],
        execution=ExecutionConfig(max_retries=1, retry_base=0.01, retry_max=0.01),
    )
    server.add(Fault.server_error(), Fault.server_error(), Text("From the fallback."))
    with serving(agent.to_asgi()) as running, running.client() as client:
        messages = stream_run(client, {"input": "Hello?"})
    names = [m.event for m in messages]
    assert names.index("retry") < names.index("fallback") < names.index("text_delta")
    fallback = next(m.data for m in messages if m.event == "fallback")
    assert fallback["to_model"] == "openai/other-model"
    finished = next(m.data for m in messages if m.event == "run_finished")
    assert finished["result"]["fallbacks"] == ["openai/other-model"]
    assert messages[-1].data["termination_reason"] == "completed"


def test_a_hook_registered_with_on_after_construction_runs_in_served_runs(
    server: LocalLLMServer,
) -> None:
    agent = make_agent(server)
    seen: list[tuple[str, str | None]] = []

    @agent.on(HookPoint.BEFORE_TOOL)
    def audit(context: HookContext) -> None:
        seen.append((context.event.value, context.tool_name))

    server.add(ToolCalls([Call("get_weather", {"city": "Oslo"})]), Text("Sunny in Oslo."))
    with serving(agent.to_asgi()) as running, running.client() as client:
        response = client.post(
            "/v1/runs", json={"input": "Oslo?", "session_id": "s-hook", "stream": False}
        )
    assert response.status_code == 200
    assert response.json()["result"]["output"] == "Sunny in Oslo."
    assert seen == [("before_tool", "get_weather")]


class FixedAgent(Agent):
    """An Agent subclass whose constructor takes none of the Agent's keyword arguments."""

    def __init__(self, llm: dict[str, Any]) -> None:
        super().__init__(instructions="You answer.", llm=llm)


def test_a_run_the_agent_cannot_start_is_a_500_not_worth_retrying_that_stores_nothing(
    server: LocalLLMServer,
) -> None:
    with serving(FixedAgent(server.llm_config()).to_asgi()) as running, running.client() as client:
        response = client.post("/v1/runs", json={"input": "Hi.", "session_id": "s-unbuilt"})
        session = client.get("/v1/sessions/s-unbuilt")
    assert (response.status_code, response.json()["error"]["type"]) == (500, "server_error")
    assert "cannot build a FixedAgent for a served run" in response.json()["error"]["message"]
    assert response.headers["x-should-retry"] == "false"
    assert session.status_code == 404
    assert server.requests == []
