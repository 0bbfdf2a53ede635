"""ReAct replies that are not usable calls, and replies cut at max_tokens.

Against LocalLLMServer via real LiteLLM, playing a model without native tool calls:
a schema echo or a broken call is answered with a correction and retried within
the turn (issue 23 item 8), several bare JSON calls are all run (item 18), and an
answer cut at ``max_tokens`` ends as ``TerminationReason.LENGTH`` (item 7).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from praisonlike import Agent, TerminationReason
from praisonlike.events import ErrorEvent, RunFinished
from praisonlike.loop.tool_loop import NO_ANSWER_TEXT
from praisonlike.models.config import LLMConfig
from praisonlike.react.call_faults import MAX_CALL_CORRECTIONS
from praisonlike.testing import LocalLLMServer, Text

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

SECRETS = {"a": "alpha", "b": "bravo"}


def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 26c"


def get_secret(key: str) -> str:
    """The secret stored under a key."""
    return SECRETS[key]


ECHO = json.dumps(
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name."}},
            "required": ["city"],
        },
    }
)
WEATHER_CALL = json.dumps({"name": "get_weather", "arguments": {"city": "Paris"}})


@pytest.fixture
def react_llm(llm: dict[str, Any]) -> LLMConfig:
    return LLMConfig.coerce({**llm, "features": {"native_tool_calls": False}})


def agent_for(llm: LLMConfig, **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [get_weather, get_secret])
    return Agent(instructions="You are a helpful assistant", llm=llm, **kwargs)


def last_user_text(server: LocalLLMServer, index: int) -> str:
    return str(server.requests[index].messages[-1]["content"])


@pytest.mark.parametrize(
    "bad",
    [
        ECHO,
        f"```json\n{ECHO}\n```",
        '{"name": "get_weather", "arguments": {"city": "Paris"',
        '```json\n{"name": "get_weather", "arguments": {"city": }}\n```',
        '{"name": "get_weather", "arguments": "Paris"}',
    ],
    ids=["echo", "fenced-echo", "truncated-json", "malformed-fence", "string-arguments"],
)
def test_a_failed_call_is_corrected_and_retried_within_the_turn(
    server: LocalLLMServer, react_llm: LLMConfig, bad: str
) -> None:
    server.extend([Text(bad), Text(WEATHER_CALL), Text("Sunny in Paris.")])
    agent = agent_for(react_llm)

    events = list(agent.stream_events("Weather in Paris?", stream=False))

    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result is not None
    assert finished.result.output == "Sunny in Paris."
    assert finished.termination_reason is TerminationReason.COMPLETED
    assert [c.name for c in finished.result.tool_calls] == ["get_weather"]
    correction = last_user_text(server, 1)
    assert correction.startswith("Observation (error):")
    assert '{"name": "get_weather", "arguments": {"city": <string>}}' in correction
    (fault,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert fault.error_type == "ToolCallFault" and not fault.fatal
    assert agent.chat_history[-1] == {"role": "assistant", "content": "Sunny in Paris."}


def test_corrections_are_bounded_and_an_echo_is_never_the_answer(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    server.extend([Text(ECHO)] * (MAX_CALL_CORRECTIONS + 1))
    agent = agent_for(react_llm, max_iterations=10)

    answer = agent.chat("Weather in Paris?")

    assert answer == NO_ANSWER_TEXT
    assert server.request_count == MAX_CALL_CORRECTIONS + 1
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.MAX_ITERATIONS
    assert result.tool_calls == []


def test_iter_stream_never_shows_an_echo(server: LocalLLMServer, react_llm: LLMConfig) -> None:
    server.extend([Text(ECHO, chunk_size=7), Text(WEATHER_CALL), Text("Sunny.", chunk_size=2)])
    agent = agent_for(react_llm)
    assert "".join(agent.iter_stream("Weather in Paris?")) == "Sunny."


@pytest.mark.parametrize("lead", ["", "I will look up both keys.\n"], ids=["bare", "after-prose"])
def test_bare_json_calls_on_separate_lines_all_run(
    server: LocalLLMServer, react_llm: LLMConfig, lead: str
) -> None:
    calls = "\n".join(
        json.dumps({"name": "get_secret", "arguments": {"key": key}}) for key in ("a", "b")
    )
    server.extend([Text(lead + calls), Text("alpha and bravo")])
    agent = agent_for(react_llm)
    assert "".join(agent.iter_stream("Secrets a and b?")) == lead + "alpha and bravo"
    result = agent.last_result
    assert result is not None
    assert [(c.arguments, c.result) for c in result.tool_calls] == [
        ({"key": "a"}, "alpha"),
        ({"key": "b"}, "bravo"),
    ]


@pytest.mark.parametrize("native", [False, True], ids=["react", "native"])
def test_an_answer_cut_at_max_tokens_ends_as_length(
    server: LocalLLMServer, llm: dict[str, Any], native: bool
) -> None:
    config = LLMConfig.coerce({**llm, "max_tokens": 8, "features": {"native_tool_calls": native}})
    server.add(Text("The weather in Paris is", finish_reason="length"))
    agent = agent_for(config)
    assert agent.chat("Weather?") == "The weather in Paris is"
    assert server.requests[0].body["max_tokens"] == 8
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.LENGTH


def test_a_call_cut_at_max_tokens_is_not_retried(
    server: LocalLLMServer, react_llm: LLMConfig
) -> None:
    cut = '{"name": "get_weather", "arguments": {"ci'
    server.add(Text(cut, finish_reason="length"))
    agent = agent_for(react_llm)
    assert agent.chat("Weather?") == cut
    assert server.request_count == 1
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.LENGTH
