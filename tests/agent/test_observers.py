"""An on_event observer that raises is logged on the praisonlike logger; the turn goes on."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.result import TerminationReason
from praisonlike.testing import LocalLLMServer, Text


class ObserverBug(RuntimeError):
    pass


def fail_on_llm_response(event: Any) -> None:
    if event.type == "llm_response":
        raise ObserverBug("observer bug")


def observer_failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name == "praisonlike"
        and record.exc_info is not None
        and isinstance(record.exc_info[1], ObserverBug)
    ]


def test_chat_returns_the_answer_when_an_observer_raises(
    server: LocalLLMServer, llm: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[Any] = []
    server.add(Text("the answer"))
    agent = Agent(instructions="x", llm=llm, on_event=[fail_on_llm_response, seen.append])
    with caplog.at_level(logging.ERROR, logger="praisonlike"):
        answer = agent.chat("question")
    assert answer == "the answer"
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.COMPLETED
    failures = observer_failures(caplog)
    assert len(failures) == 1
    assert failures[0].levelno == logging.ERROR
    assert "llm_response" in failures[0].getMessage()
    kinds = [event.type for event in seen]
    assert "llm_response" in kinds and kinds[-1] == "run_finished"


async def test_achat_returns_the_answer_when_an_observer_raises(
    server: LocalLLMServer, llm: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    server.add(Text("async answer"))
    agent = Agent(instructions="x", llm=llm, on_event=fail_on_llm_response)
    with caplog.at_level(logging.ERROR, logger="praisonlike"):
        answer = await agent.achat("question")
    assert answer == "async answer"
    assert len(observer_failures(caplog)) == 1
