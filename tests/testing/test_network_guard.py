"""The no-network guard: with ``PRAISONLIKE_ALLOW_MODEL_REQUESTS=0`` (this suite's
setting) a model call leaves the machine only for the loopback.

Every way into a turn raises ``ModelRequestBlockedError`` before anything is
sent for a remote endpoint or the provider's default one, and leaves the
history as it was; loopback endpoints, however spelled, still go through.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.errors import ModelRequestBlockedError
from praisonlike.testing import LocalLLMServer, Text

REMOTE = "https://api.example.invalid/v1"


def run_turn(agent: Agent, way: str) -> Any:
    if way == "chat":
        return agent.chat("hello")
    if way == "achat":
        return asyncio.run(agent.achat("hello"))
    return "".join(agent.iter_stream("hello"))


def test_the_suite_runs_with_the_guard_on() -> None:
    assert os.environ["PRAISONLIKE_ALLOW_MODEL_REQUESTS"] == "0"


def remote_agent(server: LocalLLMServer, llm: dict[str, Any]) -> Agent:
    """An agent for ``llm`` that carries on a conversation held with the local server."""
    local = Agent(instructions="x", llm=server.llm_config())
    server.add(Text("first"))
    assert local.chat("warm up") == "first"
    agent = Agent(instructions="x", llm=llm)
    agent.load_state(local.save_state())
    return agent


@pytest.mark.parametrize("way", ["chat", "achat", "iter_stream"])
def test_a_remote_endpoint_is_refused_before_sending(server: LocalLLMServer, way: str) -> None:
    agent = remote_agent(server, {"model": "openai/gpt-4o-mini", "api_base": REMOTE})
    before = agent.chat_history
    sent = server.request_count

    with pytest.raises(ModelRequestBlockedError) as raised:
        run_turn(agent, way)

    assert REMOTE in str(raised.value) and "PRAISONLIKE_ALLOW_MODEL_REQUESTS" in str(raised.value)
    assert server.request_count == sent
    assert agent.chat_history == before


def test_the_providers_default_endpoint_is_refused(server: LocalLLMServer) -> None:
    agent = remote_agent(server, {"model": "openai/gpt-4o-mini", "api_key": "sk-test"})

    with pytest.raises(ModelRequestBlockedError, match="default endpoint"):
        agent.chat("hello")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LocalHost"])
def test_loopback_endpoints_however_spelled_go_through(server: LocalLLMServer, host: str) -> None:
    llm = server.llm_config()
    llm["api_base"] = llm["api_base"].replace("127.0.0.1", host, 1)
    server.add(Text("local answer"))

    assert Agent(instructions="x", llm=llm).chat("hello") == "local answer"
    assert server.request_count == 1
