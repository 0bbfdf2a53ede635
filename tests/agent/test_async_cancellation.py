"""Cancellation under ``achat``, as the caller's asyncio task sees it.

The async driver stops a pending model call or tool by cancelling the
caller's own task while it waits, then turns that into ``RunCancelled``. These
tests check that the caller's task is left as it was (no cancel request left
pending), that a cancel of the task from outside stays a ``CancelledError``,
that a tool which swallows the cancel still ends the turn, and that sync tools
run on reused worker threads, of which a burst leaves only a few behind, in
the caller's context, and end quietly when they outlive their event loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import time
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, TerminationReason
from praisonlike.errors import RunCancelled
from praisonlike.testing import Call, Delay, LocalLLMServer, Text, ToolCalls

HANG_GUARD = 8.0  # seconds; only catches hangs


def make_agent(server: LocalLLMServer, tools: list[Any] | None = None) -> Agent:
    return Agent(instructions="You use tools.", llm=server.llm_config(), tools=tools or [])


async def wait_until(condition: Any) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.005)


def cancel_when(condition: Any, agent: Agent) -> None:
    """Call ``agent.cancel()`` from another thread once ``condition()`` holds."""

    def watch() -> None:
        deadline = time.monotonic() + HANG_GUARD
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.005)
        agent.cancel()

    threading.Thread(target=watch, daemon=True).start()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is Python 3.11+")
async def test_a_cancelled_model_call_leaves_the_callers_task_uncancelled(
    server: LocalLLMServer,
) -> None:
    agent = make_agent(server)
    server.add(Delay(30, Text("too late")))
    cancel_when(lambda: server.request_count == 1, agent)

    with pytest.raises(RunCancelled):
        await agent.achat("go")

    task = asyncio.current_task()
    assert task is not None
    assert task.cancelling() == 0
    await asyncio.sleep(0.01)  # would raise CancelledError if a cancel request were left
    server.add(Text("back"))
    assert await agent.achat("again") == "back"


async def test_cancelling_the_callers_task_stays_a_cancelled_error(
    server: LocalLLMServer,
) -> None:
    agent = make_agent(server)
    server.add(Delay(30, Text("too late")))
    task = asyncio.ensure_future(agent.achat("go"))
    await wait_until(lambda: server.request_count == 1)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG_GUARD)

    assert agent.chat_history == []


async def test_a_tool_that_swallows_the_cancel_still_ends_the_turn(
    server: LocalLLMServer,
) -> None:
    entered = threading.Event()

    async def stubborn() -> str:
        """Waits, and ignores being cancelled."""
        entered.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "ignored the cancel"
        return "slept"

    agent = make_agent(server, [stubborn])
    server.extend([ToolCalls([Call("stubborn", {})]), Text("never sent")])
    cancel_when(entered.is_set, agent)

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        await agent.achat("go")

    assert time.monotonic() - started < HANG_GUARD / 2
    assert server.request_count == 1
    assert agent.chat_history == []
    task = asyncio.current_task()
    assert task is not None
    if sys.version_info >= (3, 11):
        assert task.cancelling() == 0
    result = agent.last_result
    assert result is not None and result.termination_reason is TerminationReason.CANCELLED


async def test_sync_tools_under_achat_reuse_worker_threads(server: LocalLLMServer) -> None:
    threads: list[threading.Thread] = []

    def where() -> str:
        """Says which thread it ran on."""
        threads.append(threading.current_thread())
        return "here"

    agent = make_agent(server, [where])
    existing = set(threading.enumerate())
    turns = 10
    for _ in range(turns):
        server.extend([ToolCalls([Call("where", {})]), Text("done")])
        assert await agent.achat("go") == "done"
        agent.clear_history()

    assert len(threads) == turns
    assert all(t is not threading.main_thread() for t in threads)  # the loop never blocked
    started = {t for t in threads if t not in existing}
    assert len(started) <= 2  # the pool had none idle, or one; a thread per call starts 10


async def test_a_burst_of_sync_tools_leaves_few_threads_behind(server: LocalLLMServer) -> None:
    burst = 40
    barrier = threading.Barrier(burst, timeout=HANG_GUARD)

    def gather() -> str:
        """Waits until every concurrent call has started."""
        barrier.wait()
        return "together"

    agents = [make_agent(server, [gather]) for _ in range(burst)]
    server.extend([ToolCalls([Call("gather", {})]) for _ in range(burst)])
    server.extend([Text("done") for _ in range(burst)])

    answers = await asyncio.gather(*(agent.achat("go") for agent in agents))

    assert answers == ["done"] * burst  # all 40 tools ran at once, each on its own thread

    def workers() -> int:
        return sum(t.name == "praisonlike-worker" for t in threading.enumerate())

    await wait_until(lambda: workers() <= 16)  # the idle threads kept, at most


request_tag: contextvars.ContextVar[str] = contextvars.ContextVar("request_tag", default="unset")


async def test_a_sync_tool_under_achat_sees_the_callers_context(server: LocalLLMServer) -> None:
    def tag() -> str:
        """Reports the caller's request tag."""
        return request_tag.get()

    agent = make_agent(server, [tag])
    server.extend([ToolCalls([Call("tag", {})]), Text("done")])
    request_tag.set("req-42")

    assert await agent.achat("go") == "done"

    assert server.requests[1].messages[-1]["content"] == "req-42"


def test_a_sync_tool_that_outlives_its_event_loop_ends_quietly(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    finished = threading.Event()
    errors: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", errors.append)

    def linger() -> str:
        """Outlives its timeout and the event loop."""
        release.wait(HANG_GUARD)
        finished.set()
        return "late"

    agent = Agent(
        instructions="You use tools.",
        llm=server.llm_config(),
        tools=[linger],
        execution=ExecutionConfig(tool_timeout=0.1),
    )
    server.extend([ToolCalls([Call("linger", {})]), Text("moved on")])

    assert asyncio.run(agent.achat("go")) == "moved on"  # the loop is closed after this
    release.set()

    assert finished.wait(HANG_GUARD)
    time.sleep(0.05)  # the worker hands its result to the closed loop, then waits for work
    assert errors == []
    assert "timed out" in server.requests[1].messages[-1]["content"]


async def test_a_sync_tool_raising_stopiteration_under_achat_is_a_tool_error(
    server: LocalLLMServer,
) -> None:
    def exhausted() -> str:
        """Has nothing left."""
        raise StopIteration("empty")

    agent = make_agent(server, [exhausted])
    server.extend([ToolCalls([Call("exhausted", {})]), Text("noted")])

    assert await asyncio.wait_for(agent.achat("go"), HANG_GUARD) == "noted"

    content = server.requests[1].messages[-1]["content"]
    assert content.startswith("Error") and "StopIteration" in content
