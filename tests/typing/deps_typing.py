"""Type-level checks of ``Agent[DepsT]`` and ``RunContext[DepsT]``, checked by ``make lint``'s mypy.

Each function also runs as a plain call (``test_deps_typing.py``): ``assert_type``
returns its argument at run time. A ``# type: ignore[...]`` marks a line mypy
must reject: ``warn_unused_ignores`` fails the check when it stops rejecting it.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import assert_type

from praisonlike import Agent, RunContext


@dataclass
class Shop:
    currency: str


def price(ctx: RunContext[Shop], item: str) -> str:
    """Price an item in the shop's currency."""
    return f"{item}: 3 {ctx.deps.currency}"


def agent_with_deps() -> Agent[Shop]:
    agent = Agent(instructions="Answer.", llm="openai/test-model", deps=Shop("EUR"), tools=[price])
    assert_type(agent, Agent[Shop])
    assert_type(agent.deps, Shop)
    return agent


def agent_without_deps() -> Agent[None]:
    agent = Agent(instructions="Answer.", llm="openai/test-model")
    assert_type(agent, Agent[None])
    assert_type(agent.deps, None)
    return agent


def run_context_of(agent: Agent[Shop]) -> RunContext[Shop]:
    context = RunContext(run_id="run", tool_call_id="call", deps=agent.deps, agent=agent)
    assert_type(context.deps.currency, str)
    return context


def wrong_deps_are_rejected() -> None:
    wrong: Agent[Shop] = Agent(instructions="Answer.", deps=42)  # type: ignore[arg-type]
    del wrong
