"""The check before a model's first request, through the public API.

A model LiteLLM cannot route raises ``UnknownModelError`` and a missing key
``MissingCredentialsError`` before anything is sent (the guard's refusal of a
remote endpoint comes after them); the failed turn leaves the history as it was.
Each model of a turn, fallbacks included, is checked before it is tried.
"""

from __future__ import annotations

import asyncio
import os
import uuid
import warnings
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, LLMConfig
from praisonlike.context.window import ContextWindowUnknownWarning
from praisonlike.errors import (
    AuthenticationError,
    ConfigurationError,
    MissingCredentialsError,
    ModelNotFoundError,
    ModelRequestBlockedError,
    ServiceUnavailableError,
    UnknownModelError,
)
from praisonlike.testing import Fault, LocalLLMServer, Text

WAYS = ("chat", "achat", "iter_stream")
REMOTE = "https://api.example.invalid/v1"


def run_turn(agent: Agent, way: str) -> str:
    if way == "chat":
        return str(agent.chat("second question"))
    if way == "achat":
        return str(asyncio.run(agent.achat("second question")))
    return "".join(agent.iter_stream("second question"))


def primed(server: LocalLLMServer, llm: dict[str, Any] | str, **kwargs: Any) -> Agent:
    """An agent for ``llm`` that carries a conversation held with the local server."""
    local = Agent(instructions="You answer.", llm=server.llm_config())
    server.add(Text("first answer"))
    assert local.chat("first question") == "first answer"
    server.reset()
    agent = Agent(instructions="You answer.", llm=llm, **kwargs)
    agent.load_state(local.save_state())
    return agent


# -- missing credentials ---------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_a_missing_key_is_named_before_any_request(server: LocalLLMServer, way: str) -> None:
    assert "OPENAI_API_KEY" not in os.environ
    agent = primed(server, "gpt-4o-mini")
    before = agent.chat_history

    with pytest.raises(MissingCredentialsError) as raised:
        run_turn(agent, way)

    error = raised.value
    assert isinstance(error, AuthenticationError) and isinstance(error, ConfigurationError)
    assert "OPENAI_API_KEY" in str(error)
    assert error.missing_variables == ("OPENAI_API_KEY",)
    assert error.retried == 0
    assert error.hint
    assert server.request_count == 0
    assert agent.chat_history == before


def test_either_of_two_variables_is_named(server: LocalLLMServer) -> None:
    agent = primed(server, "gemini/gemini-1.5-flash")

    with pytest.raises(MissingCredentialsError) as raised:
        agent.chat("hello")

    assert set(raised.value.missing_variables) == {"GEMINI_API_KEY", "GOOGLE_API_KEY"}
    assert "GEMINI_API_KEY" in str(raised.value)


def test_setting_or_removing_the_variable_counts_at_the_next_call(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = primed(server, "anthropic/claude-haiku-4-5")
    with pytest.raises(MissingCredentialsError, match="ANTHROPIC_API_KEY"):
        agent.chat("hello")

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")

    # past the check, the suite's network guard is what stops the call now
    with pytest.raises(ModelRequestBlockedError):
        agent.chat("hello")

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(MissingCredentialsError):
        agent.chat("hello")


@pytest.mark.parametrize(
    "llm",
    [
        {"model": "gpt-4o-mini", "api_key": "sk-test"},
        {"model": "gpt-4o-mini", "api_base": REMOTE},
        {"model": "bedrock/anthropic.claude-v2"},
    ],
    ids=["api_key", "api_base", "other-auth"],
)
def test_a_key_an_endpoint_or_other_auth_passes_the_check(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = primed(server, llm)

    with pytest.raises(ModelRequestBlockedError):
        agent.chat("hello")


@pytest.mark.parametrize(
    ("model", "variable"),
    [("replicate/meta/llama-3-8b", "REPLICATE_API_TOKEN"), ("huggingface/org/m", "HF_TOKEN")],
)
def test_a_variable_litellm_also_reads_passes_the_check(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, model: str, variable: str
) -> None:
    agent = primed(server, model)
    with pytest.raises(MissingCredentialsError):
        agent.chat("hello")

    monkeypatch.setenv(variable, "token-value")
    with pytest.raises(ModelRequestBlockedError):
        agent.chat("hello")


# -- unknown models --------------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_a_model_litellm_cannot_route_is_refused_at_once(server: LocalLLMServer, way: str) -> None:
    agent = primed(server, {**server.llm_config(), "model": "gpt-9-turbo"})
    before = agent.chat_history

    with pytest.raises(UnknownModelError) as raised:
        run_turn(agent, way)

    error = raised.value
    assert isinstance(error, ModelNotFoundError) and isinstance(error, ConfigurationError)
    assert "openai/gpt-4-turbo" in error.suggestions
    assert "provider/model" in str(error) and "praisonlike models info" in str(error)
    assert error.hint
    assert server.request_count == 0
    assert agent.chat_history == before


@pytest.mark.parametrize("way", WAYS)
def test_a_model_litellm_cannot_route_warns_of_nothing_else(
    server: LocalLLMServer, way: str
) -> None:
    """Its unknown context window is not worth a warning before the error that it
    cannot be used; a routable model of unknown window still gets one."""
    unroutable = f"gpt-4o-mnii-{uuid.uuid4().hex[:8]}"  # never warned of in this process
    agent = Agent(instructions="You answer.", llm={**server.llm_config(), "model": unroutable})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(UnknownModelError):
            run_turn(agent, way)
    assert [str(w.message) for w in caught] == []

    routable = f"openai/my-own-model-{uuid.uuid4().hex[:8]}"
    server.add(Text("fine"))
    agent = Agent(instructions="You answer.", llm={**server.llm_config(), "model": routable})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert run_turn(agent, way) == "fine"
    [warning] = caught
    assert warning.category is ContextWindowUnknownWarning
    assert routable in str(warning.message)
    assert warning.filename == __file__  # shown at the application's call, not inside praisonlike


@pytest.mark.parametrize(
    ("model", "says", "suggested"),
    [
        ("nosuchprovider/foo", "no provider 'nosuchprovider'", None),
        ("opnai/gpt-4o-mini", "no provider 'opnai'", "openai/gpt-4o-mini"),
    ],
)
def test_an_unknown_provider_is_refused_with_a_suggestion(
    server: LocalLLMServer, model: str, says: str, suggested: str | None
) -> None:
    agent = Agent(instructions="You answer.", llm={**server.llm_config(), "model": model})

    with pytest.raises(UnknownModelError) as raised:
        agent.chat("hello")

    assert says in str(raised.value)
    if suggested is not None:
        assert suggested in raised.value.suggestions
    assert server.request_count == 0


def test_any_name_on_a_known_provider_is_sent(server: LocalLLMServer) -> None:
    """Rule: a routable model missing from LiteLLM's map is the provider's to judge."""
    server.add(Text("served"))
    agent = Agent(instructions="You answer.", llm=server.llm_config("gpt-9-turbo"))

    assert agent.chat("hello") == "served"
    assert [r.model for r in server.requests] == ["gpt-9-turbo"]


# -- fallbacks ---------------------------------------------------------------------------


def test_a_fallback_without_its_key_is_skipped_for_the_next(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        fallback_models=["anthropic/claude-haiku-4-5", "openai/other-model"],
        execution=ExecutionConfig(max_retries=0),
    )
    server.extend([Fault.unavailable(), Text("from the second fallback")])

    assert agent.chat("hello") == "from the second fallback"

    assert [r.model for r in server.requests] == ["test-model", "other-model"]
    assert agent.last_result is not None
    assert agent.last_result.fallbacks == ["anthropic/claude-haiku-4-5", "openai/other-model"]


@pytest.mark.parametrize("entry", ["chat", "achat"])
def test_an_unroutable_fallback_fails_the_turn_before_any_request(
    server: LocalLLMServer, entry: str
) -> None:
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        fallback_models=["openai/other-model", "gpt-4o-mnii"],
    )
    configured = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        fallback_models=[LLMConfig(model="claude-3-5-sonet", api_key="sk-ant-x")],
    )
    server.default = Text("never sent")

    with pytest.raises(UnknownModelError) as raised:
        if entry == "achat":
            asyncio.run(agent.achat("hello"))
        else:
            agent.chat("hello")

    assert str(raised.value).startswith("fallback_models: unknown model 'gpt-4o-mnii'")
    assert "openai/gpt-4o-mini" in raised.value.suggestions
    assert raised.value.model == "gpt-4o-mnii"
    with pytest.raises(
        UnknownModelError, match="fallback_models: unknown model 'claude-3-5-sonet'"
    ):
        configured.chat("hello")
    assert server.request_count == 0
    assert agent.chat_history == [] and configured.chat_history == []


def test_a_primary_without_its_key_falls_back_without_a_request(server: LocalLLMServer) -> None:
    agent = Agent(
        instructions="You answer.",
        llm="anthropic/claude-haiku-4-5",
        fallback_models=[server.llm_config("other-model")],
    )
    server.add(Text("from the fallback"))

    events = list(agent.stream_events("hello"))

    [fallback] = [e for e in events if e.type == "fallback"]
    assert fallback.reason == "authentication"
    assert [r.model for r in server.requests] == ["other-model"]
    assert agent.last_result is not None
    assert agent.last_result.output == "from the fallback"


# -- a missing key reported by the provider ----------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "Missing credentials. Please pass an `api_key`, or set the `OPENAI_API_KEY` "
        "environment variable.",
        "No API key provided.",
    ],
)
def test_a_missing_key_reported_by_the_server_is_not_retried(
    server: LocalLLMServer, message: str
) -> None:
    agent = Agent(
        instructions="You answer.",
        llm=server.llm_config(),
        execution=ExecutionConfig(max_retries=3, retry_base=0.01),
    )
    server.extend([Fault(500, message), Text("never sent")])

    with pytest.raises(AuthenticationError) as raised:
        agent.chat("hello")

    assert not isinstance(raised.value, ServiceUnavailableError)
    assert raised.value.retried == 0
    assert server.request_count == 1


# -- suggestions of praisonlike's own local models --------------------------------------


@pytest.mark.parametrize(
    ("typo", "suggested"),
    [
        ("locl", "local"),
        ("smollm2-135", "local/smollm2-135m"),
        ("locl/smollm2-135m", "local/smollm2-135m"),
    ],
)
def test_a_typo_of_a_local_model_suggests_it(typo: str, suggested: str) -> None:
    agent = Agent(instructions="You answer.", llm=typo)

    with pytest.raises(UnknownModelError) as raised:
        agent.chat("hello")

    assert suggested in raised.value.suggestions
    assert f"did you mean {suggested!r}" in str(raised.value)


# -- the network guard's variable ------------------------------------------------------


@pytest.mark.parametrize("value", ["maybe", "2", "ture"])
def test_an_unrecognised_guard_value_is_refused_even_for_the_loopback(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("PRAISONLIKE_ALLOW_MODEL_REQUESTS", value)
    agent = Agent(instructions="You answer.", llm=server.llm_config())
    server.add(Text("never sent"))

    with pytest.raises(ConfigurationError) as raised:
        agent.chat("hello")

    assert f"PRAISONLIKE_ALLOW_MODEL_REQUESTS={value!r}" in str(raised.value)
    assert "0/false/no/off" in str(raised.value) and "1/true/yes/on" in str(raised.value)
    assert server.request_count == 0
