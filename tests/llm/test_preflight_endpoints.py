"""An endpoint nobody listens on ends as an ``APIConnectionError`` that names
``scheme://host:port`` and nothing secret: at once on the loopback (a refused
connection there is not retried), and each retry of a dropped connection names
the endpoint too."""

from __future__ import annotations

import asyncio
import socket

import pytest

from praisonlike import Agent, ExecutionConfig
from praisonlike.errors import APIConnectionError
from praisonlike.events import RetryEvent
from praisonlike.testing import DropConnection, LocalLLMServer, Text

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
    assert error.retried == 0  # refused on the loopback: not retried
    for text in (str(error), repr(error), error.provider_message or ""):
        assert KEY not in text and QUERY_SECRET not in text
    assert agent.chat_history == []
    assert server.request_count == 0


def test_each_retry_of_a_dropped_connection_names_the_endpoint(server: LocalLLMServer) -> None:
    agent = Agent(
        instructions="You answer.",
        llm={"model": "openai/x", "api_base": server.url, "api_key": KEY},
        execution=ExecutionConfig(max_retries=2, retry_base=0.01, retry_max=0.02),
    )
    server.extend([DropConnection(), DropConnection(), Text("back")])
    retries = []
    for event in agent.stream_events("hello"):
        if isinstance(event, RetryEvent):
            retries.append(event)

    assert agent.last_result is not None and agent.last_result.output == "back"
    assert len(retries) == 2
    for retry in retries:
        assert retry.error_kind == "connection"
        assert f"could not reach http://127.0.0.1:{server.port}" in retry.message
        assert KEY not in retry.message
