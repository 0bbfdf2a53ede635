"""Fallback models and reflect_llm as full model configurations; secrets stay with their provider.

A string fallback is called with the primary's endpoint and key only when
LiteLLM resolves it to the primary's provider; otherwise it is configured like
a primary of its own provider (environment variables), which the network guard
shows: such a call is refused for "the provider's default endpoint", never sent
to the primary's server. A dict or an ``LLMConfig`` carries its own endpoint
and key and inherits nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from praisonlike import Agent, ContextConfig, ExecutionConfig, LLMConfig
from praisonlike.errors import ConfigurationError, ModelRequestBlockedError
from praisonlike.events import CompactionEvent, ErrorEvent, FallbackEvent
from praisonlike.memory import SQLiteStore
from praisonlike.memory.config import MemoryConfig
from praisonlike.models.providers import related_config
from praisonlike.testing import Fault, LocalLLMServer, Text

CANARY = "sk-openai-canary"
ANTHROPIC = "anthropic/claude-haiku-4-5"
SATISFIED = '{"reflection": "complete and correct", "satisfactory": true}'


@pytest.fixture
def backup() -> Iterator[LocalLLMServer]:
    with LocalLLMServer() as running:
        yield running


@pytest.fixture(autouse=True)
def anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anthropic's own key, so the only thing stopping its calls is the network guard."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-its-own")


def primary(server: LocalLLMServer) -> dict[str, Any]:
    return {"model": "openai/test-model", "api_base": server.url, "api_key": CANARY}


def agent_on(server: LocalLLMServer, **kwargs: Any) -> Agent:
    return Agent(
        instructions="Answer briefly.",
        llm=primary(server),
        execution=ExecutionConfig(max_retries=0, retry_base=0.01),
        **kwargs,
    )


def bearer(server: LocalLLMServer) -> list[str | None]:
    return [r.headers.get("authorization") for r in server.requests]


def test_a_fallback_on_another_provider_gets_neither_the_primary_key_nor_its_endpoint(
    server: LocalLLMServer,
) -> None:
    server.add(Fault.unavailable())
    agent = agent_on(server, fallback_models=[ANTHROPIC])

    events: list[Any] = []
    with pytest.raises(ModelRequestBlockedError) as raised:
        for event in agent.stream_events("hello"):
            events.append(event)

    message = str(raised.value)
    assert ANTHROPIC in message and "the provider's default endpoint" in message
    assert server.url not in message
    assert [(e.from_model, e.to_model) for e in events if isinstance(e, FallbackEvent)] == [
        ("openai/test-model", ANTHROPIC)
    ]
    assert server.request_count == 1  # the primary's own call, nothing for Anthropic
    assert agent.chat_history == []


def test_same_provider_strings_inherit_and_dict_entries_bring_their_own_endpoint_and_key(
    server: LocalLLMServer, backup: LocalLLMServer
) -> None:
    server.extend([Fault.unavailable(), Fault.unavailable()])
    backup.add(Text("from the backup"))
    own = {"model": "openai/backup-model", "api_base": backup.url, "api_key": "sk-backup"}
    agent = agent_on(server, fallback_models=["gpt-4o-mini", own])

    assert agent.chat("hello") == "from the backup"

    # "gpt-4o-mini" is OpenAI to LiteLLM, as the primary: same endpoint and key.
    assert [r.model for r in server.requests] == ["test-model", "gpt-4o-mini"]
    assert bearer(server) == [f"Bearer {CANARY}"] * 2
    assert [r.model for r in backup.requests] == ["backup-model"]
    assert bearer(backup) == ["Bearer sk-backup"]
    result = agent.last_result
    assert result is not None
    assert (result.model, result.fallbacks) == (
        "openai/backup-model",
        ["gpt-4o-mini", "openai/backup-model"],
    )


def test_llmconfig_fallbacks_come_first_and_a_repeat_is_tried_once(
    server: LocalLLMServer, backup: LocalLLMServer
) -> None:
    server.add(Fault.unavailable())
    backup.extend([Fault.unavailable(), Text("second backup answer")])
    first = LLMConfig(model="openai/first", api_base=backup.url, api_key="sk-first")
    second = {"model": "openai/second", "api_base": backup.url, "api_key": "sk-second"}
    llm = LLMConfig.coerce({**primary(server), "fallback_models": [first]})
    agent = Agent(
        instructions="Answer briefly.",
        llm=llm,
        fallback_models=[first, second],
        execution=ExecutionConfig(max_retries=0),
    )

    assert agent.chat("hello") == "second backup answer"
    assert [r.model for r in backup.requests] == ["first", "second"]
    assert bearer(backup) == ["Bearer sk-first", "Bearer sk-second"]


def test_reflect_llm_as_a_config_goes_to_its_own_endpoint_with_its_own_key(
    server: LocalLLMServer, backup: LocalLLMServer
) -> None:
    server.add(Text("Paris."))
    backup.add(Text(SATISFIED))
    judge = {"model": "openai/judge", "api_base": backup.url, "api_key": "sk-judge"}
    agent = agent_on(server, self_reflect=True, reflect_llm=judge)

    assert agent.chat("Capital of France?") == "Paris."
    assert bearer(server) == [f"Bearer {CANARY}"]
    assert [r.model for r in backup.requests] == ["judge"]
    assert bearer(backup) == ["Bearer sk-judge"]


def test_reflect_llm_on_another_provider_never_reaches_the_primary_server(
    server: LocalLLMServer,
) -> None:
    server.add(Text("Paris."))
    agent = agent_on(server, self_reflect=True, reflect_llm=ANTHROPIC)

    with pytest.raises(ModelRequestBlockedError, match="the provider's default endpoint"):
        agent.chat("Capital of France?")
    assert server.request_count == 1
    assert agent.chat_history == []


def test_reflect_llm_string_on_the_primary_provider_uses_the_primary_endpoint(
    server: LocalLLMServer,
) -> None:
    server.extend([Text("Paris."), Text(SATISFIED)])
    agent = agent_on(server, self_reflect=True, reflect_llm=" openai/judge ")

    assert agent.chat("Capital of France?") == "Paris."
    assert [r.model for r in server.requests] == ["test-model", "judge"]
    assert bearer(server) == [f"Bearer {CANARY}"] * 2
    assert agent.reflect_llm == "openai/judge"


def test_summary_model_as_a_config_writes_the_summary_on_its_own_endpoint(
    server: LocalLLMServer, backup: LocalLLMServer, tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    server.add(Text("Nice to meet you, Ada."))
    backup.add(Text("The user is called Ada."))
    writer = {"model": "openai/summariser", "api_base": backup.url, "api_key": "sk-summary"}
    memory = MemoryConfig(store=store, summary_model=writer)
    with agent_on(server, session_id="s1", memory=memory) as agent:
        agent.chat("My name is Ada")
        agent.wait_for_summaries()

    assert store.get_summary("s1") == "The user is called Ada."
    assert bearer(server) == [f"Bearer {CANARY}"]
    assert [r.model for r in backup.requests] == ["summariser"]
    assert bearer(backup) == ["Bearer sk-summary"]


def test_a_summary_model_on_another_provider_is_not_sent_to_the_primary_endpoint(
    server: LocalLLMServer, tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    server.default = Text("fine")
    errors: list[ErrorEvent] = []
    memory = MemoryConfig(store=store, summary_model=ANTHROPIC)
    on_event = [lambda e: errors.append(e) if isinstance(e, ErrorEvent) else None]
    with agent_on(server, session_id="s1", memory=memory, on_event=on_event) as agent:
        agent.chat("My name is Ada")
        agent.wait_for_summaries()

    assert [e.error_type for e in errors] == ["ModelRequestBlockedError"]
    assert ANTHROPIC in errors[0].message and server.url not in errors[0].message
    assert server.request_count == 1
    assert store.get_summary("s1") is None


def test_a_compaction_summary_model_on_another_provider_is_not_sent_to_the_primary_endpoint(
    server: LocalLLMServer,
) -> None:
    server.default = Text("Noted: " + "lorem ipsum dolor sit amet " * 12)
    context = ContextConfig(
        max_context_tokens=2000,
        reserve_output_tokens=200,
        strategy="summarise",
        summary_model=ANTHROPIC,
    )
    agent = agent_on(server, context=context)
    events: list[Any] = []
    for n in range(30):
        events = list(agent.stream_events(f"Question {n}: " + "alpha beta gamma delta " * 15))
        if any(isinstance(e, CompactionEvent) for e in events):
            break

    failures = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.error_type for e in failures] == ["SummaryFailed"]
    assert "the provider's default endpoint" in failures[0].message
    assert {r.model for r in server.requests} == {"test-model"}
    assert set(bearer(server)) == {f"Bearer {CANARY}"}


def test_a_compaction_summary_model_as_a_config_summarises_on_its_own_endpoint(
    server: LocalLLMServer, backup: LocalLLMServer
) -> None:
    server.default = Text("Noted: " + "lorem ipsum dolor sit amet " * 12)
    backup.default = Text("SUMMARY: the user asked numbered questions.")
    writer = LLMConfig(model="openai/summariser", api_base=backup.url, api_key="sk-summary")
    context = ContextConfig(
        max_context_tokens=2000,
        reserve_output_tokens=200,
        strategy="summarise",
        summary_model=writer,
    )
    agent = agent_on(server, context=context)
    for n in range(30):
        agent.chat(f"Question {n}: " + "alpha beta gamma delta " * 15)
        if backup.request_count:
            break

    assert [r.model for r in backup.requests] == ["summariser"]
    assert bearer(backup) == ["Bearer sk-summary"]
    assert "SUMMARY: the user asked" in str(server.requests[-1].messages)
    assert set(bearer(server)) == {f"Bearer {CANARY}"}


@pytest.mark.parametrize("bad", ["  ", {"api_base": "http://127.0.0.1:9/v1"}])
def test_a_bad_summary_model_fails_when_the_config_is_built(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="summary_model"):
        ContextConfig(summary_model=bad)
    with pytest.raises(ConfigurationError, match="summary_model"):
        MemoryConfig(summary_model=bad)


def test_related_config_keeps_endpoint_key_and_extra_on_the_same_provider_only() -> None:
    base = LLMConfig(
        model="openai/m1",
        api_base="http://127.0.0.1:9/v1",
        api_key=CANARY,
        temperature=0.2,
        max_tokens=300,
        extra={"organization": "org-1"},
        fallback_models=["openai/m3"],
    )
    same = related_config(base, "gpt-4o-mini")
    other = related_config(base, ANTHROPIC)
    unknown = related_config(base, "no-such-provider-model")

    assert (same.api_base, same.api_key, same.extra) == (base.api_base, base.api_key, base.extra)
    assert same.fallback_models == ()
    for config in (other, unknown):
        assert (config.api_base, config.api_key, config.extra) == (None, None, {})
        assert (config.temperature, config.max_tokens) == (0.2, 300)
