"""A call that keeps failing or keeps returning the same result ends tool use for the
turn: the same tool with the same arguments failing twice, or returning the same
result three times running, makes the next round ask for the answer without tools."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, RunResult, TerminationReason
from praisonlike.loop.repeated_calls import (
    MAX_SAME_FAILURES,
    MAX_SAME_RESULTS,
    MAX_TOOL_TIMEOUTS,
    SAME_RESULT,
    STOP_CALLING,
    TIMING_OUT,
)
from praisonlike.react.grammar import text_grammar
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

WAYS = ("chat", "achat", "iter_stream")


def run(agent: Agent, way: str, prompt: str) -> str:
    if way == "chat":
        return str(agent.chat(prompt))
    if way == "achat":
        return str(asyncio.run(agent.achat(prompt)))
    return "".join(agent.iter_stream(prompt))


def react(llm: dict[str, Any]) -> dict[str, Any]:
    """``llm`` as a ReAct model that takes a grammar, like the bundled local models."""
    return {**llm, "features": {"native_tool_calls": False, "tool_grammar": True}}


def completed(agent: Agent) -> RunResult:
    """The agent's last turn, which must have ended ``completed``."""
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    return result


def assert_tool_use_never_ended(server: LocalLLMServer, requests: int) -> None:
    assert len(server.requests) == requests
    assert all(STOP_CALLING not in str(r.messages) for r in server.requests)
    assert all(SAME_RESULT not in str(r.messages) for r in server.requests)
    assert all(r.body.get("tool_choice") is None for r in server.requests)


def lookup_user(user_id: int) -> str:
    """Look up a user's name by id."""
    raise KeyError(f"no user {user_id}")


@pytest.mark.parametrize("way", WAYS)
def test_the_same_failing_call_twice_ends_tool_use(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    same = ToolCalls([Call("lookup_user", {"user_id": 42})])
    server.extend([same, same, Text("I could not find user 42.")])
    agent = Agent(instructions="You look up users.", llm=llm, tools=[lookup_user])

    answer = run(agent, way, "Who is user 42?")

    assert answer == "I could not find user 42."
    result = completed(agent)
    assert [c.is_error for c in result.tool_calls] == [True] * MAX_SAME_FAILURES
    final = server.requests[MAX_SAME_FAILURES]
    assert len(server.requests) == MAX_SAME_FAILURES + 1
    first_result, second_result = (m for m in final.messages if m.get("role") == "tool")
    assert STOP_CALLING not in first_result["content"]
    assert second_result["content"].endswith(STOP_CALLING)
    assert final.body.get("tool_choice") == "none"
    assert agent.chat_history[-1]["content"] == "I could not find user 42."


def test_other_arguments_and_a_retry_that_succeeds_go_on(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    attempts: list[int] = []

    def flaky(user_id: int) -> str:
        """Look up a user's name by id."""
        attempts.append(user_id)
        if user_id == 7 and attempts.count(7) == 1:
            raise ConnectionError("try again")
        if user_id != 7:
            raise KeyError(f"no user {user_id}")
        return "Ada"

    flaky.__name__ = "lookup_user"
    server.extend(
        [ToolCalls([Call("lookup_user", {"user_id": n})]) for n in (1, 2, 3, 7, 7, 7)]
        + [Text("User 7 is Ada.")]
    )
    agent = Agent(instructions="You look up users.", llm=llm, tools=[flaky], max_iterations=10)

    assert agent.chat("Who is user 7?") == "User 7 is Ada."

    assert attempts == [1, 2, 3, 7, 7, 7]
    assert_tool_use_never_ended(server, 7)


def test_a_react_turn_says_so_in_the_observation_and_its_last_round_takes_only_text(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    call = Text(json.dumps({"name": "lookup_user", "arguments": {"user_id": 42}}))
    server.extend([call, call, Text("User 42 could not be found.")])
    agent = Agent(instructions="You look up users.", llm=react(llm), tools=[lookup_user])

    assert agent.chat("Who is user 42?") == "User 42 could not be found."

    final = server.requests[-1]
    assert len(server.requests) == MAX_SAME_FAILURES + 1
    observation = final.messages[-1]
    assert observation["role"] == "user"
    assert observation["content"].startswith("Observation from lookup_user (error):")
    assert observation["content"].endswith(STOP_CALLING)
    assert final.body.get("grammar") == text_grammar()


def get_time(city: str) -> str:
    """The current local time in a city."""
    return "14:05"


def slow_population(city: str) -> str:
    """Look up the population of a city."""
    time.sleep(0.5)
    return "1 million"


def population_agent(
    server: LocalLLMServer,
    llm: dict[str, Any],
    tool: Callable[[str], str],
    cities: list[str],
    answer: str,
    timeout: float,
) -> Agent:
    """An agent with ``tool`` (timing out after ``timeout``) whose model calls it for
    each of ``cities`` in turn, then answers ``answer``."""
    name = tool.__name__
    server.extend([ToolCalls([Call(name, {"city": c})]) for c in cities] + [Text(answer)])
    return Agent(
        instructions="You look up populations.",
        llm=llm,
        tools=[tool],
        execution=ExecutionConfig(tool_timeout=timeout),
    )


@pytest.mark.parametrize("way", WAYS)
def test_a_tool_timing_out_twice_with_any_arguments_ends_tool_use(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    """Each try of a tool that times out costs its whole timeout: what Qwen2.5-0.5B
    did, calling it for one city after another, ends at the second timeout."""
    agent = population_agent(
        server, llm, slow_population, ["Lyon", "Nice"], "The population lookup timed out.", 0.05
    )

    answer = run(agent, way, "How many people live in Lyon?")

    assert answer == "The population lookup timed out."
    result = completed(agent)
    assert [c.arguments for c in result.tool_calls] == [{"city": "Lyon"}, {"city": "Nice"}]
    assert len(server.requests) == MAX_TOOL_TIMEOUTS + 1
    final = server.requests[-1]
    first, second = (m["content"] for m in final.messages if m.get("role") == "tool")
    assert "timed out" in first and TIMING_OUT not in first
    assert second.endswith(TIMING_OUT)
    assert final.body.get("tool_choice") == "none"


def test_a_tool_failing_other_ways_with_other_arguments_is_not_stopped_by_timeouts(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    """Only timeouts count across arguments: one timeout, then errors for other
    arguments, then a success, runs as usual."""
    calls: list[str] = []

    def population(city: str) -> str:
        """Look up the population of a city."""
        calls.append(city)
        if city == "Lyon":
            time.sleep(0.5)
        if city in ("Lyon", "Nice"):
            raise KeyError(city)
        return "2 million"

    cities = ["Lyon", "Nice", "Paris"]
    agent = population_agent(server, llm, population, cities, "Paris has 2 million.", 0.1)

    assert agent.chat("Population of Paris?") == "Paris has 2 million."
    assert calls == cities
    assert_tool_use_never_ended(server, 4)
    assert "timed out" in str(server.requests[1].messages)


@pytest.mark.parametrize("way", WAYS)
def test_the_same_result_three_times_running_ends_tool_use(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    same = ToolCalls([Call("get_time", {"city": "Tokyo"})])
    server.extend([same] * MAX_SAME_RESULTS + [Text("It is 14:05 in Tokyo.")])
    agent = Agent(instructions="You tell the time.", llm=llm, tools=[get_time])

    answer = run(agent, way, "What time is it in Tokyo?")

    assert answer == "It is 14:05 in Tokyo."
    result = completed(agent)
    assert [c.result for c in result.tool_calls] == ["14:05"] * MAX_SAME_RESULTS
    assert len(server.requests) == MAX_SAME_RESULTS + 1
    final = server.requests[-1]
    results = [m["content"] for m in final.messages if m.get("role") == "tool"]
    assert results[:-1] == ["14:05"] * (MAX_SAME_RESULTS - 1)
    assert results[-1] == f"14:05\n{SAME_RESULT}"
    assert final.body.get("tool_choice") == "none"
    assert all(r.body.get("tool_choice") is None for r in server.requests[:-1])


def test_a_call_whose_result_changes_goes_on(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    polls: list[str] = []

    def job_status(job_id: int) -> str:
        """The status of a job."""
        polls.append(f"running, step {len(polls) + 1}")
        return polls[-1] if len(polls) < 5 else "done"

    same = ToolCalls([Call("job_status", {"job_id": 9})])
    server.extend([same] * 5 + [Text("Job 9 is done.")])
    agent = Agent(instructions="You watch jobs.", llm=llm, tools=[job_status], max_iterations=10)

    assert agent.chat("Wait for job 9.") == "Job 9 is done."

    assert len(polls) == 5
    assert_tool_use_never_ended(server, 6)


def test_a_react_turn_that_repeats_a_call_gets_only_text_in_its_last_round(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    call = Text(json.dumps({"name": "get_time", "arguments": {"city": "Tokyo"}}))
    server.extend([call] * MAX_SAME_RESULTS + [Text("It is 14:05.")])
    agent = Agent(instructions="You tell the time.", llm=react(llm), tools=[get_time])

    assert agent.chat("What time is it in Tokyo?") == "It is 14:05."

    final = server.requests[-1]
    assert len(server.requests) == MAX_SAME_RESULTS + 1
    observations = [m["content"] for m in final.messages if m["role"] == "user"][1:]
    assert len(observations) == MAX_SAME_RESULTS
    assert all(SAME_RESULT not in text for text in observations[:-1])
    assert observations[-1] == f"Observation from get_time:\n14:05\n{SAME_RESULT}"
    assert final.body.get("grammar") == text_grammar()
