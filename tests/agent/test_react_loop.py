"""Text (ReAct) tool calls through the Agent, against LocalLLMServer via real LiteLLM.

The server plays a model without native tool calls (``features.native_tool_calls``
False): calls are written as JSON in the answer's text, and their results go back
as user messages. The last section covers native mode's reading of an answer
whose whole content is a call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from praisonlike import Agent, TerminationReason
from praisonlike.events import (
    LLMRequest,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.models.config import LLMConfig
from praisonlike.react.parse import StreamCallDetector, unoffered_calls
from praisonlike.result import ToolMode
from praisonlike.testing import Call, LocalLLMServer, RecordedRequest, Text, ToolCalls

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

WEATHER_RESULT = "Paris: sunny, 26c"
OFFERED = {"get_weather", "add"}


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


def call_json(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


WEATHER_CALL = call_json("get_weather", city="Paris")
ADD_CALL = call_json("add", a=2, b=3)


@pytest.fixture
def react_llm(llm: dict[str, Any]) -> LLMConfig:
    return LLMConfig.coerce({**llm, "features": {"native_tool_calls": False}})


def react_agent(llm: LLMConfig | dict[str, Any], **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [get_weather, add])
    return Agent(instructions="You are a helpful assistant", llm=llm, **kwargs)


def system_text(request: RecordedRequest) -> str:
    first = request.messages[0]
    assert first["role"] == "system"
    return str(first["content"])


def observations(request: RecordedRequest) -> list[str]:
    return [
        str(m["content"])
        for m in request.messages
        if m["role"] == "user" and str(m["content"]).startswith("Observation from ")
    ]


# -- the protocol on the wire -----------------------------------------------------------


def test_tools_are_described_in_the_system_prompt_and_not_sent(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.add(Text("Hello."))
    agent = react_agent(react_llm)
    assert agent.chat("hi") == "Hello."
    request = server.requests[0]
    assert "tools" not in request.body
    assert "tool_choice" not in request.body
    system = system_text(request)
    assert "Current weather for a city." in system
    assert "Add two integers." in system
    assert '"name": "get_weather"' in system and '"name": "add"' in system
    assert '{"name": <function-name>, "arguments": <args-json-object>}' in system
    assert agent.last_result is not None
    assert agent.last_result.tool_mode is ToolMode.REACT
    assert agent.last_result.model_dump(mode="json")["tool_mode"] == "react"
    assert agent.last_result.tool_calls == []


@pytest.mark.parametrize(
    "answer",
    [
        WEATHER_CALL,
        f"  \n{WEATHER_CALL}\n",
        f"```json\n{WEATHER_CALL}\n```",
        f"<tool_call>\n{WEATHER_CALL}\n</tool_call>",
        f"I will look it up.\n```json\n{WEATHER_CALL}\n```",
    ],
    ids=["bare", "bare-padded", "fenced", "tool_call-tag", "prose-then-fence"],
)
def test_a_text_call_runs_the_tool_and_the_observation_goes_back_as_user(
    server: LocalLLMServer, react_llm: LLMConfig, answer: str
) -> None:
    server.extend([Text(answer), Text("It is sunny in Paris.")])
    agent = react_agent(react_llm)
    assert agent.chat("Weather in Paris?") == "It is sunny in Paris."
    assert server.request_count == 2 and server.errors == []
    second = server.requests[1]
    assert "tools" not in second.body
    assert second.messages[-2] == {"role": "assistant", "content": answer}
    last = second.messages[-1]
    assert last["role"] == "user"
    assert last["content"].startswith(f"Observation from get_weather:\n{WEATHER_RESULT}\n")
    assert not any(m["role"] == "tool" or m.get("tool_calls") for m in second.messages)
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert [(c.name, c.arguments, c.result) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"}, WEATHER_RESULT)
    ]
    history = agent.chat_history
    assert history[1] == {"role": "assistant", "content": answer}
    assert history[2]["content"].startswith("Observation from get_weather:")
    assert history[-1] == {"role": "assistant", "content": "It is sunny in Paris."}


def test_several_rounds_then_a_plain_answer(server: LocalLLMServer, react_llm: LLMConfig) -> None:
    server.extend(
        [
            Text(WEATHER_CALL),
            Text(f"<tool_call>{ADD_CALL}</tool_call>"),
            Text("Paris is sunny and 2+3=5."),
        ]
    )
    agent = react_agent(react_llm)
    assert agent.chat("Weather in Paris, and 2+3?") == "Paris is sunny and 2+3=5."
    assert server.request_count == 3
    assert [o.splitlines()[:2] for o in observations(server.requests[2])] == [
        ["Observation from get_weather:", WEATHER_RESULT],
        ["Observation from add:", "5"],
    ]
    result = agent.last_result
    assert result is not None
    assert result.iterations == 3
    assert [c.name for c in result.tool_calls] == ["get_weather", "add"]
    assert result.tool_calls[1].arguments == {"a": 2, "b": 3}


def test_a_list_of_calls_runs_each_in_order(server: LocalLLMServer, react_llm: LLMConfig) -> None:
    server.extend([Text(f"[{WEATHER_CALL}, {ADD_CALL}]"), Text("done")])
    agent = react_agent(react_llm)
    assert agent.chat("Weather in Paris, and 2+3?") == "done"
    assert [o.splitlines()[1] for o in observations(server.requests[1])] == [WEATHER_RESULT, "5"]


def test_a_failing_tool_call_feeds_back_an_error_observation(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([Text(call_json("add", a="two", b=3)), Text("I could not add them.")])
    agent = react_agent(react_llm)
    assert agent.chat("2+3?") == "I could not add them."
    (observation,) = observations(server.requests[1])
    assert observation.startswith("Observation from add (error):\nError")
    assert agent.last_result is not None
    assert agent.last_result.tool_calls[0].is_error


@pytest.mark.parametrize(
    "answer",
    [
        "The weather in Paris is sunny.",
        f"I could call {WEATHER_CALL} but I already know: sunny.",
        "I would use ```json\n" + call_json("book_flight", to="Rome") + "\n``` if I could.",
        '{"name": "Paris", "country": "France"}',
        '{"name": "Paris"}',
    ],
    ids=[
        "prose",
        "bare-json-in-prose",
        "unknown-tool-in-prose",
        "other-json",
        "name-only-json",
    ],
)
def test_text_that_is_not_a_valid_call_is_the_final_answer(
    server: LocalLLMServer, react_llm: LLMConfig, answer: str
) -> None:
    server.add(Text(answer))
    agent = react_agent(react_llm)
    assert agent.chat("Weather in Paris?") == answer
    assert server.request_count == 1
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.tool_calls == []
    assert agent.chat_history[-1] == {"role": "assistant", "content": answer}


def test_max_iterations_ends_a_model_that_keeps_calling(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([Text(WEATHER_CALL), Text(WEATHER_CALL), Text("Sunny.")])
    agent = react_agent(react_llm, max_iterations=2)
    assert agent.chat("Weather in Paris?") == "Sunny."
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS
    assert len(result.tool_calls) == 2
    assert "tools" not in server.requests[2].body


def test_tools_none_for_the_call_sends_no_protocol(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.add(Text(WEATHER_CALL))
    agent = react_agent(react_llm)
    assert agent.chat("hi", tools=[]) == WEATHER_CALL
    assert "<tools>" not in json.dumps(server.requests[0].messages)


# -- an answer calling a tool that was not offered ----------------------------------------


def test_unoffered_calls_of_a_whole_answer() -> None:
    fly = call_json("fly", to="Rome")
    assert [(c.name, c.arguments) for c in unoffered_calls(fly, OFFERED)] == [
        ("fly", {"to": "Rome"})
    ]
    assert [c.name for c in unoffered_calls(f"```json\n{fly}\n```", OFFERED)] == ["fly"]
    assert [c.name for c in unoffered_calls(f"<tool_call>{fly}</tool_call>", OFFERED)] == ["fly"]
    assert [c.name for c in unoffered_calls(f"[{ADD_CALL}, {fly}]", OFFERED)] == ["add", "fly"]
    assert unoffered_calls(fly, set()) == []
    assert unoffered_calls(ADD_CALL, OFFERED) == []
    assert unoffered_calls('{"name": "fly"}', OFFERED) == []
    assert unoffered_calls(f"Sure: {fly}", OFFERED) == []
    assert unoffered_calls(f"{fly}\nthen I answer", OFFERED) == []


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_the_stream_detector_never_shows_an_unoffered_call(size: int) -> None:
    for text in (call_json("fly", to="Rome"), "```json\n" + call_json("fly") + "\n```"):
        detector = StreamCallDetector(OFFERED)
        shown = "".join(detector.feed(text[i : i + size]) for i in range(0, len(text), size))
        released, calls = detector.finish()
        assert shown + released == ""
        assert [c.name for c in calls] == ["fly"]
    prose = "```json\n" + call_json("fly") + "\n```\nis what I would send."
    detector = StreamCallDetector(OFFERED)
    shown = "".join(detector.feed(prose[i : i + size]) for i in range(0, len(prose), size))
    assert shown + detector.finish()[0] == prose


def test_a_whole_answer_calling_an_unoffered_tool_gets_an_error_observation(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([Text(call_json("weather", city="Paris")), Text(WEATHER_CALL), Text("Sunny.")])
    agent = react_agent(react_llm)
    assert agent.chat("Weather in Paris?") == "Sunny."
    (observation,) = observations(server.requests[1])
    assert observation.startswith("Observation from weather (error):")
    assert "Available tools: add, get_weather" in observation
    result = agent.last_result
    assert result is not None
    assert [(c.name, c.is_error) for c in result.tool_calls] == [
        ("weather", True),
        ("get_weather", False),
    ]


def test_an_unoffered_call_in_native_mode_gets_an_error_tool_message(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([Text(call_json("weather", city="Paris")), Text("Sunny.")])
    agent = react_agent(llm)
    assert agent.chat("Weather in Paris?") == "Sunny."
    tool_message = server.requests[1].messages[-1]
    assert tool_message["role"] == "tool"
    assert "Available tools: add, get_weather" in tool_message["content"]


# -- streaming --------------------------------------------------------------------------


def test_iter_stream_never_yields_the_text_of_a_call(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    final = "It is sunny in Paris, 26c."
    server.extend(
        [
            Text(f"```json\n{WEATHER_CALL}\n```", chunk_size=3),
            Text(f"<tool_call>{ADD_CALL}</tool_call>", chunk_size=2),
            Text(WEATHER_CALL, chunk_size=5),
            Text(final, chunk_size=4),
        ]
    )
    agent = react_agent(react_llm)
    pieces = list(agent.iter_stream("Weather in Paris? And 2+3?"))
    assert "".join(pieces) == final
    assert len(pieces) > 1
    assert all(request.stream for request in server.requests)
    result = agent.last_result
    assert result is not None
    assert result.output == final
    assert [c.name for c in result.tool_calls] == ["get_weather", "add", "get_weather"]


def test_iter_stream_shows_prose_before_a_call_but_not_the_call(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    lead_in = "Let me check the weather.\n"
    server.extend([Text(f"{lead_in}```json\n{WEATHER_CALL}\n```"), Text("Sunny.")])
    agent = react_agent(react_llm)
    streamed = "".join(agent.iter_stream("Weather?"))
    assert streamed == lead_in + "Sunny."
    assert "get_weather" not in streamed


def test_iter_stream_of_a_non_call_json_answer_shows_all_of_it(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    answer = '{"city": "Paris", "sky": "sunny"}'
    server.add(Text(answer))
    agent = react_agent(react_llm)
    assert "".join(agent.iter_stream("JSON please")) == answer
    assert agent.last_result is not None and agent.last_result.output == answer


def test_stream_events_in_react_mode(server: LocalLLMServer, react_llm: LLMConfig) -> None:
    server.extend([Text(WEATHER_CALL), Text("Sunny.")])
    agent = react_agent(react_llm)
    events = list(agent.stream_events("Weather in Paris?"))
    started = events[0]
    assert isinstance(started, RunStarted) and started.tool_mode is ToolMode.REACT
    requests = [e for e in events if isinstance(e, LLMRequest)]
    assert [r.tool_names for r in requests] == [[], []]
    (call,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"})
    (result,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert (result.call_id, result.result, result.is_error) == (call.call_id, WEATHER_RESULT, False)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Sunny."
    kinds = [type(e) for e in events]
    assert kinds.index(ToolCallEvent) < kinds.index(ToolResultEvent) < kinds.index(TextDelta)
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result is not None
    assert finished.result.tool_mode is ToolMode.REACT
    assert finished.result.output == "Sunny."


async def test_astream_events_and_achat_in_react_mode(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([Text(f"```json\n{ADD_CALL}\n```"), Text("5"), Text(WEATHER_CALL), Text("Sun")])
    agent = react_agent(react_llm)
    events = [event async for event in agent.astream_events("2+3?")]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "5"
    assert [e.result for e in events if isinstance(e, ToolResultEvent)] == ["5"]
    assert await agent.achat("Weather in Paris?") == "Sun"
    assert observations(server.requests[3])[-1].startswith("Observation from get_weather:")
    assert agent.last_result is not None and agent.last_result.tool_mode is ToolMode.REACT


# -- native mode: a call written as the whole answer ----------------------------------------


def test_native_mode_is_the_default_and_sends_tools(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([ToolCalls([Call("add", {"a": 2, "b": 3})]), Text("5")])
    agent = react_agent(llm)
    events = list(agent.stream_events("2+3?", stream=False))
    assert isinstance(events[0], RunStarted) and events[0].tool_mode is ToolMode.NATIVE
    assert [t["function"]["name"] for t in server.requests[0].tools] == ["add", "get_weather"]
    assert agent.last_result is not None and agent.last_result.tool_mode is ToolMode.NATIVE
    assert "<tools>" not in system_text(server.requests[0])


@pytest.mark.parametrize(
    "answer",
    [WEATHER_CALL, f"```json\n{WEATHER_CALL}\n```", f"<tool_call>{WEATHER_CALL}</tool_call>"],
    ids=["bare", "fenced", "tool_call-tag"],
)
def test_native_mode_reads_a_whole_answer_call_as_a_tool_call(
    server: LocalLLMServer, llm: dict[str, Any], answer: str
) -> None:
    server.extend([Text(answer), Text("Sunny.")])
    agent = react_agent(llm)
    assert agent.chat("Weather in Paris?") == "Sunny."
    second = server.requests[1]
    assert second.tools, "native mode keeps sending the tools"
    assistant, tool = second.messages[-2], second.messages[-1]
    assert assistant["role"] == "assistant" and assistant["content"] == ""
    (sent_call,) = assistant["tool_calls"]
    assert sent_call["function"]["name"] == "get_weather"
    assert json.loads(sent_call["function"]["arguments"]) == {"city": "Paris"}
    assert tool == {"role": "tool", "tool_call_id": sent_call["id"], "content": WEATHER_RESULT}
    result = agent.last_result
    assert result is not None and result.tool_mode is ToolMode.NATIVE
    assert [c.name for c in result.tool_calls] == ["get_weather"]


@pytest.mark.parametrize(
    "answer",
    [
        f"Here is the call: {WEATHER_CALL}",
        f"```json\n{WEATHER_CALL}\n```\nThat is what I would send.",
        f"I will check.\n<tool_call>{WEATHER_CALL}</tool_call>",
    ],
    ids=["prose-before-bare", "fence-then-prose", "prose-before-tag"],
)
def test_native_mode_keeps_prose_around_json_as_the_answer(
    server: LocalLLMServer, llm: dict[str, Any], answer: str
) -> None:
    server.add(Text(answer))
    agent = react_agent(llm)
    assert agent.chat("Weather in Paris?") == answer
    assert server.request_count == 1
    assert agent.last_result is not None and agent.last_result.tool_calls == []


def test_native_mode_without_tools_keeps_a_json_answer(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text(WEATHER_CALL))
    agent = Agent(instructions="You are a helpful assistant", llm=llm)
    assert agent.chat("Give me a JSON call") == WEATHER_CALL
    assert "tools" not in server.requests[0].body
