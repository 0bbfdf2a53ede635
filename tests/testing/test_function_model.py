"""FunctionModel, TestModel and agent.override: the step machine driven without a socket."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.errors import (
    APIConnectionError,
    AuthenticationError,
    ConfigurationError,
    LLMError,
    RateLimitError,
)
from praisonlike.events import TextDelta, ToolCallEvent, ToolResultEvent
from praisonlike.models.config import ExecutionConfig
from praisonlike.models.transport import needs_litellm, transport_for
from praisonlike.testing import (
    Call,
    DropConnection,
    Fault,
    FunctionModel,
    LocalLLMServer,
    ModelInfo,
    TestModel,
    Text,
    ToolCalls,
    example_arguments,
)

SCRIPT = [
    ToolCalls([Call("add", {"a": 2, "b": 3}, id="call_a")]),
    ToolCalls([Call("add", {"a": 5, "b": 10}, id="call_b")]),
    Text("The total is 15.", chunk_size=3),
]


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_agent(llm: Any, **kwargs: Any) -> Agent:
    return Agent(instructions="Be brief.", llm=llm, tools=[add], **kwargs)


class Scripted:
    """A model function answering SCRIPT in order, recording what it saw."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[dict[str, Any]], ModelInfo]] = []

    def __call__(self, messages: list[dict[str, Any]], info: ModelInfo) -> Any:
        self.calls.append((messages, info))
        return SCRIPT[(len(self.calls) - 1) % len(SCRIPT)]


def refuse_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any socket connection fail the test (patches the OS layer only)."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a socket connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


@pytest.fixture
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    refuse_sockets(monkeypatch)
    yield


def _outputs(llm: Any) -> dict[str, Any]:
    """chat, achat, iter_stream and stream_events of a fresh agent on ``llm`` each."""
    chat_agent = make_agent(llm)
    chat = chat_agent.chat("add things")
    achat = asyncio.run(make_agent(llm).achat("add things"))
    stream = "".join(make_agent(llm).iter_stream("add things"))
    events = list(make_agent(llm).stream_events("add things"))
    kinds = [
        (type(e).__name__, getattr(e, "tool_name", None))
        for e in events
        if isinstance(e, ToolCallEvent | ToolResultEvent | TextDelta)
    ]
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    return {
        "answers": [chat, achat, stream],
        "kinds": kinds,
        "deltas": deltas,
        "history": chat_agent.chat_history,
        "usage": chat_agent.usage.total_tokens,
    }


def test_multi_round_tool_turn_matches_local_server_under_every_entry_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    function = Scripted()
    refuse_sockets(monkeypatch)
    in_process = _outputs(FunctionModel(function))
    monkeypatch.undo()
    assert in_process["answers"] == ["The total is 15."] * 3
    assert in_process["deltas"] == ["The", " to", "tal", " is", " 15", "."]
    assert [k for k, _ in in_process["kinds"] if k != "TextDelta"] == [
        "ToolCallEvent",
        "ToolResultEvent",
    ] * 2
    assert len(function.calls) == 12  # 4 turns x 3 rounds
    messages, info = function.calls[1]
    assert messages[-1] == {"role": "tool", "tool_call_id": "call_a", "content": "5"}
    assert info.tool_names == ["add"]
    assert info.tools[0]["function"]["parameters"]["required"] == ["a", "b"]

    with LocalLLMServer() as server:
        server.default = lambda request: SCRIPT[(len(server.requests) - 1) % len(SCRIPT)]
        over_http = _outputs(server.llm_config())
    for key in ("answers", "kinds", "deltas", "history", "usage"):
        assert in_process[key] == over_http[key], key


def test_async_function_and_streamed_tool_calls(no_sockets: None) -> None:
    async def answer(messages: list[dict[str, Any]], info: ModelInfo) -> Any:
        await asyncio.sleep(0)
        if messages[-1]["role"] == "user":
            return ToolCalls([Call("add", {"a": 1, "b": 1})], chunk_size=2)
        return f"got {messages[-1]['content']}"

    model = FunctionModel(answer, name="adder", temperature=0.2)
    assert model.model == "function:adder"
    agent = make_agent(model)
    assert agent.chat("one plus one") == "got 2"
    assert "".join(agent.iter_stream("again")) == "got 2"
    assert asyncio.run(agent.achat("and again")) == "got 2"

    async def inside_a_running_loop() -> str:
        return make_agent(model).chat("sync chat under a running event loop")

    assert asyncio.run(inside_a_running_loop()) == "got 2"
    seen: list[ModelInfo] = []
    recorder = FunctionModel(lambda m, info: seen.append(info) or "ok", temperature=0.2)
    assert make_agent(recorder).chat("hi") == "ok"
    assert seen[0].settings["temperature"] == 0.2
    assert seen[0].iteration == 1
    assert "api_key" not in seen[0].settings


def test_in_process_model_uses_its_own_transport_and_is_free(no_sockets: None) -> None:
    model = FunctionModel(lambda messages, info: "free")
    assert model != FunctionModel(lambda messages, info: "free")  # a different function
    changed = dataclasses.replace(TestModel(text="t"), model="function:other", temperature=0.1)
    assert type(changed) is TestModel and changed.model == "function:other"
    assert make_agent(changed).chat("hi") == "t"
    assert transport_for(model) == "in_process"
    assert not needs_litellm(model)
    agent = make_agent(model)
    assert agent.chat("hi") == "free"
    assert agent.usage.cost == 0.0


def test_a_raised_exception_is_a_typed_error_and_history_is_unchanged(no_sockets: None) -> None:
    calls = []

    def broken(messages: list[dict[str, Any]], info: ModelInfo) -> str:
        calls.append(1)
        if len(calls) == 1:
            return "first answer"
        raise ConnectionError("the function model is down")

    agent = make_agent(
        FunctionModel(broken), execution=ExecutionConfig(max_retries=1, retry_base=0.01)
    )
    agent.chat("first")
    before = agent.chat_history
    with pytest.raises(LLMError) as raised:
        agent.chat("second")
    assert "the function model is down" in str(raised.value)
    assert agent.chat_history == before
    assert len(calls) == 3  # the retryable connection error was retried once


def test_fault_items_are_classified_like_provider_errors(no_sockets: None) -> None:
    answers = iter([Fault.rate_limit(retry_after=0), Text("after the retry")])
    agent = make_agent(
        FunctionModel(lambda m, i: next(answers)),
        execution=ExecutionConfig(max_retries=2, retry_base=0.01),
    )
    assert agent.chat("hi") == "after the retry"

    limited = make_agent(
        FunctionModel(lambda m, i: Fault.rate_limit(retry_after=0)),
        execution=ExecutionConfig(max_retries=0),
    )
    with pytest.raises(RateLimitError):
        limited.chat("hi")
    dropped = make_agent(
        FunctionModel(lambda m, i: DropConnection()), execution=ExecutionConfig(max_retries=0)
    )
    with pytest.raises(APIConnectionError):
        "".join(dropped.iter_stream("hi"))
    assert dropped.chat_history == []
    with pytest.raises(AuthenticationError):
        asyncio.run(make_agent(FunctionModel(lambda m, i: Fault.authentication())).achat("hi"))


def test_test_model_calls_each_tool_with_schema_valid_arguments(no_sockets: None) -> None:
    received: list[dict[str, Any]] = []

    def book(city: str, nights: int, tags: list[str], refundable: bool = True) -> str:
        """Book a hotel."""
        received.append({"city": city, "nights": nights, "tags": tags, "refundable": refundable})
        return f"booked {city}"

    agent = Agent(instructions="Be brief.", llm=TestModel(), tools=[add, book])
    answer = json.loads(agent.chat("do everything"))
    assert answer == {"add": "0", "book": "booked a"}
    assert received == [{"city": "a", "nights": 0, "tags": [], "refundable": True}]
    fixed = Agent(
        instructions="x", llm=TestModel(text="done", call_tools=["add"]), tools=[add, book]
    )
    assert fixed.chat("hi") == "done"
    assert received == [received[0]]  # book was not among the tools to call
    typo = Agent(instructions="x", llm=TestModel(call_tools=["bok"]), tools=[add, book])
    with pytest.raises(ConfigurationError, match="'bok' is not among the tools"):
        typo.chat("hi")  # it called nothing, and the test using it passed
    assert typo.chat_history == []


def test_example_arguments_follow_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mode": {"enum": ["fast", "slow"]},
            "count": {"type": "integer", "minimum": 3},
            "name": {"type": "string", "minLength": 2},
            "point": {"$ref": "#/$defs/Point"},
            "maybe": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        },
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
    }
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(example_arguments(schema), schema)
    assert example_arguments(schema) == {
        "mode": "fast",
        "count": 3,
        "name": "aa",
        "point": {"x": 0.0},
        "maybe": 0.0,
    }


def test_override_swaps_the_model_and_deps_and_restores_them(no_sockets: None) -> None:
    agent = Agent(instructions="x", llm="openai/never-called", deps={"who": "real"})
    configured = agent.llm_config
    with agent.override(model=FunctionModel(lambda m, i: "overridden"), deps={"who": "test"}):
        assert agent.chat("hi") == "overridden"
        assert agent.deps == {"who": "test"}
        with agent.override(model=TestModel(text="inner")):
            assert agent.chat("hi") == "inner"
        assert asyncio.run(agent.achat("hi")) == "overridden"
    assert agent.deps == {"who": "real"}
    assert agent.llm_config is configured

    with pytest.raises(RuntimeError, match="boom"), agent.override(model=TestModel(), deps=None):
        raise RuntimeError("boom")
    assert agent.deps == {"who": "real"}
    assert agent.llm_config is configured
    with agent.override(model=TestModel(text="again")):
        assert agent.chat("hi") == "again"


def test_override_does_not_try_the_agents_fallbacks(no_sockets: None) -> None:
    agent = Agent(instructions="x", llm="openai/a", fallback_models=["openai/b"])
    failing = FunctionModel(lambda m, i: Fault.authentication())
    with agent.override(model=failing), pytest.raises(AuthenticationError):
        agent.chat("hi")


def test_a_function_model_turn_never_imports_litellm() -> None:
    code = textwrap.dedent(
        """
        import sys
        from praisonlike import Agent
        from praisonlike.testing import Call, FunctionModel, ToolCalls

        def add(a: int, b: int) -> int:
            return a + b

        def answer(messages, info):
            if messages[-1]["role"] == "user":
                return ToolCalls([Call("add", {"a": 1, "b": 2})])
            return "3"

        agent = Agent(instructions="x", llm=FunctionModel(answer), tools=[add])
        assert agent.chat("hi") == "3"
        assert "".join(agent.iter_stream("hi")) == "3"
        print("litellm" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False", done.stderr
