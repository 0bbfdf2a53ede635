"""Turns on one agent run one at a time, from threads and from tasks.

A second turn waits for the first and then sees its history, under ``chat``,
``achat`` and ``iter_stream``; a turn started from inside the running turn
raises ConcurrentTurnError at once instead of waiting for itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.errors import ConcurrentTurnError
from praisonlike.hooks import HookContext, HookPoint
from praisonlike.testing import Call, Delay, Fault, LocalLLMServer, RecordedRequest, Text, ToolCalls
from praisonlike.tools.python_tool import function_tool

BOUND = 30.0


def echo_slowly(request: RecordedRequest) -> Delay:
    """Answer the last user message, slowly enough for the turns to overlap if they could."""
    return Delay(0.3, Text(f"answer to {request.messages[-1]['content']}"))


def assert_two_whole_turns_in_order(agent: Agent, server: LocalLLMServer) -> None:
    history = agent.chat_history
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    first, second = history[0]["content"], history[2]["content"]
    assert {first, second} == {"one", "two"}
    assert history[1]["content"] == f"answer to {first}"
    assert history[3]["content"] == f"answer to {second}"
    later = server.requests[1].messages
    assert [m["content"] for m in later if m["role"] != "system"] == [
        first,
        f"answer to {first}",
        second,
    ]


def run_in_threads(*calls: Callable[[], Any]) -> list[Any]:
    results: list[Any] = [None] * len(calls)

    def target(index: int) -> None:
        try:
            results[index] = calls[index]()
        except BaseException as exc:
            results[index] = exc

    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BOUND)
    assert not any(t.is_alive() for t in threads), "a turn never finished"
    return results


def run_on_own_loop(main: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run ``main`` on a fresh loop in a thread, so a blocked loop fails the test."""
    [result] = run_in_threads(lambda: asyncio.run(asyncio.wait_for(main(), BOUND)))
    if isinstance(result, BaseException):
        raise result
    return result


def test_two_threads_chatting_take_turns(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.default = echo_slowly
    agent = Agent(instructions="x", llm=llm)
    answers = run_in_threads(lambda: agent.chat("one"), lambda: agent.chat("two"))
    assert sorted(answers) == ["answer to one", "answer to two"]
    assert_two_whole_turns_in_order(agent, server)


def test_two_threads_streaming_take_turns(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.default = echo_slowly
    agent = Agent(instructions="x", llm=llm)
    answers = run_in_threads(
        lambda: "".join(agent.iter_stream("one")), lambda: "".join(agent.iter_stream("two"))
    )
    assert sorted(answers) == ["answer to one", "answer to two"]
    assert_two_whole_turns_in_order(agent, server)


def test_two_tasks_take_turns_without_blocking_the_loop(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.default = echo_slowly
    agent = Agent(instructions="x", llm=llm)
    ticks: list[int] = []

    async def tick_while_waiting() -> None:
        while len(agent.chat_history) < 4:
            ticks.append(1)
            await asyncio.sleep(0.01)

    async def main() -> list[Any]:
        results = await asyncio.gather(agent.achat("one"), agent.achat("two"), tick_while_waiting())
        return list(results[:2])

    answers = run_on_own_loop(main)
    assert sorted(answers) == ["answer to one", "answer to two"]
    assert ticks
    assert_two_whole_turns_in_order(agent, server)


def test_a_thread_and_a_task_take_turns(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.default = echo_slowly
    agent = Agent(instructions="x", llm=llm)

    async def main() -> Any:
        return await agent.achat("two")

    answers = run_in_threads(lambda: agent.chat("one"), lambda: run_on_own_loop(main))
    assert sorted(answers) == ["answer to one", "answer to two"]
    assert_two_whole_turns_in_order(agent, server)


def test_a_failed_turn_lets_the_next_one_run(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    agent = Agent(instructions="x", llm=llm)
    earlier_turn_finished: list[bool] = []

    def fail_first(request: RecordedRequest) -> Any:
        earlier_turn_finished.append(agent.last_result is not None)
        if len(earlier_turn_finished) == 1:
            return Delay(0.3, Fault.bad_request("no"))
        return echo_slowly(request)

    server.default = fail_first
    results = run_in_threads(lambda: agent.chat("one"), lambda: agent.chat("two"))
    assert earlier_turn_finished == [False, True]
    assert sum(isinstance(r, Exception) for r in results) == 1
    answer = next(r for r in results if isinstance(r, str))
    assert [m["content"] for m in agent.chat_history][1] == answer


def test_a_cancelled_waiting_task_leaves_the_queue(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.default = echo_slowly
    agent = Agent(instructions="x", llm=llm)

    async def main() -> Any:
        first = asyncio.create_task(agent.achat("one"))
        while server.request_count == 0:
            await asyncio.sleep(0.01)
        waiting = asyncio.create_task(agent.achat("never"))
        for _ in range(20):  # a turn that did not wait would send its request meanwhile
            if server.request_count > 1:
                break
            await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await first
        return await agent.achat("two")

    assert run_on_own_loop(main) == "answer to two"
    assert [r.messages[-1]["content"] for r in server.requests] == ["one", "two"]
    assert [m["content"] for m in agent.chat_history if m["role"] == "user"] == ["one", "two"]


@pytest.mark.parametrize("parallel", [False, True], ids=["one-call", "parallel-calls"])
def test_a_tool_calling_its_own_agent_is_refused_at_once(
    server: LocalLLMServer, llm: dict[str, Any], parallel: bool
) -> None:
    refused: list[BaseException] = []
    agent: Agent

    @function_tool(parallel_safe=parallel)
    def ask_myself(question: str) -> str:
        """Ask the agent itself."""
        try:
            return str(agent.chat(question))
        except ConcurrentTurnError as exc:
            refused.append(exc)
            raise

    calls = [Call("ask_myself", {"question": q}) for q in (["a", "b"] if parallel else ["a"])]
    server.extend([ToolCalls(calls), Text("done")])
    agent = Agent(instructions="x", llm=llm, tools=[ask_myself])
    assert run_in_threads(lambda: agent.chat("go")) == ["done"]
    assert len(refused) == len(calls)
    assert server.request_count == 2


def test_an_async_tool_awaiting_its_own_agent_is_refused_at_once(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    refused: list[BaseException] = []

    async def main() -> Any:
        agent: Agent

        async def ask_myself(question: str) -> str:
            """Ask the agent itself."""
            try:
                return str(await agent.achat(question))
            except ConcurrentTurnError as exc:
                refused.append(exc)
                raise

        agent = Agent(instructions="x", llm=llm, tools=[ask_myself])
        return await agent.achat("go")

    server.extend([ToolCalls([Call("ask_myself", {"question": "q"})]), Text("done")])
    assert run_on_own_loop(main) == "done"
    assert len(refused) == 1


def test_a_hook_or_the_stream_consumer_cannot_start_a_turn_inside_one(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    refused: list[str] = []
    agent: Agent

    def nested(ctx: HookContext) -> None:
        try:
            agent.chat("nested")
        except ConcurrentTurnError:
            refused.append("hook")

    server.default = Text("fine")
    agent = Agent(instructions="x", llm=llm, hooks={HookPoint.BEFORE_LLM: nested})
    for event in agent.stream_events("go"):
        if event.type == "run_started":
            with pytest.raises(ConcurrentTurnError):
                agent.chat("inside the loop")
            refused.append("consumer")
    assert refused == ["consumer", "hook"]
    assert agent.chat("after") == "fine"
    assert refused == ["consumer", "hook", "hook"]
    assert server.request_count == 2


def test_a_stream_holds_the_agent_until_it_is_closed(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.default = Text("fine")
    agent = Agent(instructions="x", llm=llm)
    stream = agent.stream_events("go")
    next(stream)
    with pytest.raises(ConcurrentTurnError):
        agent.chat("while the stream is open")
    stream.close()
    for _ in agent.stream_events("left early"):
        break
    assert agent.chat("next") == "fine"

    async def main() -> Any:
        async for _ in agent.astream_events("left early too"):
            break
        return await agent.achat("second")

    assert run_on_own_loop(main) == "fine"
    assert [m["content"] for m in agent.chat_history if m["role"] == "user"] == ["next", "second"]


def test_a_sync_turn_on_the_loop_running_a_turn_is_refused(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.default = echo_slowly
    agent = Agent(instructions="x", llm=llm)

    async def main() -> Any:
        running = asyncio.create_task(agent.achat("one"))
        while server.request_count == 0:
            await asyncio.sleep(0.01)
        with pytest.raises(ConcurrentTurnError, match="await agent.achat"):
            agent.chat("from the loop's own thread")
        return await running

    assert run_on_own_loop(main) == "answer to one"
    assert agent.chat("two") == "answer to two"
    assert server.request_count == 2
