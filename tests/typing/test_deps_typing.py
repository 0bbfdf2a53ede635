"""The typing checks of ``deps_typing.py`` also hold at run time (no model is called)."""

from __future__ import annotations

from deps_typing import (
    Shop,
    agent_with_deps,
    agent_without_deps,
    price,
    run_context_of,
)


def test_deps_reach_the_agent_and_a_run_context() -> None:
    agent = agent_with_deps()
    assert agent.deps == Shop("EUR")
    assert agent.tools == ["price"]
    assert agent_without_deps().deps is None
    assert price(run_context_of(agent), "tea") == "tea: 3 EUR"
