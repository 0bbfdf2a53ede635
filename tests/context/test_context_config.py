from __future__ import annotations

import dataclasses

import pytest

from praisonlike.context import ContextConfig
from praisonlike.errors import ConfigurationError


def test_defaults_are_valid_and_documented_values() -> None:
    config = ContextConfig()
    assert (config.trigger, config.target, config.hard_cap) == (0.90, 0.70, 0.95)
    assert config.strategy == "drop_oldest_tools"
    assert config.keep_last_turns == 5
    assert config.tool_output_limit == 16000
    assert config.reserve_output_tokens == 1024
    assert config.max_context_tokens is None and config.summary_model is None


def test_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ContextConfig().trigger = 0.5


@pytest.mark.parametrize(
    ("fields", "mentions"),
    [
        ({"target": 0.0}, "target"),
        ({"target": 0.9, "trigger": 0.9}, "target < trigger"),
        ({"trigger": 0.97, "hard_cap": 0.95}, "trigger <= hard_cap"),
        ({"hard_cap": 1.5}, "hard_cap <= 1"),
        ({"trigger": "high"}, "trigger must be numbers"),
        ({"keep_last_turns": 0}, "keep_last_turns"),
        ({"strategy": "magic"}, "strategy must be one of"),
        ({"tool_output_limit": 10}, "tool_output_limit"),
        ({"max_context_tokens": 0}, "max_context_tokens"),
        ({"reserve_output_tokens": -1}, "reserve_output_tokens"),
        ({"max_context_tokens": 1000, "reserve_output_tokens": 1000}, "must be smaller"),
        ({"summary_model": "  "}, "summary_model"),
    ],
)
def test_invalid_values_raise_value_error_naming_the_field(
    fields: dict[str, object], mentions: str
) -> None:
    with pytest.raises(ValueError, match="invalid ContextConfig") as caught:
        ContextConfig(**fields)
    assert isinstance(caught.value, ConfigurationError)
    assert mentions in str(caught.value)


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ConfigurationError) as caught:
        ContextConfig(keep_last_turns=0, tool_output_limit=1, strategy="x")
    message = str(caught.value)
    assert "keep_last_turns" in message and "tool_output_limit" in message
    assert "strategy" in message


def test_edge_values_that_are_allowed() -> None:
    config = ContextConfig(target=0.1, trigger=1.0, hard_cap=1.0, max_context_tokens=2,
                           reserve_output_tokens=1, keep_last_turns=1)
    assert config.hard_cap == 1.0
