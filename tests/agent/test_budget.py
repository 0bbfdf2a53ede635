"""Budgets: ``max_budget`` (USD, on the usage tracker) and ``max_tokens_per_run``.

The gate runs before every call: when the least a call can cost would pass a
budget, ``"stop"`` refuses it before anything is sent, ``"warn"`` emits one
``budget_warning`` per run and goes on, and a callable ``(spent, limit) ->
bool`` decides (True: go on).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, LLMConfig, TerminationReason, UsageTracker
from praisonlike.errors import BudgetExceededError
from praisonlike.events import BudgetWarning, LLMRequest, RunFinished
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls
from praisonlike.testing import ReportedUsage as ScriptedUsage

PRICES = {"test-model": {"input": 1.0, "output": 2.0}}
FIRST_TURN_COST = (1000 * 1.0 + 100 * 2.0) / 1_000_000  # 0.0012
# Above the first turn's cost, but below it plus the least any further call costs
# (the 16 reserved output tokens alone cost 0.000032).
JUST_ENOUGH = 0.00121
WAYS = ("chat", "achat", "iter_stream")


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_agent(server: LocalLLMServer, **execution: Any) -> Agent:
    prices = execution.pop("model_prices", PRICES)
    tracker = execution.pop("usage_tracker", None)
    llm = execution.pop("llm", server.llm_config())
    return Agent(
        instructions="You add numbers.",
        llm=llm,
        tools=[add],
        model_prices=prices,
        usage_tracker=tracker,
        execution=ExecutionConfig(**execution),
    )


def costly_first_turn(server: LocalLLMServer, agent: Agent) -> None:
    server.add(Text("first", usage=ScriptedUsage(1000, 100)))
    assert agent.chat("first") == "first"
    assert agent.total_cost == pytest.approx(FIRST_TURN_COST)


def run_turn(agent: Agent, way: str, prompt: str = "second") -> str:
    if way == "chat":
        return str(agent.chat(prompt))
    if way == "achat":
        return str(asyncio.run(agent.achat(prompt)))
    return "".join(agent.iter_stream(prompt))


def events_of(agent: Agent, prompt: str = "second") -> list[Any]:
    return list(agent.stream_events(prompt, stream=False))


@pytest.mark.parametrize("way", WAYS)
def test_stop_refuses_before_sending(server: LocalLLMServer, way: str) -> None:
    agent = make_agent(server, max_budget=JUST_ENOUGH)
    costly_first_turn(server, agent)
    before = agent.chat_history
    server.add(Text("never sent"))

    with pytest.raises(BudgetExceededError) as raised:
        run_turn(agent, way)

    assert server.request_count == 1
    assert server.remaining == 1
    assert raised.value.limit == JUST_ENOUGH
    assert raised.value.spent is not None and raised.value.spent > JUST_ENOUGH
    assert agent.chat_history == before
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.BUDGET_EXCEEDED


def test_stop_refuses_the_next_tool_round(server: LocalLLMServer) -> None:
    server.extend(
        [ToolCalls([Call("add", {"a": 1, "b": 2})], usage=ScriptedUsage(1000, 100)), Text("x")]
    )
    agent = make_agent(server, max_budget=JUST_ENOUGH)

    with pytest.raises(BudgetExceededError):
        agent.chat("add")

    assert server.request_count == 1
    assert agent.chat_history == []
    result = agent.last_result
    assert result is not None
    assert [c.name for c in result.tool_calls] == ["add"]
    assert result.usage.requests == 1


def test_the_call_that_passes_the_budget_ends_the_turn(server: LocalLLMServer) -> None:
    agent = make_agent(server, max_budget=0.001)
    server.add(Text("paid for", usage=ScriptedUsage(1000, 100)))

    events: list[Any] = []
    with pytest.raises(BudgetExceededError):
        events.extend(agent.stream_events("first", stream=False))

    assert server.request_count == 1
    assert agent.chat_history == []
    assert agent.total_cost == pytest.approx(FIRST_TURN_COST)  # it was spent and is counted


def test_warn_emits_one_budget_warning_and_goes_on(server: LocalLLMServer) -> None:
    agent = make_agent(server, max_budget=JUST_ENOUGH, on_budget_exceeded="warn")
    costly_first_turn(server, agent)
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")])

    events = events_of(agent)

    warnings = [e for e in events if isinstance(e, BudgetWarning)]
    assert len(warnings) == 1
    assert warnings[0].limit == JUST_ENOUGH
    assert warnings[0].spent > JUST_ENOUGH
    kinds = [type(e) for e in events]
    assert kinds.index(BudgetWarning) < kinds.index(LLMRequest)
    assert server.request_count == 3
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.termination_reason is TerminationReason.COMPLETED


@pytest.mark.parametrize("allow", [True, False])
def test_a_callable_decides(server: LocalLLMServer, allow: bool) -> None:
    seen: list[tuple[float, float]] = []

    def decide(spent: float, limit: float) -> bool:
        seen.append((spent, limit))
        return allow

    agent = make_agent(server, max_budget=JUST_ENOUGH, on_budget_exceeded=decide)
    costly_first_turn(server, agent)
    assert seen == []  # not asked while within the budget
    server.add(Text("second answer"))

    if allow:
        assert agent.chat("second") == "second answer"
        assert server.request_count == 2
    else:
        with pytest.raises(BudgetExceededError):
            agent.chat("second")
        assert server.request_count == 1
    spent, limit = seen[0]
    assert limit == JUST_ENOUGH
    assert spent > FIRST_TURN_COST


def test_max_tokens_of_the_call_count_toward_the_least_cost(server: LocalLLMServer) -> None:
    llm = LLMConfig.coerce({**server.llm_config(), "max_tokens": 10_000})
    agent = make_agent(server, llm=llm, max_budget=0.01)  # 10k output tokens cost 0.02
    server.add(Text("never sent"))

    with pytest.raises(BudgetExceededError):
        agent.chat("hi")

    assert server.request_count == 0


def test_max_budget_applies_to_a_shared_tracker(server: LocalLLMServer) -> None:
    shared = UsageTracker()
    spender = make_agent(server, usage_tracker=shared, max_budget=JUST_ENOUGH)
    other = make_agent(server, usage_tracker=shared, max_budget=JUST_ENOUGH)
    costly_first_turn(server, spender)

    with pytest.raises(BudgetExceededError):
        other.chat("hi")

    assert server.request_count == 1


def test_max_tokens_per_run_refuses_the_first_call(server: LocalLLMServer) -> None:
    agent = make_agent(server, max_tokens_per_run=5)
    server.add(Text("never sent"))

    with pytest.raises(BudgetExceededError) as raised:
        agent.chat("a prompt that is longer than five tokens once the system prompt is in")

    assert server.request_count == 0
    assert raised.value.limit == 5
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.BUDGET_EXCEEDED


def tool_round_of_310_tokens() -> list[Any]:
    return [
        ToolCalls([Call("add", {"a": 1, "b": 2})], usage=ScriptedUsage(300, 10)),
        Text("3", usage=ScriptedUsage(300, 1)),
    ]


def test_max_tokens_per_run_refuses_the_next_round(server: LocalLLMServer) -> None:
    # round 1 (a short prompt, far below 350 tokens) is sent and uses 310 tokens;
    # round 2 needs its prompt on top of that: refused before sending
    server.extend(tool_round_of_310_tokens())
    agent = make_agent(server, max_tokens_per_run=350)

    with pytest.raises(BudgetExceededError) as raised:
        agent.chat("add")

    assert server.request_count == 1
    assert raised.value.limit == 350
    assert raised.value.spent is not None and raised.value.spent > 350


def test_max_tokens_per_run_is_per_run(server: LocalLLMServer) -> None:
    agent = make_agent(server, max_tokens_per_run=350)
    for turn in range(3):
        server.add(Text(f"answer {turn}", usage=ScriptedUsage(300, 10)))
        assert agent.chat(f"q{turn}") == f"answer {turn}"
    assert agent.usage.total_tokens == 3 * 310


def test_max_tokens_per_run_warn_goes_on(server: LocalLLMServer) -> None:
    server.extend(tool_round_of_310_tokens())
    agent = make_agent(server, max_tokens_per_run=350, on_budget_exceeded="warn")

    events = events_of(agent, "add")

    assert server.request_count == 2
    assert len([e for e in events if isinstance(e, BudgetWarning)]) == 1
    assert isinstance(events[-1], RunFinished)
    assert events[-1].termination_reason is TerminationReason.COMPLETED


@pytest.mark.parametrize("action", ["stop", "warn", "callable"])
def test_unknown_price_cannot_be_enforced_and_warns_once(
    server: LocalLLMServer, action: str
) -> None:
    asked: list[tuple[float, float]] = []

    def refuse(spent: float, limit: float) -> bool:
        asked.append((spent, limit))
        return False

    on_exceeded: Any = refuse if action == "callable" else action
    agent = make_agent(
        server, model_prices=None, max_budget=0.000001, on_budget_exceeded=on_exceeded
    )
    server.extend(
        [
            ToolCalls([Call("add", {"a": 1, "b": 2})], usage=ScriptedUsage(10_000, 10)),
            Text("3"),
        ]
    )

    events = events_of(agent, "add")

    warnings = [e for e in events if isinstance(e, BudgetWarning)]
    assert len(warnings) == 1
    assert "unknown" in warnings[0].message
    assert server.request_count == 2
    assert asked == []  # an unknown cost is not "spent": the callable is never asked
    assert agent.total_cost is None
    assert isinstance(events[-1], RunFinished)
    assert events[-1].termination_reason is TerminationReason.COMPLETED
