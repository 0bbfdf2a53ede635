"""Timeouts: per model call (``timeout``), per tool (``tool_timeout``), per run
(``max_execution_time``).

A call past ``timeout`` is a retryable ``timeout`` error; a tool past
``tool_timeout`` becomes an error tool message and the loop goes on; a run
past ``max_execution_time`` ends with ``RunTimeout`` (termination reason
``timeout``) and leaves the history unchanged. Tools that block wait on an
Event the test sets at the end, so no thread outlives the test.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, TerminationReason
from praisonlike.errors import LLMTimeoutError, RunCancelled, RunTimeout
from praisonlike.events import FallbackEvent, RetryEvent, RunFinished, ToolResultEvent
from praisonlike.hooks import HookContext, HookPoint
from praisonlike.testing import Call, Delay, Fault, LocalLLMServer, Text, ToolCalls
from praisonlike.tools import tool

WAYS = ("chat", "achat", "iter_stream")
HANG_GUARD = 8.0  # seconds; only catches hangs, the waits under test are far shorter


@pytest.fixture(scope="module", autouse=True)
def warm_client() -> None:
    """One turn first, so LiteLLM's import and first-call setup never land in a timed test."""
    with LocalLLMServer([Text("warm")]) as server:
        Agent(instructions="Warm up.", llm=server.llm_config()).chat("hi")


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()


def run_turn(agent: Agent, way: str, prompt: str = "go") -> str:
    if way == "chat":
        return str(agent.chat(prompt))
    if way == "achat":
        return str(asyncio.run(agent.achat(prompt)))
    return "".join(agent.iter_stream(prompt))


def make_agent(server: LocalLLMServer, tools: list[Any], **execution: Any) -> Agent:
    execution.setdefault("retry_base", 0.01)
    return Agent(
        instructions="You use tools.",
        llm=server.llm_config(),
        tools=tools,
        execution=ExecutionConfig(**execution),
    )


def primed(agent: Agent, server: LocalLLMServer) -> list[dict[str, Any]]:
    """Give ``agent`` one finished turn, run without the limits under test."""
    limits = agent.execution
    agent.execution = ExecutionConfig()
    server.add(Text("warm"))
    agent.chat("warm up")
    server.reset()
    agent.execution = limits
    return agent.chat_history


@pytest.mark.parametrize("way", WAYS)
def test_call_timeout_is_retried_then_raised(server: LocalLLMServer, way: str) -> None:
    agent = make_agent(server, [], timeout=0.3, max_retries=1)
    before = primed(agent, server)
    server.extend([Delay(30, Text("too late")), Delay(30, Text("too late"))])

    started = time.monotonic()
    with pytest.raises(LLMTimeoutError) as raised:
        run_turn(agent, way)

    assert time.monotonic() - started < HANG_GUARD
    assert raised.value.retried == 1
    assert server.request_count == 2
    assert agent.chat_history == before


def test_call_timeout_emits_a_timeout_retry(server: LocalLLMServer) -> None:
    server.extend([Delay(30, Text("too late")), Text("in time")])
    agent = make_agent(server, [], timeout=0.3, max_retries=1)

    events = list(agent.stream_events("go", stream=False))

    (retry,) = [e for e in events if isinstance(e, RetryEvent)]
    assert retry.error_kind == "timeout"
    assert isinstance(events[-1], RunFinished) and events[-1].result is not None
    assert events[-1].result.output == "in time"


@pytest.mark.parametrize("way", WAYS)
def test_a_timeout_of_a_model_served_on_this_machine_is_not_retried(
    server: LocalLLMServer, way: str
) -> None:
    llm = {**server.llm_config(), "features": {"local_server": True}}
    agent = Agent(
        instructions="You answer.",
        llm=llm,
        execution=ExecutionConfig(timeout=0.3, max_retries=2, retry_base=0.01),
    )
    server.extend([Delay(30, Text("too late")), Text("a retry would get this")])

    with pytest.raises(LLMTimeoutError) as raised:
        run_turn(agent, way)

    assert raised.value.retried == 0
    assert server.request_count == 1
    assert agent.chat_history == []


def test_a_timeout_of_a_model_served_on_this_machine_falls_back(server: LocalLLMServer) -> None:
    llm = {**server.llm_config(), "features": {"local_server": True}}
    agent = Agent(
        instructions="You answer.",
        llm=llm,
        fallback_models=[server.llm_config("other-model")],
        execution=ExecutionConfig(timeout=0.3, max_retries=2, retry_base=0.01),
    )
    server.extend([Delay(30, Text("too late")), Text("from the fallback")])

    events = list(agent.stream_events("go", stream=False))

    assert not [e for e in events if isinstance(e, RetryEvent)]
    assert [e.to_model for e in events if isinstance(e, FallbackEvent)] == ["openai/other-model"]
    assert str(agent.last_result.output if agent.last_result else "") == "from the fallback"


def blocking_tool(release: threading.Event) -> Any:
    def wait_for_release() -> str:
        """Blocks until the test releases it."""
        release.wait(HANG_GUARD)
        return "released"

    return wait_for_release


@pytest.mark.parametrize("way", WAYS)
def test_sync_tool_past_tool_timeout_becomes_an_error_message(
    server: LocalLLMServer, release: threading.Event, way: str
) -> None:
    server.extend([ToolCalls([Call("wait_for_release", {}, id="slow")]), Text("carried on")])
    agent = make_agent(server, [blocking_tool(release)], tool_timeout=0.2)

    assert run_turn(agent, way) == "carried on"

    tool_message = server.requests[1].messages[-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "slow"
    assert tool_message["content"].startswith("Error")
    assert "timed out" in tool_message["content"]
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.tool_calls[0].is_error


def test_async_tool_past_tool_timeout_becomes_an_error_message(server: LocalLLMServer) -> None:
    async def sleepy() -> str:
        """Sleeps far too long."""
        await asyncio.sleep(HANG_GUARD)
        return "late"

    server.extend([ToolCalls([Call("sleepy", {})]), Text("carried on")])
    agent = make_agent(server, [sleepy], tool_timeout=0.2)

    events = list(agent.stream_events("go", stream=False))

    (tool_result,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert tool_result.is_error and "timed out" in tool_result.result
    assert isinstance(events[-1], RunFinished)
    assert events[-1].termination_reason is TerminationReason.COMPLETED


@pytest.mark.parametrize("way", WAYS)
def test_slow_tool_past_max_execution_time_raises_run_timeout(
    server: LocalLLMServer, release: threading.Event, way: str
) -> None:
    agent = make_agent(server, [blocking_tool(release)], max_execution_time=1.0)
    before = primed(agent, server)
    server.extend([ToolCalls([Call("wait_for_release", {})]), Text("never sent")])

    started = time.monotonic()
    with pytest.raises(RunTimeout):
        run_turn(agent, way)

    assert time.monotonic() - started < HANG_GUARD / 2
    assert server.request_count == 1
    assert agent.chat_history == before
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.TIMEOUT


@pytest.mark.parametrize("way", WAYS)
def test_slow_model_past_max_execution_time_raises_run_timeout(
    server: LocalLLMServer, way: str
) -> None:
    agent = make_agent(server, [], max_execution_time=1.0)
    before = primed(agent, server)
    server.extend([Delay(30, Text("too late")), Text("never sent")])

    started = time.monotonic()
    with pytest.raises(RunTimeout):
        run_turn(agent, way)

    assert time.monotonic() - started < HANG_GUARD / 2
    assert server.request_count == 1
    assert agent.chat_history == before
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.TIMEOUT


def test_slow_stream_past_max_execution_time_raises_run_timeout(server: LocalLLMServer) -> None:
    agent = make_agent(server, [], max_execution_time=1.0)
    server.add(Text("word " * 200, chunk_size=5, chunk_delay=0.02))

    events: list[Any] = []
    with pytest.raises(RunTimeout):
        events.extend(agent.stream_events("go"))

    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.termination_reason is TerminationReason.TIMEOUT
    assert agent.chat_history == []


def test_retry_wait_past_the_deadline_ends_the_run_at_once(server: LocalLLMServer) -> None:
    agent = make_agent(server, [], max_execution_time=1.0)
    server.extend([Fault.rate_limit(retry_after=5), Text("never sent")])

    started = time.monotonic()
    with pytest.raises(RunTimeout):
        agent.chat("go")

    assert time.monotonic() - started < 2.5  # did not sleep the 5 s Retry-After
    assert server.request_count == 1


def test_asyncio_run_does_not_wait_for_a_timed_out_tool(
    server: LocalLLMServer, release: threading.Event
) -> None:
    server.extend([ToolCalls([Call("wait_for_release", {})]), Text("carried on")])
    agent = make_agent(server, [blocking_tool(release)], tool_timeout=0.2)

    started = time.monotonic()
    assert asyncio.run(agent.achat("go")) == "carried on"

    assert time.monotonic() - started < HANG_GUARD / 2


# -- async user code past the deadline ---------------------------------------------------


def hanging_hook(point: HookPoint, calls: list[str]) -> Any:
    async def hang(ctx: HookContext) -> None:
        calls.append(ctx.event.value)
        await asyncio.sleep(HANG_GUARD * 4)  # cancelled when the turn stops waiting

    return hang


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(parallel_safe=True)
def double(n: int) -> int:
    """Double a number."""
    return 2 * n


@pytest.mark.parametrize("point", [HookPoint.BEFORE_LLM, HookPoint.BEFORE_TOOL])
@pytest.mark.parametrize("way", WAYS)
def test_an_async_hook_past_max_execution_time_ends_the_turn_with_run_timeout(
    server: LocalLLMServer, way: str, point: HookPoint
) -> None:
    agent = make_agent(server, [add], max_execution_time=1.0)
    before = primed(agent, server)
    calls: list[str] = []
    agent.on(point)(hanging_hook(point, calls))
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("never sent")])

    started = time.monotonic()
    with pytest.raises(RunTimeout):
        run_turn(agent, way)

    assert time.monotonic() - started < HANG_GUARD / 2
    assert calls == [point.value]
    assert server.request_count == (0 if point is HookPoint.BEFORE_LLM else 1)
    assert agent.chat_history == before
    result = agent.last_result
    assert result is not None and result.termination_reason is TerminationReason.TIMEOUT


@pytest.mark.parametrize("way", ["chat", "achat"])
def test_an_async_hook_in_a_parallel_batch_past_the_deadline_ends_the_turn(
    server: LocalLLMServer, way: str
) -> None:
    agent = make_agent(server, [double], max_execution_time=1.0)
    calls: list[str] = []
    agent.on(HookPoint.BEFORE_TOOL)(hanging_hook(HookPoint.BEFORE_TOOL, calls))
    server.extend(
        [ToolCalls([Call("double", {"n": 1}), Call("double", {"n": 2})]), Text("never sent")]
    )

    started = time.monotonic()
    with pytest.raises(RunTimeout):
        run_turn(agent, way)

    assert time.monotonic() - started < HANG_GUARD / 2
    assert calls == ["before_tool", "before_tool"]
    assert server.request_count == 1 and agent.chat_history == []


@pytest.mark.parametrize("way", WAYS)
def test_cancel_stops_waiting_for_an_async_hook(server: LocalLLMServer, way: str) -> None:
    agent = make_agent(server, [])
    calls: list[str] = []
    agent.on(HookPoint.BEFORE_LLM)(hanging_hook(HookPoint.BEFORE_LLM, calls))
    server.add(Text("never sent"))
    timer = threading.Timer(0.5, agent.cancel)
    timer.start()

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        run_turn(agent, way)

    timer.join()
    assert time.monotonic() - started < HANG_GUARD / 2
    assert calls == ["before_llm"] and server.request_count == 0
    assert agent.chat_history == []


@pytest.mark.parametrize("way", ["chat", "achat"])
def test_an_async_on_error_hook_still_runs_after_the_deadline(
    server: LocalLLMServer, release: threading.Event, way: str
) -> None:
    agent = make_agent(server, [blocking_tool(release)], max_execution_time=0.5)
    finished: list[str] = []

    @agent.on(HookPoint.ON_ERROR)
    async def note(ctx: HookContext) -> None:
        await asyncio.sleep(0.05)
        finished.append(type(ctx.error).__name__)

    server.extend([ToolCalls([Call("wait_for_release", {})]), Text("never sent")])
    with pytest.raises(RunTimeout):
        run_turn(agent, way)

    assert finished == ["RunTimeout"]
