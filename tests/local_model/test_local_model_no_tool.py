"""The real local model answers a tool-free question in text and still calls a
tool for live data (issue 27), with the same tool offered both times.

Needs ``praisonlike[local]``; skipped otherwise. Temperature 0 and few tokens:
each turn is one short model call (a call is cancelled once it is seen).
"""

from __future__ import annotations

from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.errors import RunCancelled
from praisonlike.events import RunFinished, ToolCallEvent
from praisonlike.models.config import ExecutionConfig, LLMConfig
from praisonlike.models.local import is_local_available

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not is_local_available(), reason="needs pip install 'praisonlike[local]'"),
]


def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 21 C"


def first_call_or_answer(question: str) -> tuple[str, dict[str, Any] | str] | str:
    """The turn's first tool call (name, arguments), else its text answer."""
    agent = Agent(
        instructions="You are a helpful assistant.",
        llm=LLMConfig(model="local", max_tokens=32),
        tools=[get_weather],
        execution=ExecutionConfig(max_retries=0, timeout=300),
    )
    answer = ""
    try:
        for event in agent.stream_events(question, stream=False):
            if isinstance(event, ToolCallEvent):
                agent.cancel("seen")
                return event.name, event.arguments
            if isinstance(event, RunFinished) and event.result is not None:
                answer = event.result.text
    except RunCancelled:
        pass
    return answer


def test_a_question_the_model_knows_is_answered_in_text_without_a_call() -> None:
    answer = first_call_or_answer("What is the capital of Italy?")
    assert isinstance(answer, str), f"called a tool: {answer}"
    assert "Rome" in answer


def test_a_question_needing_live_data_still_calls_the_tool() -> None:
    assert first_call_or_answer("What is the weather in Oslo?") == ("get_weather", {"city": "Oslo"})
