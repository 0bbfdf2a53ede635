"""The local model's call defaults: a token cap and a per-call timeout, both overridable.

Checked on the configuration a local agent's calls are built from and on the
LiteLLM arguments built from it; no model is started.
"""

from __future__ import annotations

from praisonlike.loop.commands import CallModel
from praisonlike.models.codec import completion_kwargs
from praisonlike.models.config import LLMConfig
from praisonlike.models.local.server import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_REQUEST_TIMEOUT,
    with_local_defaults,
)

ENDPOINT = ("openai/qwen2.5-coder-0.5b", "http://127.0.0.1:9/v1")


def kwargs_for(config: LLMConfig, timeout: float | None = None) -> dict[str, object]:
    command = CallModel(
        llm=config,
        messages=[{"role": "user", "content": "hi"}],
        tools=None,
        stream=False,
        iteration=1,
        timeout=timeout,
    )
    return completion_kwargs(command)


def test_an_unset_local_call_gets_a_token_cap_and_a_timeout() -> None:
    config = with_local_defaults(LLMConfig(model="local"), *ENDPOINT)
    assert (config.model, config.api_base) == ENDPOINT
    assert config.temperature == 0.0
    sent = kwargs_for(config)
    assert sent["max_tokens"] == DEFAULT_MAX_TOKENS == 512
    assert sent["timeout"] == DEFAULT_REQUEST_TIMEOUT


def test_what_the_caller_sets_is_kept() -> None:
    config = with_local_defaults(
        LLMConfig(model="local", max_tokens=2048, timeout=600.0, temperature=0.7), *ENDPOINT
    )
    sent = kwargs_for(config)
    assert (sent["max_tokens"], sent["timeout"], sent["temperature"]) == (2048, 600.0, 0.7)


def test_an_execution_timeout_bounds_the_call_instead() -> None:
    config = with_local_defaults(LLMConfig(model="local"), *ENDPOINT)
    assert kwargs_for(config, timeout=30.0)["timeout"] == 30.0
