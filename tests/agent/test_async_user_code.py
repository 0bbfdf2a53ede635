"""Async user code (output guardrails, hooks) is awaited on ``achat``'s own loop.

Each test runs ``achat`` on a fresh loop in a daemon thread and joins it with a
generous bound: code that blocked the loop would otherwise hang the test run
instead of failing it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from praisonlike import Agent
from praisonlike.agent.guardrails import GuardrailConfig, GuardrailResult
from praisonlike.hooks import HookContext, HookEvent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

BOUND = 30.0


def run_on_own_loop(main: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(asyncio.wait_for(main(), BOUND))
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(BOUND * 1.5)
    assert not thread.is_alive(), "achat blocked its own event loop"
    if "error" in box:
        raise box["error"]
    return box["value"]


class Handshake:
    """User code waits in :meth:`wait` until another task on the same loop releases it."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.released = asyncio.Event()

    async def wait(self) -> None:
        self.waiting.set()
        await self.released.wait()

    async def release(self) -> None:
        await self.waiting.wait()
        self.released.set()


async def chat_while_releasing(agent: Agent, prompt: str, handshake: Handshake) -> str:
    answer, _ = await asyncio.gather(agent.achat(prompt), handshake.release())
    return str(answer)


def test_async_output_guardrail_awaits_on_the_callers_loop(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text("hello"))
    loops: list[asyncio.AbstractEventLoop] = []

    async def main() -> str:
        handshake = Handshake()

        async def polite(output: str) -> GuardrailResult:
            loops.append(asyncio.get_running_loop())
            await handshake.wait()
            return GuardrailResult(ok=False, fixed_output=output.upper())

        agent = Agent(instructions="x", llm=llm, guardrails=GuardrailConfig(output=polite))
        answer = await chat_while_releasing(agent, "greet", handshake)
        assert loops == [asyncio.get_running_loop()]
        return answer

    assert run_on_own_loop(main) == "HELLO"


def test_async_guardrail_errors_reach_the_caller(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Text("hello"))

    async def broken(output: str) -> GuardrailResult:
        raise LookupError("no verdict")

    async def main() -> str:
        agent = Agent(instructions="x", llm=llm, guardrails=GuardrailConfig(output=broken))
        try:
            await agent.achat("greet")
        except LookupError as exc:
            assert agent.chat_history == []
            return str(exc)
        return "no error"

    assert run_on_own_loop(main) == "no verdict"


def test_async_hooks_await_on_the_callers_loop(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("shout", {"text": "hi"})]), Text("done")])
    seen: list[str] = []

    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    async def main() -> str:
        handshake = Handshake()
        loop = asyncio.get_running_loop()

        async def record(ctx: HookContext) -> None:
            assert asyncio.get_running_loop() is loop
            await handshake.wait()
            seen.append(ctx.event.value)

        agent = Agent(
            instructions="x",
            llm=llm,
            tools=[shout],
            hooks={HookEvent.BEFORE_LLM: record, HookEvent.AFTER_TOOL: record},
        )
        return await chat_while_releasing(agent, "go", handshake)

    assert run_on_own_loop(main) == "done"
    assert seen == ["before_llm", "after_tool", "before_llm"]


def test_async_guardrail_still_works_under_chat(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([Text("HELLO"), Text("hello")])

    async def no_shouting(output: str) -> GuardrailResult:
        await asyncio.sleep(0)
        return GuardrailResult(ok=not output.isupper(), feedback="do not shout")

    agent = Agent(instructions="x", llm=llm, guardrails=GuardrailConfig(output=no_shouting))
    assert agent.chat("greet") == "hello"
