"""Every turn ends with a termination reason, on its RunResult and its run_finished event."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from praisonlike import Agent, CancelToken, ExecutionConfig, TerminationReason
from praisonlike.errors import (
    BadRequestError,
    BudgetExceededError,
    PraisonlikeError,
    RunCancelled,
    RunTimeout,
)
from praisonlike.events import ErrorEvent, RunFinished
from praisonlike.testing import Call, Delay, Fault, LocalLLMServer, Text, ToolCalls
from praisonlike.testing.script import Response


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@dataclass(frozen=True)
class Scenario:
    script: list[Response]
    error: type[PraisonlikeError] | None = None
    agent: dict[str, Any] = field(default_factory=dict)
    execution: dict[str, Any] = field(default_factory=dict)
    cancelled: bool = False


R = TerminationReason
SCENARIOS = {
    R.COMPLETED: Scenario([Text("done")]),
    R.MAX_ITERATIONS: Scenario(
        [ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("final answer")],
        agent={"max_iterations": 1},
    ),
    R.BUDGET_EXCEEDED: Scenario(
        [Text("never sent")], BudgetExceededError, execution={"max_tokens_per_run": 5}
    ),
    R.TIMEOUT: Scenario(
        [Delay(30, Text("too late"))], RunTimeout, execution={"max_execution_time": 0.5}
    ),
    R.CANCELLED: Scenario([Text("never sent")], RunCancelled, cancelled=True),
    R.ERROR: Scenario([Fault.bad_request("no such parameter")], BadRequestError),
}


def make_agent(server: LocalLLMServer, scenario: Scenario) -> Agent:
    return Agent(
        instructions="You add numbers.",
        llm=server.llm_config(),
        tools=[add],
        execution=ExecutionConfig(retry_base=0.01, **scenario.execution),
        **scenario.agent,
    )


def token_for(scenario: Scenario) -> CancelToken:
    token = CancelToken()
    if scenario.cancelled:
        token.cancel()
    return token


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("reason", SCENARIOS.keys(), ids=[r.value for r in SCENARIOS])
def test_run_finished_carries_the_termination_reason(
    server: LocalLLMServer, reason: TerminationReason, mode: str
) -> None:
    scenario = SCENARIOS[reason]
    server.extend(scenario.script)
    agent = make_agent(server, scenario)
    token = token_for(scenario)

    events: list[Any] = []
    raised: BaseException | None = None
    try:
        if mode == "sync":
            for event in agent.stream_events("go", stream=False, cancel_token=token):
                events.append(event)
        else:

            async def consume() -> None:
                async for event in agent.astream_events("go", cancel_token=token):
                    events.append(event)

            asyncio.run(consume())
    except PraisonlikeError as exc:
        raised = exc

    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.termination_reason is reason
    assert finished.result is not None
    assert finished.result.termination_reason is reason
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is reason
    if scenario.error is None:
        assert raised is None
        assert finished.result.error is None
        assert finished.result.output
    else:
        assert isinstance(raised, scenario.error)
        assert finished.result.error
        assert isinstance(events[-2], ErrorEvent)
        assert agent.chat_history == []


@pytest.mark.parametrize("reason", SCENARIOS.keys(), ids=[r.value for r in SCENARIOS])
def test_chat_raises_or_returns_per_reason(
    server: LocalLLMServer, reason: TerminationReason
) -> None:
    scenario = SCENARIOS[reason]
    server.extend(scenario.script)
    agent = make_agent(server, scenario)

    if scenario.error is None:
        assert agent.chat("go", cancel_token=token_for(scenario))
    else:
        with pytest.raises(scenario.error):
            agent.chat("go", cancel_token=token_for(scenario))

    assert agent.last_result is not None
    assert agent.last_result.termination_reason is reason
