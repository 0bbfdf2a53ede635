"""A non-OpenAI provider through LiteLLM, end to end: ``anthropic/...`` on the Messages wire.

The local server answers ``POST /v1/messages`` as Anthropic does; LiteLLM's
Anthropic provider turns the agent's requests into Anthropic's shape and its
answers, streams and errors back into OpenAI's. The agent must not notice:
same tool loop, usage and prices, the same typed errors and recoveries as on
the OpenAI wire, and each provider's key only in its own requests.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig
from praisonlike.errors import (
    AuthenticationError,
    BadRequestError,
    ModelNotFoundError,
    PraisonlikeError,
)
from praisonlike.events import RetryEvent, TextDelta
from praisonlike.models.config import LLMConfig
from praisonlike.models.transport import transport_for
from praisonlike.testing import (
    Call,
    DropConnection,
    Fault,
    LocalLLMServer,
    MalformedBody,
    ReportedUsage,
    Text,
    ToolCalls,
)
from praisonlike.testing.script import Response

MODEL = "claude-haiku-4-5"
"""In LiteLLM's bundled map: a 200k window, native tool calls, $1 / $5 per million tokens."""
FAST_RETRIES = ExecutionConfig(retry_base=0.0, retry_max=0.0)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_agent(server: LocalLLMServer, **options: Any) -> Agent:
    llm = server.llm_config(MODEL, wire="anthropic")
    return Agent(instructions="You add numbers.", llm=llm, tools=[add], **options)


def test_the_anthropic_config_goes_through_litellm(server: LocalLLMServer) -> None:
    config = LLMConfig.coerce(server.llm_config(MODEL, wire="anthropic"))
    assert config.model == f"anthropic/{MODEL}"
    assert transport_for(config) == "litellm"


def test_a_tool_turn_on_the_messages_wire(server: LocalLLMServer) -> None:
    server.add(
        ToolCalls(
            [Call("add", {"a": 2, "b": 3})],
            content="Adding.",
            usage=ReportedUsage(1_000_000, 0),
        ),
        Text("The sum is 5.", usage=ReportedUsage(0, 1_000_000)),
    )
    agent = make_agent(server)

    assert agent.chat("What is 2 + 3?") == "The sum is 5."

    result = agent.last_result
    assert result is not None
    assert [(call.name, call.arguments, call.result) for call in result.tool_calls] == [
        ("add", {"a": 2, "b": 3}, "5")
    ]
    assert result.usage.prompt_tokens == 1_000_000
    assert result.usage.completion_tokens == 1_000_000
    assert result.usage.cost == pytest.approx(6.0)  # $1 in + $5 out, from LiteLLM's map
    first, second = server.requests
    assert first.anthropic and first.path == "/v1/messages"
    assert first.model == MODEL
    assert first.body["system"][0]["text"].startswith("You add numbers.")
    assert [tool["name"] for tool in first.tools] == ["add"]
    assert "input_schema" in first.tools[0]
    tool_use = second.messages[1]["content"][-1]
    assert tool_use["type"] == "tool_use" and tool_use["input"] == {"a": 2, "b": 3}
    assert second.messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": tool_use["id"],
            "content": "5",
            "cache_control": {"type": "ephemeral"},  # the prompt-cache breakpoint
        }
    ]
    assert agent.chat_history[-1] == {"role": "assistant", "content": "The sum is 5."}


def test_iter_stream_reads_anthropic_events(server: LocalLLMServer) -> None:
    server.add(
        ToolCalls([Call("add", {"a": 20, "b": 22})], chunk_size=3),
        Text("Forty-two it is.", chunk_size=5),
    )
    agent = make_agent(server)

    chunks = list(agent.iter_stream("What is 20 + 22?"))

    assert "".join(chunks) == "Forty-two it is."
    assert len(chunks) > 1
    assert all(request.stream for request in server.requests)
    result = agent.last_result
    assert result is not None
    assert [call.result for call in result.tool_calls] == ["42"]
    assert result.usage.requests == 2
    assert result.usage.completion_tokens > 0 and result.usage.prompt_tokens > 0
    assert result.usage.cost is not None and result.usage.cost > 0


def test_achat_on_the_messages_wire(server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("add", {"a": 1, "b": 1})]), Text("2"))
    agent = make_agent(server)

    assert asyncio.run(agent.achat("1 + 1?")) == "2"
    assert len(server.requests) == 2


RECOVERED: dict[str, Response] = {
    "rate_limit": Fault.rate_limit(retry_after=0),
    "server_error": Fault.server_error(),
    "unavailable": Fault.unavailable(),
    "overloaded_529": Fault(529, "Overloaded", type="overloaded_error"),
    "malformed_body": MalformedBody(),
    "drop_connection": DropConnection(),
}


@pytest.mark.parametrize("stream", [False, True], ids=["chat", "stream"])
@pytest.mark.parametrize("fault", RECOVERED.values(), ids=RECOVERED.keys())
def test_a_transient_fault_is_retried(
    server: LocalLLMServer, fault: Response, stream: bool
) -> None:
    server.add(fault, Text("recovered"))
    agent = make_agent(server, execution=FAST_RETRIES)

    events = list(agent.stream_events("hello?", stream=stream))

    assert agent.last_result is not None and agent.last_result.output == "recovered"
    assert agent.last_result.retries == 1
    assert [type(event) for event in events].count(RetryEvent) == 1
    assert len(server.requests) == 2
    assert server.errors == []


def test_a_context_length_error_compacts_and_retries(server: LocalLLMServer) -> None:
    server.add(Fault.context_length_exceeded(), Text("short enough now"))
    agent = make_agent(server)

    assert agent.chat("summarise this") == "short enough now"
    assert agent.last_result is not None and agent.last_result.retries == 0
    assert len(server.requests) == 2


FATAL: dict[str, tuple[Response, type[PraisonlikeError]]] = {
    "authentication": (Fault.authentication(), AuthenticationError),
    "model_not_found": (Fault.model_not_found(MODEL), ModelNotFoundError),
    "bad_request": (Fault.bad_request("messages: field required"), BadRequestError),
}


@pytest.mark.parametrize(("fault", "error"), FATAL.values(), ids=FATAL.keys())
def test_a_fatal_fault_raises_its_type_at_once_and_keeps_history(
    server: LocalLLMServer, fault: Response, error: type[PraisonlikeError]
) -> None:
    server.add(Text("first answer"), fault)
    agent = make_agent(server, execution=FAST_RETRIES)
    agent.chat("first question")
    history = agent.chat_history

    with pytest.raises(error):
        agent.chat("second question")

    assert agent.chat_history == history
    assert len(server.requests) == 2


def test_each_key_goes_only_to_its_own_provider(server: LocalLLMServer) -> None:
    """An Anthropic primary failing over to an OpenAI-wire fallback on the same server."""
    server.add(Fault.authentication(), Text("the fallback answered"))
    fallback = server.llm_config("other-model")
    agent = make_agent(server, fallback_models=[fallback])

    assert agent.chat("hello?") == "the fallback answered"

    anthropic_request, openai_request = server.requests
    assert anthropic_request.anthropic and not openai_request.anthropic
    assert anthropic_request.headers["x-api-key"] == "sk-ant-test"
    assert "authorization" not in anthropic_request.headers
    assert openai_request.headers["authorization"] == "Bearer sk-test"
    assert "x-api-key" not in openai_request.headers
    assert "sk-ant-test" not in str(openai_request.body)


def test_streamed_text_is_delivered_as_it_arrives(server: LocalLLMServer) -> None:
    server.add(Text("one two three four", chunk_size=4))
    agent = Agent(instructions="Count.", llm=server.llm_config(MODEL, wire="anthropic"))

    deltas = [e.text for e in agent.stream_events("count") if isinstance(e, TextDelta)]

    assert deltas == ["one ", "two ", "thre", "e fo", "ur"]


def test_arguments_anthropic_cannot_carry_are_a_server_error(server: LocalLLMServer) -> None:
    """A non-object ``input`` cannot be written unstreamed: the server says so (500)."""
    server.add(ToolCalls([Call("add", "[1, 2]")]), Text("unused"))
    agent = make_agent(server, execution=ExecutionConfig(max_retries=0))

    with pytest.raises(PraisonlikeError):
        agent.chat("add")

    assert any("JSON object on the Anthropic wire" in error for error in server.errors)


NO_REMOTE_SCRIPT = """
import asyncio, json, sys
from pydantic import BaseModel
from praisonlike import Agent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

hosts = []

def audit(event, args):
    if event == "socket.getaddrinfo":
        hosts.append(str(args[0]))
    elif event == "socket.connect" and isinstance(args[1], tuple):
        hosts.append(str(args[1][0]))

class City(BaseModel):
    name: str

def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

script = [Text('{"name": "Paris"}'), ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")]
script += [ToolCalls([Call("add", {"a": 2, "b": 2})]), Text("4"), Text("5"), Text("6")]
with LocalLLMServer(script) as server:
    sys.addaudithook(audit)
    anthropic = server.llm_config("claude-haiku-4-5", wire="anthropic")
    agent = Agent(instructions="x", llm=anthropic, tools=[add])
    answers = [agent.chat("Capital of France?", output_pydantic=City).name]
    answers.append(agent.chat("1 + 2?"))
    answers.append("".join(agent.iter_stream("2 + 2?")))
    answers.append(asyncio.run(agent.achat("five?")))
    forced = Agent(instructions="x", llm={**server.llm_config(), "transport": "litellm"})
    answers.append(forced.chat("six?"))
    beta = "output_format" in server.requests[0].body
print(json.dumps({"answers": answers, "structured": beta, "hosts": sorted(set(hosts))}))
"""


def test_litellm_reaches_no_host_but_the_endpoint() -> None:
    """LiteLLM fetches its model map and its Anthropic beta-header table from GitHub
    unless told to read its bundled copies: through structured output, tools,
    streaming and async on Anthropic, and the OpenAI wire forced through LiteLLM,
    nothing but the model's endpoint may be contacted."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_LOCAL_")}
    done = subprocess.run(
        [sys.executable, "-c", NO_REMOTE_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {
        "answers": ["Paris", "3", "4", "5", "6"],
        "structured": True,
        "hosts": ["127.0.0.1"],
    }
