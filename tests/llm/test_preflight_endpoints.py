"""An endpoint nobody listens on ends, after the configured retries, as an
``APIConnectionError`` that names ``scheme://host:port`` and nothing secret."""

from __future__ import annotations

import asyncio
import socket

import pytest

from praisonlike import Agent, ExecutionConfig
from praisonlike.errors import APIConnectionError
from praisonlike.events import RetryEvent
from praisonlike.testing import LocalLLMServer, Text

KEY = "sk-proj-deadportkey0123456789abcdef"
QUERY_SECRET = "qsecret0123456789"


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("way", ["chat", "achat", "iter_stream"])
def test_an_unreachable_endpoint_is_a_connection_error_naming_it(
    server: LocalLLMServer, way: str
) -> None:
    port = closed_port()
    agent = Agent(
        instructions="You answer.",
        llm={
            "model": "openai/x",
            "api_base": f"http://127.0.0.1:{port}/v1?token={QUERY_SECRET}",
            "api_key": KEY,
        },
        execution=ExecutionConfig(max_retries=1, retry_base=0.01, retry_max=0.02),
    )
    server.add(Text("unused"))

    with pytest.raises(APIConnectionError) as raised:
        if way == "chat":
            agent.chat("hello")
        elif way == "achat":
            asyncio.run(agent.achat("hello"))
        else:
            "".join(agent.iter_stream("hello"))

    error = raised.value
    assert error.endpoint == f"http://127.0.0.1:{port}"
    assert f"could not reach http://127.0.0.1:{port}" in str(error)
    assert error.retried == 1
    for text in (str(error), repr(error), error.provider_message or ""):
        assert KEY not in text and QUERY_SECRET not in text
    assert agent.chat_history == []
    assert server.request_count == 0


def test_each_retry_names_the_unreachable_endpoint(server: LocalLLMServer) -> None:
    port = closed_port()
    agent = Agent(
        instructions="You answer.",
        llm={"model": "openai/x", "api_base": f"http://127.0.0.1:{port}/v1", "api_key": KEY},
        execution=ExecutionConfig(max_retries=2, retry_base=0.01, retry_max=0.02),
    )
    retries = []
    with pytest.raises(APIConnectionError):
        for event in agent.stream_events("hello"):
            if isinstance(event, RetryEvent):
                retries.append(event)

    assert len(retries) == 2
    for retry in retries:
        assert retry.error_kind == "connection"
        assert f"could not reach http://127.0.0.1:{port}" in retry.message
        assert KEY not in retry.message
