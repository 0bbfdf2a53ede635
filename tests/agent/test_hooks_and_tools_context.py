"""Hooks (every event, sync and async), approval, RunContext and parallel tool calls."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, RunContext, tool
from praisonlike.errors import BadRequestError, HookError
from praisonlike.hooks import HookContext, HookPoint, HookResult
from praisonlike.testing import Call, Fault, LocalLLMServer, Text, ToolCalls


def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def run(agent: Agent, way: str, prompt: str = "go") -> Any:
    if way == "achat":
        return asyncio.run(agent.achat(prompt))
    return agent.chat(prompt)


def observe_all(agent: Agent, seen: list[HookPoint], asynchronous: bool) -> None:
    for event in HookPoint:
        if asynchronous:

            async def hook(ctx: HookContext) -> None:
                await asyncio.sleep(0)
                seen.append(ctx.event)
        else:

            def hook(ctx: HookContext) -> None:
                seen.append(ctx.event)

        agent.on(event)(hook)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync-hooks", "async-hooks"])
@pytest.mark.parametrize("way", ["chat", "achat"])
def test_every_hook_event_fires(
    server: LocalLLMServer, llm: dict[str, Any], asynchronous: bool, way: str
) -> None:
    from praisonlike import ContextConfig

    seen: list[HookPoint] = []
    big = "word " * 400
    server.extend(
        [
            Text("warm-up " + big),
            Fault.server_error(),
            Fault.model_not_found(),
            ToolCalls([Call("add", {"a": 1, "b": 2})]),
            Text("3"),
            Fault.bad_request("unsupported parameter"),
        ]
    )
    agent = Agent(
        instructions="x",
        llm=llm,
        tools=[add],
        fallback_models=["openai/other-model"],
        execution=ExecutionConfig(retry_base=0.01, max_retries=1),
        context=ContextConfig(max_context_tokens=700, reserve_output_tokens=10),
    )
    agent.chat("first " + big)
    observe_all(agent, seen, asynchronous)
    assert run(agent, way, "second " + big) == "3"
    with pytest.raises(BadRequestError):
        run(agent, way, "third")
    assert set(seen) == set(HookPoint)
    assert seen[0] is HookPoint.BEFORE_AGENT


def test_before_llm_can_replace_messages_or_block(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text("ok"))
    agent = Agent(instructions="x", llm=llm)

    @agent.on(HookPoint.BEFORE_LLM)
    def rewrite(ctx: HookContext) -> HookResult:
        assert ctx.messages is not None
        return HookResult(messages=[*ctx.messages, {"role": "user", "content": "PS: be brief"}])

    agent.chat("hello")
    assert server.requests[0].messages[-1]["content"] == "PS: be brief"

    blocker = Agent(
        instructions="x",
        llm=llm,
        hooks={HookPoint.BEFORE_LLM: lambda ctx: HookResult(block=True, output="blocked answer")},
    )
    assert blocker.chat("anything") == "blocked answer"
    assert server.request_count == 1
    refuser = Agent(
        instructions="x",
        llm=llm,
        hooks={HookPoint.BEFORE_LLM: lambda ctx: HookResult(block=True, reason="policy")},
    )
    with pytest.raises(HookError, match="policy"):
        refuser.chat("anything")


def test_before_tool_changes_arguments_or_denies_and_after_tool_replaces(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    calls: list[tuple[int, int]] = []

    def record(a: int, b: int) -> int:
        """Record."""
        calls.append((a, b))
        return a + b

    def before(ctx: HookContext) -> HookResult:
        if ctx.arguments == {"a": 0, "b": 0}:
            return HookResult(deny=True, reason="zeros are boring")
        return HookResult(arguments={"a": 10, "b": 20})

    async def after(ctx: HookContext) -> HookResult:
        return HookResult(result=f"{ctx.result} (checked)")

    server.extend(
        [
            ToolCalls([Call("record", {"a": 1, "b": 2}), Call("record", {"a": 0, "b": 0})]),
            Text("done"),
        ]
    )
    agent = Agent(
        instructions="x",
        llm=llm,
        tools=[record],
        hooks={HookPoint.BEFORE_TOOL: before, HookPoint.AFTER_TOOL: after},
    )
    agent.chat("go")
    assert calls == [(10, 20)]
    tool_messages = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert tool_messages[0] == "30 (checked)"
    assert "denied" in tool_messages[1] and "zeros are boring" in tool_messages[1]


def test_raising_hook_fails_the_turn_unless_fail_open(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    def broken(ctx: HookContext) -> None:
        raise RuntimeError("hook bug")

    server.extend([Text("a"), Text("b")])
    agent = Agent(instructions="x", llm=llm, hooks={HookPoint.AFTER_LLM: broken})
    with pytest.raises(HookError, match="broken"):
        agent.chat("x")
    assert agent.chat_history == []
    lenient = Agent(instructions="x", llm=llm)
    lenient.on(HookPoint.AFTER_LLM, fail_open=True)(broken)
    assert lenient.chat("y") in {"a", "b"}


@pytest.mark.parametrize("way", ["chat", "achat"])
def test_approval_allow_deny(server: LocalLLMServer, llm: dict[str, Any], way: str) -> None:
    ran: list[str] = []

    @tool(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    decisions: list[tuple[str, dict[str, Any]]] = []

    def approver(name: str, arguments: dict[str, Any]) -> bool:
        decisions.append((name, arguments))
        return arguments["path"] == "/tmp/ok"

    server.extend(
        [
            ToolCalls(
                [
                    Call("delete_file", {"path": "/tmp/ok"}),
                    Call("delete_file", {"path": "/etc/passwd"}),
                ]
            ),
            Text("done"),
        ]
    )
    agent = Agent(instructions="x", llm=llm, tools=[delete_file], approval=approver)
    run(agent, way)
    assert ran == ["/tmp/ok"]
    assert decisions == [
        ("delete_file", {"path": "/tmp/ok"}),
        ("delete_file", {"path": "/etc/passwd"}),
    ]
    tool_messages = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert tool_messages[0] == "deleted" and "denied" in tool_messages[1]


def test_console_approval_without_a_terminal_denies_at_once(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    @tool(requires_approval=True)
    def launch() -> str:
        """Launch."""
        raise AssertionError("must not run")

    server.extend([ToolCalls([Call("launch", {})]), Text("not launched")])
    agent = Agent(instructions="x", llm=llm, tools=[launch], approval="console")
    started = time.monotonic()
    assert agent.chat("launch") == "not launched"
    assert time.monotonic() - started < 30
    assert agent.last_result is not None and agent.last_result.tool_calls[0].is_error


def test_approval_required_without_approver_denies(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    @tool(requires_approval=True)
    def risky() -> str:
        """Risky."""
        raise AssertionError("must not run")

    server.extend([ToolCalls([Call("risky", {})]), Text("ok")])
    Agent(instructions="x", llm=llm, tools=[risky]).chat("go")
    assert "denied" in [m for m in server.requests[1].messages if m["role"] == "tool"][0]["content"]


def test_run_context_injection_and_idempotency_key(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    seen: list[RunContext[Any]] = []

    def charge(ctx: RunContext[dict[str, str]], amount: int) -> str:
        """Charge the user."""
        seen.append(ctx)
        return f"charged {amount} to {ctx.deps['user']}"

    server.extend([ToolCalls([Call("charge", {"amount": 5}, id="c9")]), Text("done")])
    agent = Agent(instructions="x", llm=llm, tools=[charge], deps={"user": "u-1"})
    agent.chat("pay")
    params = server.requests[0].tools[0]["function"]["parameters"]
    assert list(params["properties"]) == ["amount"]
    assert seen[0].deps == {"user": "u-1"}
    assert seen[0].idempotency_key == f"{seen[0].run_id}:c9"
    assert all("u-1" not in str(r.body) for r in server.requests[:1])
    server.extend([ToolCalls([Call("charge", {"amount": 1}, id="c9")]), Text("done")])
    agent.chat("pay again", deps={"user": "u-2"})
    assert seen[1].deps == {"user": "u-2"}


@pytest.mark.parametrize("way", ["chat", "achat"])
def test_parallel_safe_calls_overlap_and_others_do_not(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    spans: dict[str, tuple[float, float]] = {}
    lock = threading.Lock()

    def timed(name: str) -> str:
        start = time.monotonic()
        time.sleep(0.3)
        with lock:
            spans[name] = (start, time.monotonic())
        return name

    @tool(parallel_safe=True)
    def fetch(name: str) -> str:
        """Parallel-safe fetch."""
        return timed(name)

    def serial(name: str) -> str:
        """Not parallel-safe."""
        return timed(name)

    server.extend(
        [
            ToolCalls([Call("fetch", {"name": "a"}), Call("fetch", {"name": "b"})]),
            ToolCalls([Call("serial", {"name": "c"}), Call("serial", {"name": "d"})]),
            Text("done"),
        ]
    )
    agent = Agent(instructions="x", llm=llm, tools=[fetch, serial])
    run(agent, way)
    a, b, c, d = (spans[k] for k in "abcd")
    assert a[0] < b[1] and b[0] < a[1]  # overlapped
    assert c[1] <= d[0] or d[1] <= c[0]  # one after the other


@pytest.mark.parametrize(
    ("point", "result", "says"),
    [
        (HookPoint.BEFORE_TOOL, HookResult(block=True), "set block, which BEFORE_TOOL"),
        (HookPoint.BEFORE_AGENT, HookResult(deny=True), "set deny, which BEFORE_AGENT"),
        (HookPoint.BEFORE_LLM, HookResult(deny=True), "set deny, which BEFORE_LLM"),
        (HookPoint.AFTER_TOOL, HookResult(result={"a": 1}), "set result to a dict"),  # type: ignore[arg-type]
        (HookPoint.BEFORE_LLM, HookResult(messages=[]), "non-empty list of message dicts"),
        (HookPoint.BEFORE_LLM, HookResult(messages="hi"), "set messages to a str"),  # type: ignore[arg-type]
    ],
    ids=[
        "block-a-tool",
        "deny-a-turn",
        "deny-a-call",
        "dict-result",
        "no-messages",
        "str-messages",
    ],
)
def test_a_hook_result_its_point_cannot_apply_fails_the_turn(
    server: LocalLLMServer, point: HookPoint, result: HookResult, says: str
) -> None:
    """Not ignored: a block or a denial the point does not act on would let the tool or
    the call go ahead as if the hook had allowed it."""
    ran: list[int] = []

    def guarded_add(a: int, b: int) -> int:
        """Add two numbers."""
        ran.append(a)
        return a + b

    server.extend([ToolCalls([Call("guarded_add", {"a": 1, "b": 2})]), Text("3")])
    agent = Agent(
        instructions="Use tools.",
        llm=server.llm_config(),
        tools=[guarded_add],
        hooks={point: lambda context: result},
    )

    with pytest.raises(HookError, match=says):
        agent.chat("go")

    assert ran == ([1] if point is HookPoint.AFTER_TOOL else [])
    assert agent.chat_history == []
