"""Cancellation: ``agent.cancel()`` and a ``CancelToken``, from another thread.

A cancelled turn raises ``RunCancelled``, leaves the history unchanged, and
``stream_events`` ends with a ``run_finished`` event whose termination reason
is ``cancelled`` before raising. Cancellation is checked before each call,
between tool calls, between stream chunks and during backoff sleeps; a
pending model call is abandoned at once. Blocking tools wait on an Event the
test controls, released when the test ends.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from transport_support import use_transport

from praisonlike import (
    Agent,
    CancelToken,
    ExecutionConfig,
    MemoryConfig,
    RunContext,
    TerminationReason,
    tool,
)
from praisonlike.errors import RunCancelled
from praisonlike.events import RetryEvent, RunFinished, TextDelta
from praisonlike.memory import MessageStatus, SQLiteStore
from praisonlike.testing import Call, Delay, Fault, LocalLLMServer, Text, ToolCalls

WAYS = ("chat", "achat", "iter_stream")
HANG_GUARD = 8.0  # seconds; only catches hangs
LONG_STREAM = Text("word " * 200, chunk_size=5, chunk_delay=0.02)  # about 4 s if not cancelled


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


def when(condition: Callable[[], bool], action: Callable[[], None]) -> threading.Thread:
    """Run ``action`` on another thread as soon as ``condition()`` holds."""

    def watch() -> None:
        deadline = time.monotonic() + 60
        while not condition():
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)
        action()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def run_turn(agent: Agent, way: str, prompt: str = "go", **kwargs: Any) -> str:
    if way == "chat":
        return str(agent.chat(prompt, **kwargs))
    if way == "achat":
        return str(asyncio.run(agent.achat(prompt, **kwargs)))
    return "".join(agent.iter_stream(prompt, **kwargs))


def make_agent(server: LocalLLMServer, tools: list[Any] | None = None, **execution: Any) -> Agent:
    execution.setdefault("retry_base", 0.01)
    return Agent(
        instructions="You use tools.",
        llm=server.llm_config(),
        tools=tools or [],
        execution=ExecutionConfig(**execution),
    )


def primed(agent: Agent, server: LocalLLMServer) -> list[dict[str, Any]]:
    server.add(Text("warm"))
    agent.chat("warm up")
    server.reset()
    return agent.chat_history


def assert_cancelled(agent: Agent, before: list[dict[str, Any]]) -> None:
    assert agent.chat_history == before
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.CANCELLED
    assert result.error


class BlockingTool:
    """A tool that signals when it starts and blocks until released."""

    def __init__(self, release: threading.Event) -> None:
        self.entered = threading.Event()
        self.release = release

    def tool(self) -> Any:
        def wait_for_release() -> str:
            """Blocks until the test releases it."""
            self.entered.set()
            self.release.wait(HANG_GUARD)
            return "released"

        return wait_for_release


@pytest.mark.parametrize("way", WAYS)
def test_agent_cancel_mid_tool(server: LocalLLMServer, release: threading.Event, way: str) -> None:
    blocking = BlockingTool(release)
    agent = make_agent(server, [blocking.tool()])
    before = primed(agent, server)
    server.extend([ToolCalls([Call("wait_for_release", {})]), Text("never sent")])

    def cancel_then_release() -> None:
        agent.cancel()
        release.set()  # a sync tool under chat() finishes; the turn must still end

    when(blocking.entered.is_set, cancel_then_release)
    with pytest.raises(RunCancelled):
        run_turn(agent, way)

    assert server.request_count == 1  # the tool result was never sent back
    assert_cancelled(agent, before)


@pytest.mark.parametrize("source", ["agent", "token"])
async def test_achat_abandons_a_blocked_tool_at_once(
    server: LocalLLMServer, release: threading.Event, source: str
) -> None:
    blocking = BlockingTool(release)
    agent = make_agent(server, [blocking.tool()])
    token = CancelToken()
    server.extend([ToolCalls([Call("wait_for_release", {})]), Text("never sent")])
    when(blocking.entered.is_set, agent.cancel if source == "agent" else token.cancel)

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        await agent.achat("go", cancel_token=token)

    assert time.monotonic() - started < HANG_GUARD / 2
    assert not release.is_set()  # the tool is still blocked: the turn did not wait for it
    assert_cancelled(agent, [])


async def test_achat_abandons_parallel_tools_at_once(
    server: LocalLLMServer, release: threading.Event
) -> None:
    entered: list[str] = []

    @tool(parallel_safe=True)
    def fetch(url: str) -> str:
        """Fetch a page; blocks until the test releases it."""
        entered.append(url)
        release.wait(HANG_GUARD)
        return url

    agent = make_agent(server, [fetch])
    server.extend([ToolCalls([Call("fetch", {"url": "a"}), Call("fetch", {"url": "b"})])])
    when(lambda: len(entered) == 2, agent.cancel)

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        await agent.achat("go")

    assert time.monotonic() - started < HANG_GUARD / 2
    assert not release.is_set()
    assert_cancelled(agent, [])


def test_a_tool_can_watch_the_cancel_token(server: LocalLLMServer) -> None:
    entered = threading.Event()

    def cooperative(ctx: RunContext[None]) -> str:
        """Works until cancelled."""
        entered.set()
        deadline = time.monotonic() + HANG_GUARD
        while not ctx.cancel_token.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        return "stopped early"

    agent = make_agent(server, [cooperative])
    server.extend([ToolCalls([Call("cooperative", {})]), Text("never sent")])
    when(entered.is_set, agent.cancel)

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        agent.chat("go")

    assert time.monotonic() - started < HANG_GUARD / 2
    assert server.request_count == 1


@pytest.mark.parametrize("way", WAYS)
def test_cancel_token_mid_tool(server: LocalLLMServer, release: threading.Event, way: str) -> None:
    blocking = BlockingTool(release)
    agent = make_agent(server, [blocking.tool()])
    before = primed(agent, server)
    token = CancelToken()
    server.extend([ToolCalls([Call("wait_for_release", {})]), Text("never sent")])

    def cancel_then_release() -> None:
        token.cancel("the user pressed stop")
        release.set()

    when(blocking.entered.is_set, cancel_then_release)
    with pytest.raises(RunCancelled, match="the user pressed stop"):
        run_turn(agent, way, cancel_token=token)

    assert server.request_count == 1
    assert_cancelled(agent, before)


@pytest.mark.parametrize("way", WAYS)
def test_a_cancelled_token_sends_nothing(server: LocalLLMServer, way: str) -> None:
    token = CancelToken()
    token.cancel()
    agent = make_agent(server)
    server.add(Text("never sent"))

    with pytest.raises(RunCancelled):
        run_turn(agent, way, cancel_token=token)

    assert server.request_count == 0
    assert_cancelled(agent, [])


def stream_until_cancelled(
    agent: Agent, cancel: Callable[[], None], **kwargs: Any
) -> tuple[list[Any], float]:
    """Consume ``stream_events``; cancel from another thread after the first text delta."""
    first_text = threading.Event()
    when(first_text.is_set, cancel)
    events: list[Any] = []
    started = time.monotonic()
    with pytest.raises(RunCancelled):
        for event in agent.stream_events("go", **kwargs):
            events.append(event)
            if isinstance(event, TextDelta):
                first_text.set()
    return events, time.monotonic() - started


@pytest.mark.parametrize("source", ["agent", "token"])
def test_cancel_mid_stream(server: LocalLLMServer, source: str) -> None:
    agent = make_agent(server)
    before = primed(agent, server)
    server.add(LONG_STREAM)
    token = CancelToken()

    events, elapsed = stream_until_cancelled(
        agent, agent.cancel if source == "agent" else token.cancel, cancel_token=token
    )

    assert elapsed < 2.0  # the whole stream would take about 4 s
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert 0 < len(text) < len(LONG_STREAM.content)
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.termination_reason is TerminationReason.CANCELLED
    assert_cancelled(agent, before)


def test_iter_stream_raises_when_cancelled(server: LocalLLMServer) -> None:
    agent = make_agent(server)
    server.add(LONG_STREAM)
    seen = threading.Event()
    when(seen.is_set, agent.cancel)

    chunks: list[str] = []
    with pytest.raises(RunCancelled):
        for chunk in agent.iter_stream("go"):
            chunks.append(chunk)
            seen.set()

    assert chunks and len("".join(chunks)) < len(LONG_STREAM.content)
    assert_cancelled(agent, [])


async def test_cancel_mid_astream(server: LocalLLMServer) -> None:
    agent = make_agent(server)
    server.add(LONG_STREAM)
    first_text = threading.Event()
    when(first_text.is_set, agent.cancel)

    events: list[Any] = []
    started = time.monotonic()
    with pytest.raises(RunCancelled):
        async for event in agent.astream_events("go"):
            events.append(event)
            if isinstance(event, TextDelta):
                first_text.set()

    assert time.monotonic() - started < 2.0
    assert isinstance(events[-1], RunFinished)
    assert events[-1].termination_reason is TerminationReason.CANCELLED
    assert_cancelled(agent, [])


@pytest.mark.parametrize("way", WAYS)
def test_an_interruptible_call_is_abandoned_while_waiting_for_a_slow_model(
    server: LocalLLMServer, way: str
) -> None:
    agent = make_agent(server, interruptible_calls=True)
    before = primed(agent, server)
    server.add(Delay(30, Text("too late")))
    when(lambda: server.request_count == 1, agent.cancel)

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        run_turn(agent, way)

    assert time.monotonic() - started < HANG_GUARD / 2
    assert_cancelled(agent, before)


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.mark.parametrize("reply", ["tool call", "final answer"])
@pytest.mark.parametrize("way", ["chat", "iter_stream"])
def test_a_call_on_the_callers_thread_is_cancelled_when_it_returns(
    server: LocalLLMServer, way: str, reply: str
) -> None:
    """By default (``interruptible_calls=False``) the call in flight is waited for (under
    ``chat`` its usage is counted; a stream stops at its first chunk), and the
    turn then ends cancelled, without running the tool or a second request; a
    final answer that arrives after the cancel is not the turn's answer either."""
    agent = make_agent(server, [add])
    before = primed(agent, server)
    late = (
        Text("too late") if reply == "final answer" else ToolCalls([Call("add", {"a": 1, "b": 2})])
    )
    server.add(Delay(0.5, late))
    server.add(Text("never sent"))
    when(lambda: server.request_count == 1, agent.cancel)

    with pytest.raises(RunCancelled):
        run_turn(agent, way)

    assert server.request_count == 1
    assert_cancelled(agent, before)
    result = agent.last_result
    assert result is not None and not result.tool_calls
    # chat waits for the reply and counts its usage; the stream is stopped at its
    # first chunk, before the server reported usage, so its tokens are estimated
    assert result.usage.requests == 1
    assert result.usage.prompt_tokens > 0
    assert result.usage.estimated is (way != "chat")


RETRY_AFTER = 5.0


@pytest.mark.parametrize("way", WAYS)
def test_cancel_during_backoff_is_prompt(server: LocalLLMServer, way: str) -> None:
    agent = make_agent(server, max_retries=2)
    before = primed(agent, server)
    server.extend([Fault.rate_limit(retry_after=RETRY_AFTER), Text("never sent")])
    when(lambda: server.request_count == 1, agent.cancel)

    started = time.monotonic()
    with pytest.raises(RunCancelled):
        run_turn(agent, way)

    assert time.monotonic() - started < RETRY_AFTER / 2
    assert server.request_count == 1
    assert_cancelled(agent, before)


def test_cancel_during_backoff_after_the_retry_event(server: LocalLLMServer) -> None:
    agent = make_agent(server, max_retries=2)
    server.extend([Fault.rate_limit(retry_after=RETRY_AFTER), Text("never sent")])
    retrying = threading.Event()
    when(retrying.is_set, agent.cancel)

    events: list[Any] = []
    started = time.monotonic()
    with pytest.raises(RunCancelled):
        for event in agent.stream_events("go", stream=False):
            events.append(event)
            if isinstance(event, RetryEvent):
                assert event.wait == pytest.approx(RETRY_AFTER)
                retrying.set()

    assert time.monotonic() - started < RETRY_AFTER / 2
    assert isinstance(events[-1], RunFinished)
    assert events[-1].termination_reason is TerminationReason.CANCELLED


def test_the_agent_works_again_after_a_cancelled_turn(server: LocalLLMServer) -> None:
    token = CancelToken()
    token.cancel()
    agent = make_agent(server)
    with pytest.raises(RunCancelled):
        agent.chat("go", cancel_token=token)

    server.add(Text("fine again"))
    assert agent.chat("again") == "fine again"
    assert agent.chat_history == [
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": "fine again"},
    ]


# -- the tokens of a cancelled turn -------------------------------------------------------


def cancel_when_streaming(agent: Agent, way: str) -> str:
    """Run a streamed turn and cancel it after its first text; the text seen."""
    seen: list[str] = []
    first_text = threading.Event()
    when(first_text.is_set, agent.cancel)

    async def consume() -> None:
        async for event in agent.astream_events("go"):
            if isinstance(event, TextDelta):
                seen.append(event.text)
                first_text.set()

    with pytest.raises(RunCancelled):
        if way == "stream_events":
            for event in agent.stream_events("go"):
                if isinstance(event, TextDelta):
                    seen.append(event.text)
                    first_text.set()
        else:
            asyncio.run(consume())
    return "".join(seen)


@pytest.mark.parametrize("way", ["stream_events", "astream_events"])
def test_a_turn_cancelled_mid_stream_counts_its_tokens_as_estimated(
    server: LocalLLMServer, way: str
) -> None:
    agent = make_agent(server)
    server.add(LONG_STREAM)

    streamed = cancel_when_streaming(agent, way)

    result = agent.last_result
    assert result is not None and result.termination_reason is TerminationReason.CANCELLED
    usage = result.usage
    assert usage.estimated
    assert usage.requests == 1
    assert usage.prompt_tokens > 0
    # every "word " is at least one token; the whole answer was not streamed
    assert len(streamed.split()) <= usage.completion_tokens < len(LONG_STREAM.content.split())
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert agent.usage.total_tokens == usage.total_tokens


@pytest.mark.parametrize("way", WAYS)
def test_a_turn_cancelled_while_waiting_counts_its_prompt(server: LocalLLMServer, way: str) -> None:
    agent = make_agent(server, interruptible_calls=True)
    server.add(Delay(30, Text("too late")))
    when(lambda: server.request_count == 1, agent.cancel)

    with pytest.raises(RunCancelled):
        run_turn(agent, way)

    usage = agent.last_result.usage if agent.last_result else None
    assert usage is not None and usage.estimated
    assert (usage.requests, usage.completion_tokens) == (1, 0)
    assert usage.prompt_tokens > 0


def test_a_turn_cancelled_before_sending_costs_nothing(server: LocalLLMServer) -> None:
    token = CancelToken()
    token.cancel()
    agent = make_agent(server)
    with pytest.raises(RunCancelled):
        agent.chat("go", cancel_token=token)
    result = agent.last_result
    assert result is not None and server.request_count == 0
    assert (result.usage.requests, result.usage.total_tokens, result.usage.estimated) == (
        0,
        0,
        False,
    )


def test_a_cancelled_turn_stores_its_estimated_tokens(
    server: LocalLLMServer, tmp_path: Path
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    agent = Agent(
        instructions="You use tools.",
        llm=server.llm_config(),
        session_id="s1",
        memory=MemoryConfig(store=store, long_term=False),
        model_prices={"test-model": {"input": 1.0, "output": 2.0}},
    )
    server.add(LONG_STREAM)

    cancel_when_streaming(agent, "stream_events")

    usage = agent.last_result.usage if agent.last_result else None
    assert usage is not None and usage.estimated and usage.completion_tokens > 0
    [turn] = store.load_turns("s1")
    assert turn.status is MessageStatus.CANCELLED
    assert (turn.prompt_tokens, turn.completion_tokens) == (
        usage.prompt_tokens,
        usage.completion_tokens,
    )
    assert turn.prompt_tokens > 0 and turn.completion_tokens > 0
    assert turn.cost == pytest.approx(
        (usage.prompt_tokens * 1.0 + usage.completion_tokens * 2.0) / 1e6
    )


# -- a stream left early -----------------------------------------------------------------


def _first_delta(agent: Agent, way: str) -> None:
    """Read a stream of ``way`` until its first text, then leave it."""
    if way == "stream_events":
        for event in agent.stream_events("Write at length."):
            if isinstance(event, TextDelta):
                break
    elif way == "iter_stream":
        for _text in agent.iter_stream("Write at length."):
            break
    else:

        async def leave() -> None:
            async for event in agent.astream_events("Write at length."):
                if isinstance(event, TextDelta):
                    break

        asyncio.run(leave())


@pytest.mark.parametrize("transport", ["openai", "litellm"])
@pytest.mark.parametrize("way", ["stream_events", "iter_stream", "astream_events"])
def test_a_stream_left_early_closes_its_connection_at_once(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, way: str, transport: str
) -> None:
    """The server stops generating when the caller leaves, not when the garbage collector
    runs (a local llama.cpp server would otherwise go on, and the next turn wait for it)."""
    use_transport(monkeypatch, transport, server.llm_config())
    server.extend([LONG_STREAM, Text("next")])
    agent = Agent(instructions="Write.", llm=server.llm_config())
    gc.disable()  # a connection held until collected stays held
    try:
        _first_delta(agent, way)
        deadline = time.monotonic() + HANG_GUARD
        while server.open_connections and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.open_connections == 0
    finally:
        gc.enable()
    assert agent.chat("And now?") == "next"
