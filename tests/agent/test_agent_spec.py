"""AgentSpec: Agent(...)'s configuration, validated once, immutable; replace() validates."""

from __future__ import annotations

import dataclasses

import pytest

from praisonlike import Agent, ContextConfig, ExecutionConfig, LLMConfig
from praisonlike.agent.spec import AgentSpec
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.memory.config import MemoryConfig


def test_build_normalises_the_arguments() -> None:
    spec = AgentSpec.build(
        instructions="x",
        model="gpt-4o-mini",
        fallback_models=["a/b"],
        context=False,
        rules="rules.md",
        session_id="s",
        hooks={},
    )
    assert spec.llm_config == LLMConfig(model="gpt-4o-mini")
    assert spec.fallback_models == ("a/b",)
    assert spec.context_config is None
    assert spec.rules == ("rules.md",)
    assert spec.memory_config == MemoryConfig()
    assert spec.execution == ExecutionConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.hooks["x"] = 1  # type: ignore[index]


@pytest.mark.parametrize(
    ("arguments", "error", "names"),
    [
        ({"instructions": "x", "max_iterations": 0}, ConfigurationError, "max_iterations"),
        ({"instructions": "x", "execution": {}}, ConfigurationTypeError, "execution"),
        ({"instructions": "x", "memory": True}, ConfigurationError, "memory"),
        ({"instructions": "x", "tools": "a"}, ConfigurationTypeError, "tools"),
        ({}, ConfigurationError, "at least one of role"),
    ],
)
def test_build_raises_what_agent_raises(
    arguments: dict[str, object], error: type[Exception], names: str
) -> None:
    with pytest.raises(error, match=names) as built:
        AgentSpec.build(**arguments)  # type: ignore[arg-type]
    with pytest.raises(error) as constructed:
        Agent(**arguments)  # type: ignore[arg-type]
    assert str(built.value) == str(constructed.value)


def test_replace_validates_the_changed_fields_and_the_rules_between_them() -> None:
    spec = AgentSpec.build(instructions="x")
    assert spec.replace(max_iterations=3).max_iterations == 3
    assert spec.replace(context_config=None).context_config is None
    with pytest.raises(ConfigurationError, match=r"Agent\(max_iterations=...\)"):
        spec.replace(max_iterations=0)
    with pytest.raises(ConfigurationTypeError, match="execution"):
        spec.replace(execution={"timeout": 1})
    with pytest.raises(ConfigurationError, match="at least one of role"):
        spec.replace(instructions=None)
    with pytest.raises(ConfigurationError, match="session_id"):
        spec.replace(memory_config=MemoryConfig())
    with pytest.raises(ConfigurationTypeError, match="no field"):
        spec.replace(colour="red")
    assert spec.max_iterations == 10


def test_agent_attributes_read_the_spec_and_assignment_replaces_it() -> None:
    agent = Agent(instructions="x", llm="gpt-4o-mini", max_iterations=4)
    first = agent.spec
    assert agent.max_iterations == 4 and agent.llm_config == first.llm_config
    limits = ExecutionConfig(max_retries=1)
    agent.execution = limits
    assert agent.execution is limits and agent.spec.execution is limits
    assert first.execution == ExecutionConfig()
    with pytest.raises(ConfigurationError, match="max_iterations"):
        agent.max_iterations = 0
    assert agent.max_iterations == 4
    agent.context_config = ContextConfig(keep_last_turns=2)
    assert agent.spec.context_config == ContextConfig(keep_last_turns=2)
