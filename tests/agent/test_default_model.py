"""The model an agent without ``llm=`` uses, chosen from the provider key that is set."""

from __future__ import annotations

import pytest
from cli_support import PROVIDER_VARIABLES

from praisonlike import Agent

KEYS = [name for name in PROVIDER_VARIABLES if name.endswith("_API_KEY")]
KEYS.remove("OPENROUTER_API_KEY")  # its models are not in the bundled map at all


@pytest.mark.parametrize("key", KEYS)
def test_the_model_a_provider_key_picks_is_one_litellms_map_knows(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So its context window and price are known: no unknown-window warning and no
    unknown cost on the first turn of a user who only set that key. (OpenRouter's
    models are not in the bundled map at all, so its default is left out.)"""
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(key, "sk-test-key-not-used")

    features = Agent(instructions="You answer.").features()

    assert features.known
    assert features.context_window is not None and features.context_window >= 32_000
