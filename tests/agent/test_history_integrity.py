"""Nothing edits a message once the agent has sent it, and nothing outside
the agent can edit its history: the contract the agent's token-count memo
relies on (``ContextManager(trust_identity=True)``)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.events import LLMRequest
from praisonlike.hooks import HookContext, HookPoint, HookResult
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return f"value of {key}"


def script_turns(server: LocalLLMServer, turns: int, *, react: bool = False) -> None:
    for turn in range(turns):
        arguments = {"key": f"k{turn}"}
        call = (
            Text(json.dumps({"name": "lookup", "arguments": arguments}))
            if react
            else ToolCalls([Call("lookup", arguments, id=f"c{turn}")])
        )
        server.extend([call, Text(f"Answer {turn}.", chunk_size=3)])


@pytest.mark.parametrize("entry", ["chat", "stream", "achat", "react"])
def test_messages_sent_are_never_edited_afterwards(
    server: LocalLLMServer, llm: dict[str, Any], entry: str
) -> None:
    seen: list[list[dict[str, Any]]] = []

    def keep(event: Any) -> None:
        if isinstance(event, LLMRequest):
            seen.append(copy.deepcopy(event.messages))

    react = entry == "react"
    if react:
        llm = {**llm, "features": {"native_tool_calls": False}}
    agent = Agent(instructions="You look things up.", llm=llm, tools=[lookup], on_event=keep)
    script_turns(server, 4, react=react)
    for turn in range(4):
        prompt = f"Question {turn}?"
        if entry in ("chat", "react"):
            agent.chat(prompt)
        elif entry == "stream":
            assert "".join(agent.iter_stream(prompt)) == f"Answer {turn}."
        else:
            asyncio.run(agent.achat(prompt))

    history = agent.chat_history
    assert len(seen) == 8 and len(history) == 16
    assert any("tool_calls" in m for m in history) is not react
    for sent, on_wire in zip(seen, server.requests, strict=True):
        assert sent == on_wire.messages
        assert sent[1:] == history[: len(sent) - 1]


def test_editing_chat_history_leaves_the_agent_unchanged(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(instructions="You chat.", llm=llm, tools=[lookup])
    script_turns(server, 1)
    agent.chat("Question 0?")
    copied = agent.chat_history
    original = copy.deepcopy(copied)
    copied[0]["content"] = "x " * 50_000
    copied[1]["tool_calls"][0]["function"]["arguments"] = '{"key": "edited"}'
    copied.append({"role": "user", "content": "injected"})

    assert agent.chat_history == original
    server.add(Text("Done."))
    events = list(agent.stream_events("Question 1?"))
    assert not [e for e in events if e.type == "compaction"]
    assert server.requests[-1].messages[1:-1] == original


def test_a_before_llm_hook_editing_in_place_changes_that_request_only(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    def shout(ctx: HookContext) -> None:
        assert ctx.messages is not None
        ctx.messages[-1]["content"] = ctx.messages[-1]["content"].upper()

    agent = Agent(instructions="You chat.", llm=llm, hooks={HookPoint.BEFORE_LLM: shout})
    server.extend([Text("One."), Text("Two.")])
    agent.chat("first question")
    agent.chat("second question")

    first, second = server.requests
    assert first.messages[-1]["content"] == "FIRST QUESTION"
    assert second.messages[1]["content"] == "first question"
    assert second.messages[-1]["content"] == "SECOND QUESTION"
    assert [m["content"] for m in agent.chat_history] == [
        "first question",
        "One.",
        "second question",
        "Two.",
    ]


def test_a_before_llm_hook_may_still_replace_the_messages(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    def replace(ctx: HookContext) -> HookResult:
        assert ctx.messages is not None
        return HookResult(messages=[*ctx.messages[:-1], {"role": "user", "content": "swapped"}])

    agent = Agent(instructions="You chat.", llm=llm, hooks={HookPoint.BEFORE_LLM: replace})
    server.add(Text("Ok."))
    agent.chat("original")
    assert server.requests[0].messages[-1]["content"] == "swapped"
    assert agent.chat_history[0]["content"] == "original"
