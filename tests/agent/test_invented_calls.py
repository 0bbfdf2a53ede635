"""A text tool call whose values come from nowhere is refused once a turn.

Against LocalLLMServer via real LiteLLM, playing a model without native tool
calls (ReAct), as the local models are: the first call of a turn that takes
none of its values from the request (Qwen2.5-Coder-0.5B answered "Tell me a
joke." with ``add(a=1, b=2)``) is not run; the model is told so and asked for a
plain-text answer. A call with a value from the prompt, the instructions or an
earlier tool result runs, and so does a refused call the model sends again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.events import ErrorEvent, RunFinished
from praisonlike.loop.tool_loop import NO_ANSWER_TEXT
from praisonlike.models.config import LLMConfig
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

ran: list[tuple[str, dict[str, Any]]] = []


def add(a: float, b: float) -> float:
    """Add two numbers."""
    ran.append(("add", {"a": a, "b": b}))
    return a + b


def get_weather(city: str) -> str:
    """Current weather for a city."""
    ran.append(("get_weather", {"city": city}))
    return f"{city}: sunny, 26c"


def get_stock_price(symbol: str) -> str:
    """Latest price of a stock.

    Args:
        symbol: Ticker symbol, e.g. AAPL.
    """
    ran.append(("get_stock_price", {"symbol": symbol}))
    return f"{symbol}: 100.0"


def set_timer(minutes: int) -> str:
    """Start a countdown timer."""
    ran.append(("set_timer", {"minutes": minutes}))
    return f"timer set for {minutes} min"


def home_of(person: str) -> str:
    """The city a person lives in."""
    ran.append(("home_of", {"person": person}))
    return "Lisbon"


def lights_on(dimmed: bool) -> str:
    """Switch the lights on."""
    ran.append(("lights_on", {"dimmed": dimmed}))
    return "on"


TOOLS = [add, get_weather, get_stock_price, set_timer, home_of, lights_on]


@pytest.fixture(autouse=True)
def _forget_runs() -> None:
    ran.clear()


@pytest.fixture
def react_llm(llm: dict[str, Any]) -> LLMConfig:
    return LLMConfig.coerce({**llm, "features": {"native_tool_calls": False}})


def call(name: str, **arguments: Any) -> Text:
    return Text(json.dumps({"name": name, "arguments": arguments}))


def agent_for(llm: LLMConfig | dict[str, Any], instructions: str = "You help.") -> Agent:
    return Agent(instructions=instructions, llm=llm, tools=TOOLS)


def test_a_call_with_values_from_nowhere_is_refused_and_the_model_answers(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([call("add", a=1, b=2), Text("Why did the chicken cross the road?")])
    agent = agent_for(react_llm)

    events = list(agent.stream_events("Tell me a joke.", stream=False))

    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result is not None
    assert finished.result.output == "Why did the chicken cross the road?"
    assert finished.result.tool_calls == [] and ran == []
    refusal = str(server.requests[1].messages[-1]["content"])
    assert refusal.startswith("My request does not mention '1', '2', so it does not need add.")
    (note,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert note.error_type == "ToolCallFault" and not note.fatal
    assert agent.chat_history[-1] == {
        "role": "assistant",
        "content": "Why did the chicken cross the road?",
    }


@pytest.mark.parametrize(
    ("prompt", "name", "arguments"),
    [
        ("What is 2 plus 3?", "add", {"a": 2, "b": 3}),
        ("What is 1,250 plus 3?", "add", {"a": 1250, "b": 3}),
        ("Set a timer for five minutes.", "set_timer", {"minutes": 5}),
        ("weather in paris?", "get_weather", {"city": "Paris"}),
        ("Weather in Tokyo?", "get_weather", {"city": "Tokyo, Japan"}),
        ("Is it raining in Oslo? Use 2 decimals.", "add", {"a": 7, "b": 2}),
    ],
    ids=["digits", "thousands", "number-word", "letter-case", "one-word", "one-value"],
)
def test_a_call_taking_a_value_from_the_prompt_runs(
    server: LocalLLMServer,
    react_llm: LLMConfig,
    prompt: str,
    name: str,
    arguments: dict[str, Any],
) -> None:
    server.extend([call(name, **arguments), Text("Done.")])
    agent = agent_for(react_llm)

    assert agent.chat(prompt) == "Done."

    assert [n for n, _ in ran] == [name]
    assert server.request_count == 2


def test_a_value_in_the_instructions_counts_but_not_one_in_a_tools_description(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([call("get_weather", city="Lisbon"), Text("Sunny.")])
    agent = agent_for(react_llm, instructions="You help. The user lives in Lisbon.")
    assert agent.chat("Weather where I live?") == "Sunny."
    assert ran == [("get_weather", {"city": "Lisbon"})]

    ran.clear()
    server.extend([call("get_stock_price", symbol="AAPL"), Text("Gracias.")])
    assert agent_for(react_llm).chat("Translate 'thank you' into Spanish.") == "Gracias."
    assert ran == []


def test_a_result_of_an_earlier_call_grounds_the_next_one(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend(
        [
            call("home_of", person="Ada"),
            call("get_weather", city="Lisbon"),
            Text("Sunny in Lisbon."),
        ]
    )
    agent = agent_for(react_llm)

    assert agent.chat("What is the weather where Ada lives?") == "Sunny in Lisbon."
    assert ran == [("home_of", {"person": "Ada"}), ("get_weather", {"city": "Lisbon"})]


def test_a_refused_call_sent_again_runs(server: LocalLLMServer, react_llm: LLMConfig) -> None:
    """A value the model worked out costs a round, not the call."""
    server.extend(
        [
            call("get_weather", city="Paris"),
            call("get_weather", city="Paris"),
            Text("Sunny in Paris."),
        ]
    )
    agent = agent_for(react_llm)

    assert agent.chat("What is the weather in the capital of France?") == "Sunny in Paris."
    assert ran == [("get_weather", {"city": "Paris"})]
    assert server.request_count == 3
    result = agent.last_result
    assert result is not None and [c.name for c in result.tool_calls] == ["get_weather"]


def test_another_call_from_nowhere_after_the_refusal_is_not_run(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([call("add", a=1, b=2), call("add", a=4, b=5)])
    agent = agent_for(react_llm)

    assert agent.chat("Tell me a joke.") == NO_ANSWER_TEXT
    assert ran == []
    assert server.request_count == 2


def test_a_call_without_values_to_judge_runs(server: LocalLLMServer, react_llm: LLMConfig) -> None:
    server.extend([call("lights_on", dimmed=True), Text("The lights are on.")])
    assert agent_for(react_llm).chat("It is dark in here.") == "The lights are on."
    assert ran == [("lights_on", {"dimmed": True})]


def test_native_tool_calls_are_not_checked(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")])
    assert agent_for(llm).chat("Tell me a joke.") == "3"
    assert ran == [("add", {"a": 1, "b": 2})]
