"""The tool pipeline, written once: approval, hooks and calls under both drivers.

An approver may block (``input()``), so under ``achat`` it runs on a worker
thread, and an async approver is awaited on the caller's own loop. Each
``achat`` test runs on a fresh loop in a daemon thread joined with a generous
bound, so code that blocked the loop fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from own_loop import BOUND, run_on_own_loop

from praisonlike import Agent, tool
from praisonlike.errors import RunCancelled, ToolError
from praisonlike.hooks import HookContext, HookPoint, HookResult
from praisonlike.result import TerminationReason
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def tool_messages(server: LocalLLMServer) -> list[str]:
    return [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"]


def test_a_blocking_approver_runs_off_the_event_loop_under_achat(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([ToolCalls([Call("delete_file", {"path": "/tmp/a"})]), Text("done")])
    answered = threading.Event()
    threads: list[threading.Thread] = []

    def approver(name: str, arguments: dict[str, Any]) -> bool:
        threads.append(threading.current_thread())
        # like input(): waits for an answer that only the caller's loop gives
        return answered.wait(BOUND / 3)

    async def main() -> str:
        loop_thread = threading.current_thread()

        async def answer() -> None:
            while not threads:
                await asyncio.sleep(0.001)
            answered.set()

        helper = asyncio.create_task(answer())
        agent = Agent(instructions="x", llm=llm, tools=[delete_file], approval=approver)
        output = str(await agent.achat("go"))
        await helper
        assert threads and threads[0] is not loop_thread
        return output

    assert run_on_own_loop(main) == "done"
    assert tool_messages(server) == ["deleted /tmp/a"]


def test_an_async_approver_is_awaited_on_the_callers_loop(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([ToolCalls([Call("delete_file", {"path": "/tmp/b"})]), Text("done")])
    loops: list[asyncio.AbstractEventLoop] = []

    async def main() -> str:
        released = asyncio.Event()  # of the caller's loop: awaitable only there

        async def approver(name: str, arguments: dict[str, Any]) -> bool:
            loops.append(asyncio.get_running_loop())
            await released.wait()
            return True

        async def release() -> None:
            while not loops:
                await asyncio.sleep(0.001)
            released.set()

        helper = asyncio.create_task(release())
        agent = Agent(instructions="x", llm=llm, tools=[delete_file], approval=approver)
        output = str(await agent.achat("go"))
        await helper
        assert loops == [asyncio.get_running_loop()]
        return output

    assert run_on_own_loop(main) == "done"
    assert tool_messages(server) == ["deleted /tmp/b"]


@pytest.mark.parametrize("way", ["chat", "achat"])
def test_an_approver_that_raises_ends_the_turn_and_the_tool_never_runs(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    ran: list[str] = []

    @tool(requires_approval=True)
    def wipe(path: str) -> str:
        """Wipe."""
        ran.append(path)
        return "wiped"

    def approver(name: str, arguments: dict[str, Any]) -> bool:
        raise OSError("no terminal")

    server.extend([ToolCalls([Call("wipe", {"path": "/"})]), Text("never")])
    agent = Agent(instructions="x", llm=llm, tools=[wipe], approval=approver)
    with pytest.raises(ToolError, match="approver of tool 'wipe' raised OSError"):
        if way == "achat":
            asyncio.run(agent.achat("go"))
        else:
            agent.chat("go")
    assert ran == [] and server.request_count == 1


@pytest.mark.parametrize("way", ["chat", "achat"])
def test_parallel_safe_calls_run_at_once_with_their_hooks(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    both_in = threading.Barrier(2, timeout=BOUND / 3)

    @tool(parallel_safe=True)
    def meet(name: str) -> str:
        """Waits until the other call has started too."""
        both_in.wait()
        return f"met {name}"

    def shout(ctx: HookContext) -> HookResult:
        return HookResult(result=str(ctx.result).upper())

    async def hello(ctx: HookContext) -> HookResult:
        await asyncio.sleep(0)
        return HookResult(arguments={"name": f"dear {(ctx.arguments or {})['name']}"})

    server.extend(
        [ToolCalls([Call("meet", {"name": "a"}), Call("meet", {"name": "b"})]), Text("done")]
    )
    agent = Agent(
        instructions="x",
        llm=llm,
        tools=[meet],
        hooks={HookPoint.BEFORE_TOOL: hello, HookPoint.AFTER_TOOL: shout},
    )
    if way == "achat":
        assert run_on_own_loop(lambda: agent.achat("go")) == "done"
    else:
        assert agent.chat("go") == "done"
    assert tool_messages(server) == ["MET DEAR A", "MET DEAR B"]


@pytest.mark.parametrize("waiting_in", ["blocking approver", "async BEFORE_TOOL hook"])
def test_cancelling_achat_stops_waiting_for_user_code_at_once(
    server: LocalLLMServer, llm: dict[str, Any], waiting_in: str
) -> None:
    ran: list[str] = []
    entered = threading.Event()
    release = threading.Event()
    returned: list[str] = []

    @tool(requires_approval=True)
    def wipe(path: str) -> str:
        """Wipe."""
        ran.append(path)
        return "wiped"

    def approver(name: str, arguments: dict[str, Any]) -> bool:
        if waiting_in == "blocking approver":
            entered.set()
            release.wait(BOUND)
            returned.append(name)
        return True

    async def hook(ctx: HookContext) -> None:
        entered.set()
        while not release.is_set():
            await asyncio.sleep(0.005)
        returned.append("hook")

    server.extend([ToolCalls([Call("wipe", {"path": "/"})]), Text("never")])
    hooks = {HookPoint.BEFORE_TOOL: hook} if waiting_in != "blocking approver" else {}
    agent = Agent(instructions="x", llm=llm, tools=[wipe], approval=approver, hooks=hooks)

    def cancel_once_waiting() -> None:
        if entered.wait(BOUND):
            agent.cancel()

    canceller = threading.Thread(target=cancel_once_waiting, daemon=True)
    canceller.start()
    try:
        with pytest.raises(RunCancelled):
            run_on_own_loop(lambda: agent.achat("go"))
        assert returned == []  # the turn ended while the user code was still waiting
    finally:
        release.set()
        canceller.join(BOUND)
    assert ran == [] and server.request_count == 1
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.CANCELLED
