"""The Agent end to end on the real bundled model (Qwen2.5-Coder-0.5B via llama.cpp).

Needs ``praisonlike[local]``; skipped otherwise. The server starts once per
process. A 0.5B model's choices vary with the prompt, so the tool test asks in a
few phrasings and requires one real call; every call that happens must have run
and its result must be in the next request the model got.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from praisonlike import Agent, TerminationReason
from praisonlike.context.config import ContextConfig
from praisonlike.context.window import ContextWindowUnknownWarning, context_window
from praisonlike.events import (
    LLMRequest,
    LLMResponse,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.models.config import ExecutionConfig, LLMConfig
from praisonlike.models.local import LOCAL_MODELS, is_local_available
from praisonlike.react.parse import parse_text_tool_calls
from praisonlike.result import ToolMode

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not is_local_available(), reason="needs pip install 'praisonlike[local]'"),
]

LOCAL_ALIAS = "openai/qwen2.5-coder-0.5b"
EXECUTION = ExecutionConfig(max_retries=0, timeout=300)
WEATHER_PROMPTS = (
    "What is the weather in Paris? Use the get_weather tool.",
    "Call get_weather for Paris and tell me the result.",
    "Is it sunny in Paris right now?",
)


def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 26 C"


def local_agent(max_tokens: int, **kwargs: Any) -> Agent:
    return Agent(
        instructions="You are a helpful assistant. Answer briefly.",
        llm=LLMConfig(model="local", max_tokens=max_tokens),
        execution=EXECUTION,
        **kwargs,
    )


def test_plain_answer_on_the_local_model_which_context_and_pricing_know() -> None:
    agent = local_agent(24)
    answer = agent.chat("What is the capital of France? One word.")
    assert isinstance(answer, str) and answer.strip()
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.model == LOCAL_ALIAS
    assert result.tool_mode is ToolMode.REACT
    assert result.usage.requests == 1 and result.usage.completion_tokens > 0
    assert agent.chat_history[-1] == {"role": "assistant", "content": answer}
    assert (result.usage.cost, result.usage.cost_complete) == (0.0, True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContextWindowUnknownWarning)
        window = context_window(LOCAL_ALIAS, ContextConfig())
    assert window == LOCAL_MODELS["qwen2.5-coder-0.5b"].context_window


def test_iter_stream_joins_to_the_output() -> None:
    agent = local_agent(24)
    pieces = list(agent.iter_stream("Name one primary colour. One word."))
    assert pieces and all(isinstance(piece, str) for piece in pieces)
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert "".join(pieces) == result.output
    assert result.output.strip()


def test_the_local_model_uses_react_tool_calls_unless_told_otherwise() -> None:
    assert local_agent(16).features().native_tool_calls is False
    forced = Agent(
        instructions="x",
        llm=LLMConfig(model="local", features={"native_tool_calls": True}),
    )
    assert forced.features().native_tool_calls is True


def check_tool_turn(events: list[Any]) -> int:
    """Check one streamed ReAct turn's events; return how many tool calls ran without error."""
    started, finished = events[0], events[-1]
    assert isinstance(started, RunStarted) and started.tool_mode is ToolMode.REACT
    assert isinstance(finished, RunFinished) and finished.result is not None
    result = finished.result
    assert result.tool_mode is ToolMode.REACT
    assert result.termination_reason in (
        TerminationReason.COMPLETED,
        TerminationReason.MAX_ITERATIONS,
    )
    assert isinstance(result.output, str) and result.output.strip()

    requests = [e for e in events if isinstance(e, LLMRequest)]
    assert requests and all(r.tool_names == [] for r in requests)
    assert "<tools>" in requests[0].messages[0]["content"]
    assert '"name": "get_weather"' in requests[0].messages[0]["content"]

    results = {e.call_id: e for e in events if isinstance(e, ToolResultEvent)}
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [c.call_id for c in calls] == list(results)
    assert [c.name for c in calls] == [r.name for r in result.tool_calls]
    for call in calls:
        after = events[events.index(results[call.call_id]) :]
        follow_up = next(e for e in after if isinstance(e, LLMRequest))
        fed_back = [str(m.get("content")) for m in follow_up.messages if m["role"] == "user"]
        assert any(
            text.startswith(f"Observation from {call.name}")
            and results[call.call_id].result in text
            for text in fed_back
        ), fed_back

    for response in (e for e in events if isinstance(e, LLMResponse)):
        streamed = "".join(
            e.text for e in events if isinstance(e, TextDelta) and e.iteration == response.iteration
        )
        assert response.content.startswith(streamed)
        for text_call in parse_text_tool_calls(response.content, {"get_weather"}):
            assert text_call.raw not in streamed
    last = max(e.iteration for e in events if isinstance(e, LLMResponse))
    final_text = "".join(e.text for e in events if isinstance(e, TextDelta) and e.iteration == last)
    if result.termination_reason is TerminationReason.COMPLETED:
        assert final_text == result.output
    return sum(
        1 for record in result.tool_calls if not record.is_error and "sunny" in record.result
    )


def test_a_tool_call_on_the_local_model_runs_and_its_result_reaches_the_model() -> None:
    executed = 0
    for prompt in WEATHER_PROMPTS:
        agent = local_agent(64, tools=[get_weather], max_iterations=2)
        events = list(agent.stream_events(prompt))
        executed += check_tool_turn(events)
        if executed:
            break
    assert executed >= 1, "the local model made no successful get_weather call in any phrasing"
