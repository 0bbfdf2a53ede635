"""An error about a model name that PRAISONLIKE_MODEL or OPENAI_MODEL_NAME holds says so."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from cli_support import PROVIDER_VARIABLES

from praisonlike import Agent, UnknownModelError
from praisonlike.events import ErrorEvent
from praisonlike.models.local.model_file import ModelFileError

TYPO = "gpt-4o-mnii"


@pytest.fixture(autouse=True)
def no_model_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


ENTRY_POINTS: dict[str, Callable[[Agent[None]], Any]] = {
    "chat": lambda agent: agent.chat("hi"),
    "achat": lambda agent: asyncio.run(agent.achat("hi")),
    "stream_events": lambda agent: list(agent.stream_events("hi")),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("variable", ["PRAISONLIKE_MODEL", "OPENAI_MODEL_NAME"])
def test_an_unknown_model_a_variable_holds_names_the_variable(
    variable: str, entry: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, f" {TYPO} ")
    agent = Agent(instructions="x")

    with pytest.raises(UnknownModelError) as raised:
        ENTRY_POINTS[entry](agent)

    error = raised.value
    assert error.message.startswith(
        f"unknown model {TYPO!r} ({variable} is set to this name: correct or unset it, "
        "or name the model explicitly): LiteLLM cannot tell which provider serves it"
    )
    assert error.model == TYPO and "openai/gpt-4o-mini" in error.suggestions
    assert agent.chat_history == []


def test_the_error_is_the_turns_own_with_its_events(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRAISONLIKE_MODEL", TYPO)
    agent = Agent(instructions="x")

    events: list[Any] = []
    with pytest.raises(UnknownModelError):
        events.extend(agent.stream_events("hi"))

    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and "PRAISONLIKE_MODEL is set to this name" in errors[-1].message


def test_only_the_variable_read_first_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRAISONLIKE_MODEL", "   ")  # blank: unset
    monkeypatch.setenv("OPENAI_MODEL_NAME", TYPO)
    with pytest.raises(UnknownModelError, match="OPENAI_MODEL_NAME is set to this name"):
        Agent(instructions="x").chat("hi")

    monkeypatch.setenv("PRAISONLIKE_MODEL", "openai/other")
    with pytest.raises(UnknownModelError) as raised:
        Agent(instructions="x", llm=TYPO).chat("hi")
    assert "is set to this name" not in raised.value.message


def test_an_unknown_local_model_a_variable_holds_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PRAISONLIKE_MODEL", "local/nosuch")
    with pytest.raises(ModelFileError) as raised:
        Agent(instructions="x").chat("hi")
    assert str(raised.value).startswith(
        "unknown local model 'local/nosuch' (PRAISONLIKE_MODEL is set to this name"
    )


@pytest.mark.parametrize("model", [TYPO, "local/nosuch"])
def test_a_model_no_variable_holds_names_none(model: str) -> None:
    with pytest.raises((UnknownModelError, ModelFileError)) as raised:
        Agent(instructions="x", llm=model).chat("hi")
    assert "is set to this name" not in str(raised.value)
