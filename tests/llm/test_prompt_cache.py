"""Prompt caching: breakpoints for Anthropic, cache reads and writes in usage and cost.

On the server's Anthropic Messages wire, which plays Anthropic's prompt cache
(a request reads the longest marked prefix it has seen before and writes the
rest up to its last mark), through real LiteLLM.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from transport_support import TRANSPORTS, use_transport

from praisonlike import Agent
from praisonlike.errors import ConfigurationError
from praisonlike.events import LLMResponse
from praisonlike.models.config import LLMConfig
from praisonlike.models.pricing import resolve_price
from praisonlike.models.prompt_cache import EPHEMERAL, with_breakpoints
from praisonlike.models.providers import related_config
from praisonlike.models.usage import Usage
from praisonlike.testing import Call, LocalLLMServer, ReportedUsage, Text, ToolCalls

MODEL = "claude-haiku-4-5"
"""$1 in, $5 out, $0.10 cache read, $1.25 cache write per million tokens in LiteLLM's map."""
INSTRUCTIONS = "You add numbers with the add tool and say the sum in one short sentence."


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def anthropic_agent(server: LocalLLMServer, **llm: Any) -> Agent:
    config = {**server.llm_config(MODEL, wire="anthropic"), **llm}
    return Agent(instructions=INSTRUCTIONS, llm=config, tools=[add])


def tool_turn(server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("add", {"a": 2, "b": 3})]), Text("The sum is 5."))


def marks(body: dict[str, Any]) -> list[str]:
    """Where a request body carries cache_control marks: tools, system, messages."""
    found = [f"tool:{tool['name']}" for tool in body.get("tools", []) if "cache_control" in tool]
    found += [f"system:{i}" for i, b in enumerate(body.get("system", [])) if "cache_control" in b]
    for index, message in enumerate(body["messages"]):
        content = message["content"] if isinstance(message["content"], list) else []
        if "cache_control" in message or any("cache_control" in block for block in content):
            found.append(f"message:{index}:{message['role']}")
    return found


def expected_cost(usage: Usage) -> float:
    price = resolve_price(f"anthropic/{MODEL}")
    assert price is not None
    assert price.cached_input_per_mtok is not None and price.cache_write_per_mtok is not None
    assert price.cache_write_per_mtok > price.input_per_mtok > price.cached_input_per_mtok
    plain = usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens
    return (
        plain * price.input_per_mtok
        + usage.cached_tokens * price.cached_input_per_mtok
        + usage.cache_write_tokens * price.cache_write_per_mtok
        + usage.completion_tokens * price.output_per_mtok
    ) / 1_000_000


def test_each_request_marks_the_tools_the_system_prompt_and_its_last_message(
    server: LocalLLMServer,
) -> None:
    tool_turn(server)
    agent = anthropic_agent(server)

    assert agent.chat("What is 2 + 3?") == "The sum is 5."

    first, second = (request.body for request in server.requests)
    assert marks(first) == ["tool:add", "system:0", "message:0:user"]
    assert marks(second) == ["tool:add", "system:0", "message:2:user"]
    assert second["messages"][2]["content"][0]["type"] == "tool_result"
    assert second["messages"][2]["content"][0]["cache_control"] == EPHEMERAL
    assert "cache_control" not in json.dumps(agent.chat_history)


def test_the_tool_round_and_the_next_turn_read_what_was_written(server: LocalLLMServer) -> None:
    tool_turn(server)
    server.add(Text("Still 5."))
    agent = anthropic_agent(server)
    seen: list[LLMResponse] = []

    for prompt in ("What is 2 + 3?", "And again?"):
        for event in agent.stream_events(prompt, stream=False):
            if isinstance(event, LLMResponse):
                seen.append(event)

    first, tool_round, next_turn = (event.usage for event in seen)
    assert (first.cached_tokens, first.cache_write_tokens) == (0, first.prompt_tokens)
    assert tool_round.cached_tokens == first.cache_write_tokens
    assert tool_round.cache_write_tokens == tool_round.prompt_tokens - tool_round.cached_tokens
    assert next_turn.cached_tokens == tool_round.prompt_tokens
    assert next_turn.cache_write_tokens == next_turn.prompt_tokens - next_turn.cached_tokens > 0
    for usage in (first, tool_round, next_turn):
        assert usage.cost == pytest.approx(expected_cost(usage))
    total = agent.last_result
    assert total is not None
    assert total.usage.cached_tokens == next_turn.cached_tokens
    assert total.usage.cache_write_tokens == next_turn.cache_write_tokens


@pytest.mark.parametrize("way", ["chat", "achat", "iter_stream"])
def test_cache_counts_arrive_on_every_entry_point(server: LocalLLMServer, way: str) -> None:
    server.add(Text("warm"))
    tool_turn(server)
    agent = anthropic_agent(server)
    agent.chat("Hello there.")
    agent.clear_history()  # the tools and system prompt are read, the question written
    question = "What is 2 + 3?"

    if way == "chat":
        agent.chat(question)
    elif way == "achat":
        asyncio.run(agent.achat(question))
    else:
        assert "".join(agent.iter_stream(question)) == "The sum is 5."

    result = agent.last_result
    assert result is not None and result.usage.requests == 2
    assert result.usage.cached_tokens > 0 and result.usage.cache_write_tokens > 0
    assert all(request.stream == (way == "iter_stream") for request in server.requests[1:])
    uncached = Usage(
        prompt_tokens=result.usage.prompt_tokens, completion_tokens=result.usage.completion_tokens
    )
    assert result.usage.cost is not None
    assert result.usage.cost < expected_cost(uncached)


def test_prompt_cache_false_sends_no_marks(server: LocalLLMServer) -> None:
    tool_turn(server)
    agent = anthropic_agent(server, prompt_cache=False)

    assert agent.chat("What is 2 + 3?") == "The sum is 5."

    assert all(marks(request.body) == [] for request in server.requests)
    result = agent.last_result
    assert result is not None
    assert (result.usage.cached_tokens, result.usage.cache_write_tokens) == (0, 0)


def test_litellm_injection_points_in_extra_replace_the_agents_marks(
    server: LocalLLMServer,
) -> None:
    server.add(Text("ok"))
    points = [{"location": "message", "role": "system"}]
    agent = anthropic_agent(server, cache_control_injection_points=points)

    agent.chat("hello")

    assert marks(server.requests[0].body) == ["system:0"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_openai_wire_gets_no_marks_and_reports_cached_tokens(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    llm = server.llm_config()
    use_transport(monkeypatch, transport, llm)
    server.add(ToolCalls([Call("add", {"a": 2, "b": 3})]))
    server.add(Text("5", usage=ReportedUsage(1_000_000, 0, cached_tokens=400_000)))
    prices = {"test-model": {"input": 2.0, "output": 8.0, "cached_input": 0.5}}
    agent = Agent(instructions="x", llm=llm, tools=[add], model_prices=prices)

    agent.chat("2 + 3?")

    assert all("cache_control" not in json.dumps(request.body) for request in server.requests)
    result = agent.last_result
    assert result is not None
    assert result.usage.cached_tokens == 400_000
    first_request = result.usage.prompt_tokens - 1_000_000
    first_cost = (first_request * 2.0 + (result.usage.completion_tokens * 8.0)) / 1e6
    assert result.usage.cost == pytest.approx(first_cost + (600_000 * 2.0 + 400_000 * 0.5) / 1e6)


def test_a_cache_write_price_override_is_used_and_checked(server: LocalLLMServer) -> None:
    usage = ReportedUsage(1_000_000, 0, cached_tokens=200_000, cache_write_tokens=300_000)
    server.add(Text("ok", usage=usage))
    prices = {MODEL: {"input": 2.0, "output": 8.0, "cached_input": 0.2, "cache_write": 2.5}}
    llm = server.llm_config(MODEL, wire="anthropic")
    agent = Agent(instructions="x", llm=llm, model_prices=prices)

    agent.chat("hello")

    result = agent.last_result
    assert result is not None
    assert (result.usage.cached_tokens, result.usage.cache_write_tokens) == (200_000, 300_000)
    assert result.usage.cost == pytest.approx(500_000 * 2.0 / 1e6 + 0.2 * 0.2 + 0.3 * 2.5)
    with pytest.raises(ConfigurationError, match="cache_write"):
        resolve_price(MODEL, {MODEL: {"input": 1.0, "output": 1.0, "cache_write": -1}})


def test_reported_usage_cache_counts_are_parts_of_the_prompt() -> None:
    with pytest.raises(ConfigurationError, match="cannot exceed"):
        ReportedUsage(10, 1, cached_tokens=6, cache_write_tokens=5)


def test_prompt_cache_must_be_a_bool_and_follows_a_fallback_to_another_provider() -> None:
    with pytest.raises(ConfigurationError, match="prompt_cache must be True or False"):
        LLMConfig(model=f"anthropic/{MODEL}", prompt_cache="yes")  # type: ignore[arg-type]
    base = LLMConfig(model="openai/gpt-4o-mini", prompt_cache=False)
    assert related_config(base, f"anthropic/{MODEL}").prompt_cache is False


def test_breakpoints_leave_a_request_with_marks_of_its_own_alone() -> None:
    own = {"type": "text", "text": "a long document", "cache_control": EPHEMERAL}
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": [own]},
        {"role": "user", "content": "question"},
    ]

    assert with_breakpoints(messages, None) == (messages, None)


def test_breakpoints_mark_only_the_last_leading_system_message_and_copy() -> None:
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "system", "content": "summary so far"},
        {"role": "user", "content": "question"},
    ]
    tools = [{"type": "function", "function": {"name": "a"}}, {"type": "function"}]

    marked, marked_tools = with_breakpoints(messages, tools)

    assert marked[0] is messages[0]
    assert marked[1]["content"] == [
        {"type": "text", "text": "summary so far", "cache_control": EPHEMERAL}
    ]
    assert marked[2]["content"][0]["cache_control"] == EPHEMERAL
    assert marked_tools is not None and marked_tools[0] is tools[0]
    assert marked_tools[1]["cache_control"] == EPHEMERAL
    assert messages[1]["content"] == "summary so far" and "cache_control" not in tools[1]
