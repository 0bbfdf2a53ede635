"""The tool loop through every entry point, against LocalLLMServer via real LiteLLM."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest

from praisonlike import Agent, RunResult, TerminationReason
from praisonlike.errors import AuthenticationError, PraisonlikeError
from praisonlike.events import (
    LLMRequest,
    LLMResponse,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.testing import Call, Fault, LocalLLMServer, Text, ToolCalls


def get_weather(city: str, unit: str = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"{city}: sunny, 26{unit}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def two_rounds() -> list[Any]:
    return [
        ToolCalls([Call("get_weather", {"city": "Paris"}, id="w1")]),
        ToolCalls([Call("add", {"a": 2, "b": 3}, id="a1")]),
        Text("Paris is sunny and 2+3=5."),
    ]


def make_agent(llm: dict[str, Any], **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [get_weather, add])
    return Agent(instructions="You are a helpful assistant", llm=llm, **kwargs)


def tool_messages(request: Any) -> list[dict[str, Any]]:
    return [m for m in request.messages if m["role"] == "tool"]


def test_two_tool_rounds_then_answer(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend(two_rounds())
    agent = make_agent(llm)
    answer = agent.chat("Weather in Paris, and 2+3?")
    assert answer == "Paris is sunny and 2+3=5."
    assert server.request_count == 3
    second, third = server.requests[1], server.requests[2]
    assert tool_messages(second)[0]["content"] == "Paris: sunny, 26c"
    assert [m["content"] for m in tool_messages(third)] == ["Paris: sunny, 26c", "5"]
    assistant_calls = [m for m in third.messages if m.get("tool_calls")]
    assert assistant_calls[0]["content"] == ""  # never null on tool-call messages
    result = agent.last_result
    assert isinstance(result, RunResult)
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.iterations == 3
    assert [c.name for c in result.tool_calls] == ["get_weather", "add"]
    assert result.tool_calls[1].arguments == {"a": 2, "b": 3}
    assert result.usage.requests == 3
    assert result.usage.total_tokens > 0


def test_tools_offered_sorted_with_schema(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.add(Text("hi"))
    make_agent(llm).chat("hello")
    tools = server.requests[0].tools
    assert [t["function"]["name"] for t in tools] == ["add", "get_weather"]
    weather = tools[1]["function"]
    assert weather["parameters"]["required"] == ["city"]
    assert weather["parameters"]["properties"]["city"]["description"] == "City name."


def test_several_calls_in_one_message_run_in_order(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    order: list[str] = []

    def first(x: int) -> str:
        """First."""
        order.append("first")
        return f"first {x}"

    def second(x: int) -> str:
        """Second."""
        order.append("second")
        return f"second {x}"

    server.extend(
        [
            ToolCalls([Call("second", {"x": 1}, id="c1"), Call("first", {"x": 2}, id="c2")]),
            Text("done"),
        ]
    )
    agent = make_agent(llm, tools=[first, second])
    assert agent.chat("go") == "done"
    assert order == ["second", "first"]
    tools = tool_messages(server.requests[1])
    assert [(m["tool_call_id"], m["content"]) for m in tools] == [
        ("c1", "second 1"),
        ("c2", "first 2"),
    ]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (Call("add", '{"a": 1, "b": '), "not valid JSON"),
        (Call("add", {"a": "one", "b": 2}), "a"),
        (Call("nope", {}), "get_weather"),
        (Call("explode", {}), "kaboom"),
    ],
    ids=["malformed-json", "validation-error", "unknown-tool", "tool-exception"],
)
def test_tool_errors_go_back_to_the_model(
    server: LocalLLMServer, llm: dict[str, Any], call: Call, expected: str
) -> None:
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("kaboom")

    server.extend([ToolCalls([call]), Text("recovered")])
    agent = make_agent(llm, tools=[get_weather, add, explode])
    assert agent.chat("try") == "recovered"
    error_message = tool_messages(server.requests[1])[0]["content"]
    assert error_message.startswith("Error")
    assert expected in error_message
    record = agent.last_result.tool_calls[0]  # type: ignore[union-attr]
    assert record.is_error


def test_max_iterations_ends_with_a_final_answer(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 1})]) for _ in range(2)])
    server.add(Text("final answer without tools"))
    agent = make_agent(llm, max_iterations=2)
    assert agent.chat("loop forever") == "final answer without tools"
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS
    last = server.requests[-1]
    assert last.body.get("tool_choice") == "none"
    assert "maximum number of tool calls" in last.messages[-1]["content"]
    assert server.request_count == 3


def test_max_iterations_never_returns_empty(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 1})]), Text("")])
    agent = make_agent(llm, max_iterations=1)
    answer = agent.chat("x")
    assert answer.strip()


def test_failed_turn_leaves_history_unchanged(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.add(Text("first answer"))
    agent = make_agent(llm)
    agent.chat("first")
    before = agent.chat_history
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Fault.authentication()])
    with pytest.raises(AuthenticationError):
        agent.chat("second")
    assert agent.chat_history == before
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.ERROR


def _run_all_ways(llm: dict[str, Any], server: LocalLLMServer) -> dict[str, Any]:
    outcomes: dict[str, Any] = {}
    for way in ("chat", "achat", "iter_stream", "stream_events"):
        server.reset()
        server.extend(two_rounds())
        agent = make_agent(llm)
        if way == "chat":
            answer = agent.chat("q")
        elif way == "achat":
            answer = asyncio.run(agent.achat("q"))
        elif way == "iter_stream":
            answer = "".join(agent.iter_stream("q"))
        else:
            events = list(agent.stream_events("q"))
            answer = events[-1].result.output
        outcomes[way] = (answer, agent.chat_history)
    return outcomes


def test_all_entry_points_give_the_same_answer_and_history(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    outcomes = _run_all_ways(llm, server)
    answers = {way: answer for way, (answer, _) in outcomes.items()}
    assert set(answers.values()) == {"Paris is sunny and 2+3=5."}
    histories = [history for _, history in outcomes.values()]
    assert all(h == histories[0] for h in histories)
    roles = [m["role"] for m in histories[0]]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


def test_streaming_yields_text_of_every_round(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend(
        [
            ToolCalls([Call("add", {"a": 1, "b": 2})], content="Let me add. "),
            Text("The sum is 3."),
        ]
    )
    agent = make_agent(llm)
    chunks = list(agent.iter_stream("add"))
    assert len(chunks) > 2
    assert "".join(chunks) == "Let me add. The sum is 3."
    assert all(r.stream for r in server.requests)


def test_stream_events_sequence(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")])
    events = list(make_agent(llm).stream_events("add"))
    kinds = [type(e) for e in events]
    assert kinds[0] is RunStarted
    assert kinds[-1] is RunFinished
    assert kinds.count(LLMRequest) == 2
    assert kinds.count(LLMResponse) == 2
    assert kinds.index(ToolCallEvent) < kinds.index(ToolResultEvent)
    assert any(isinstance(e, TextDelta) for e in events)
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.result is not None and finished.result.output == "3"
    assert len({e.run_id for e in events}) == 1


async def test_astream_events(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("add", {"a": 4, "b": 5})]), Text("9")])
    events = [e async for e in make_agent(llm).astream_events("add")]
    assert isinstance(events[-1], RunFinished)
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert results[0].result == "9"


def test_tools_none_inherits_and_empty_offers_none(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([Text("a"), Text("b")])
    agent = make_agent(llm)
    agent.chat("with tools", tools=None)
    agent.chat("without tools", tools=[])
    assert len(server.requests[0].tools) == 2
    assert "tools" not in server.requests[1].body


def test_async_tools_under_chat_and_sync_tools_under_achat(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    threads: list[str] = []

    async def slow_double(x: int) -> int:
        """Double x, asynchronously."""
        await asyncio.sleep(0.01)
        return 2 * x

    def where(x: int) -> str:
        """Report the thread."""
        threads.append(threading.current_thread().name)
        return str(x)

    server.extend([ToolCalls([Call("slow_double", {"x": 21})]), Text("42")])
    agent = make_agent(llm, tools=[slow_double, where])
    assert agent.chat("double") == "42"
    assert tool_messages(server.requests[1])[0]["content"] == "42"

    server.extend([ToolCalls([Call("where", {"x": 1})]), Text("ok")])

    async def main() -> str:
        return str(await agent.achat("where"))

    assert asyncio.run(main()) == "ok"
    assert threads and threads[0] != threading.main_thread().name


def test_chat_inside_a_running_event_loop(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    async def slow(x: int) -> int:
        """Async tool."""
        await asyncio.sleep(0)
        return x

    server.extend([ToolCalls([Call("slow", {"x": 7})]), Text("seven"), Text("streamed")])
    agent = make_agent(llm, tools=[slow])

    async def inside_loop() -> tuple[str, str]:
        return agent.chat("sync call inside a loop"), "".join(agent.iter_stream("stream"))

    assert asyncio.run(inside_loop()) == ("seven", "streamed")


def test_chat_history_and_clear(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([Text("one"), Text("two")])
    agent = make_agent(llm)
    agent.chat("first")
    agent.chat("second")
    second_request = server.requests[1]
    assert [m["content"] for m in second_request.messages[1:]] == ["first", "one", "second"]
    agent.clear_history()
    assert agent.chat_history == []


def test_history_records_tool_calls_with_ids(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 1}, id="abc")]), Text("2")])
    agent = make_agent(llm)
    agent.chat("1+1")
    history = agent.chat_history
    assert history[1]["tool_calls"][0]["id"] == "abc"
    assert json.loads(history[1]["tool_calls"][0]["function"]["arguments"]) == {"a": 1, "b": 1}
    assert history[2] == {"role": "tool", "tool_call_id": "abc", "content": "2"}


def test_errors_are_typed_never_none(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.add(Fault.bad_request("nonsense"))
    agent = make_agent(llm)
    with pytest.raises(PraisonlikeError):
        agent.chat("x")


def test_concurrent_turns_on_separate_agents(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.default = lambda request: Text(f"echo {request.messages[-1]['content']}")
    agents = [make_agent(llm) for _ in range(20)]

    async def main() -> list[str]:
        return list(await asyncio.gather(*(a.achat(f"n{i}") for i, a in enumerate(agents))))

    started = time.monotonic()
    assert asyncio.run(main()) == [f"echo n{i}" for i in range(20)]
    assert time.monotonic() - started < 60


def test_abandoned_stream_leaves_history_and_cancels(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([Text("first answer"), Text("word " * 50, chunk_size=3)])
    agent = make_agent(llm)
    agent.chat("first")
    before = agent.chat_history
    stream = agent.iter_stream("second")
    assert next(stream)
    stream.close()
    assert agent.chat_history == before
    server.add(Text("third answer"))
    assert agent.chat("third") == "third answer"
