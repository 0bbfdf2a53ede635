"""What a fresh process loads for its first turn on an OpenAI-wire endpoint.

Each test runs a new interpreter against a LocalLLMServer of this process, so
``sys.modules`` shows what the turn itself imported: neither LiteLLM (the
direct transport sends the call, tracing names the provider without it) nor
tiktoken (a request whose upper bound fits the context budget is not
counted). A conversation that outgrows a small window still gets its context
handling: it is counted exactly, compacted, and every request the server
receives is within the budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from praisonlike.context import TokenCounter
from praisonlike.testing import Call, LocalLLMServer, RecordedRequest, Text, ToolCalls

CHILD = """
import json, sys
from praisonlike import Agent, ContextConfig
from praisonlike.events import CompactionEvent

case, url = sys.argv[1], sys.argv[2]
llm = {"model": "openai/some-served-model", "api_base": url, "api_key": "sk-test"}


def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b


options = {}
if case == "tool":
    options["tools"] = [add]
if case == "traced":
    options["tracing"] = True
if case == "small_window":
    options["context"] = ContextConfig(max_context_tokens=3000, reserve_output_tokens=300)
agent = Agent(instructions="You are a friendly assistant.", llm=llm, **options)
prompts = [sys.argv[3 + i] for i in range(len(sys.argv) - 3)] or ["Say hello."]
answers, routes = [], []
for prompt in prompts:
    for event in agent.stream_events(prompt):
        if isinstance(event, CompactionEvent):
            routes.append(event.route)
    answers.append(agent.last_result.output if agent.last_result else None)
print(json.dumps({
    "answers": answers,
    "routes": routes,
    "litellm": sorted(name for name in sys.modules if name.split(".")[0] == "litellm"),
    "tiktoken": "tiktoken" in sys.modules,
}))
"""

WORDS = ("alpha", "beta", "gamma", "delta", "window", "token", "budget", "agent", "model")


def _run_child(case: str, url: str, *prompts: str) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if key != "PRAISONLIKE_NO_WARMUP"}
    env["PRAISONLIKE_ALLOW_MODEL_REQUESTS"] = "0"
    env.pop("PRAISONLIKE_TRANSPORT", None)
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", CHILD, case, url, *prompts],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("case", ["plain", "tool", "traced"])
def test_a_first_turn_imports_neither_litellm_nor_tiktoken(case: str) -> None:
    with LocalLLMServer() as server:
        if case == "tool":
            server.extend([ToolCalls([Call("add", {"a": 1, "b": 2}, id="c1")]), Text("3")])
        else:
            server.add(Text("Hello!"))
        result = _run_child(case, server.url, "Say hello, and what is 1 + 2?")
        requests = server.requests
    assert result["answers"] == ["3" if case == "tool" else "Hello!"]
    assert result["litellm"] == []
    assert result["tiktoken"] is False
    assert requests[0].model == "some-served-model"
    if case == "tool":
        assert [tool["function"]["name"] for tool in requests[0].tools] == ["add"]
        assert requests[1].messages[-1]["role"] == "tool"


def _words(count: int, seed: int) -> str:
    return " ".join(WORDS[(seed + i * 5) % len(WORDS)] for i in range(count)) + f" #{seed}"


def _tokens(request: RecordedRequest) -> int:
    counter = TokenCounter("openai/some-served-model")
    return counter.count_messages(request.messages) + counter.count_tools(request.tools)


def test_a_conversation_past_a_small_window_is_still_counted_and_compacted() -> None:
    prompts = [f"Turn {turn}: " + _words(700, turn) for turn in range(5)]
    with LocalLLMServer() as server:
        server.extend([Text(f"Noted {turn}.") for turn in range(len(prompts))])
        result = _run_child("small_window", server.url, *prompts)
        requests = server.requests
    assert result["answers"] == [f"Noted {turn}." for turn in range(len(prompts))]
    assert result["tiktoken"] is True  # the bound could not prove a fit: counted exactly
    assert result["litellm"] == []
    assert result["routes"] and set(result["routes"]) == {"compact"}
    assert len(requests) == len(prompts)
    for request, prompt in zip(requests, prompts, strict=True):
        assert _tokens(request) <= 2700
        assert request.messages[0]["role"] == "system"
        assert request.messages[-1] == {"role": "user", "content": prompt}
    assert len(requests[-1].messages) < 2 * len(prompts)  # older turns were dropped
