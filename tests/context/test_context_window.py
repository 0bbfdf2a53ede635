from __future__ import annotations

import warnings

import pytest

from praisonlike.context import (
    DEFAULT_CONTEXT_WINDOW,
    ContextConfig,
    ContextManager,
    ContextWindowUnknownWarning,
    context_window,
)
from praisonlike.errors import ConfigurationError


def test_override_wins_without_looking_anything_up() -> None:
    assert context_window("no-such-model", ContextConfig(max_context_tokens=1234)) == 1234


def test_known_models_come_from_the_local_model_map() -> None:
    assert context_window("gpt-4o", ContextConfig()) == 128000
    assert context_window("openai/gpt-4o-mini", ContextConfig()) == 128000


def test_unknown_provider_prefixes_are_stripped() -> None:
    assert context_window("someproxy/openai/gpt-4o", ContextConfig()) == 128000


def test_unknown_model_defaults_with_one_warning_per_model() -> None:
    with pytest.warns(ContextWindowUnknownWarning, match="openai/praisonlike-test-unknown-a"):
        size = context_window("openai/praisonlike-test-unknown-a", ContextConfig())
    assert size == DEFAULT_CONTEXT_WINDOW
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert context_window("openai/praisonlike-test-unknown-a", ContextConfig()) == 8192
        with pytest.warns(ContextWindowUnknownWarning):
            context_window("openai/praisonlike-test-unknown-b", ContextConfig())
    assert not [w for w in caught if "unknown-a" in str(w.message)]


def test_manager_window_subtracts_the_output_reserve() -> None:
    config = ContextConfig(max_context_tokens=10_000, reserve_output_tokens=1_000)
    manager = ContextManager("gpt-4o", config)
    assert manager.window == 9_000
    budgets = manager.budgets
    assert (budgets.trigger, budgets.target, budgets.hard_cap, budgets.insurance) == (
        8_100, 6_300, 8_550, 7_200,
    )


def test_reserve_larger_than_the_model_window_is_a_configuration_error() -> None:
    with pytest.warns(ContextWindowUnknownWarning):
        manager = ContextManager(
            "openai/praisonlike-test-unknown-c", ContextConfig(reserve_output_tokens=9000)
        )
        with pytest.raises(ConfigurationError, match="no input budget"):
            _ = manager.window
