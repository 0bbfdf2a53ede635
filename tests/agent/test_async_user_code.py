"""Async user code (output guardrails, hooks) is awaited on ``achat``'s own loop.

Each test runs ``achat`` on a fresh loop in a daemon thread and joins it with a
generous bound: code that blocked the loop would otherwise hang the test run
instead of failing it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from own_loop import run_on_own_loop

from praisonlike import Agent
from praisonlike.agent.guardrails import GuardrailConfig, GuardrailResult
from praisonlike.hooks import HookContext, HookPoint
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


class Releaser:
    """User code waits in :meth:`wait` until another task on the same loop releases it."""

    def __init__(self) -> None:
        self._requests: asyncio.Queue[asyncio.Event] = asyncio.Queue()

    async def wait(self) -> None:
        released = asyncio.Event()
        self._requests.put_nowait(released)
        await released.wait()

    async def serve(self) -> None:
        while True:
            (await self._requests.get()).set()


async def chat_while_releasing(agent: Agent, prompt: str, releaser: Releaser) -> str:
    serving = asyncio.create_task(releaser.serve())
    try:
        return str(await agent.achat(prompt))
    finally:
        serving.cancel()


def test_async_guardrail_and_hooks_await_on_the_callers_loop(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend([ToolCalls([Call("shout", {"text": "hi"})]), Text("done")])
    seen: list[str] = []

    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    async def main() -> str:
        loop = asyncio.get_running_loop()
        releaser = Releaser()

        async def record(ctx: HookContext) -> None:
            assert asyncio.get_running_loop() is loop
            await releaser.wait()
            seen.append(ctx.event.value)

        async def checked(output: str) -> GuardrailResult:
            assert asyncio.get_running_loop() is loop
            await releaser.wait()
            seen.append("guardrail")
            return GuardrailResult(ok=False, fixed_output=output.upper())

        agent = Agent(
            instructions="x",
            llm=llm,
            tools=[shout],
            hooks={HookPoint.BEFORE_LLM: record, HookPoint.AFTER_TOOL: record},
            guardrails=GuardrailConfig(output=checked),
        )
        return await chat_while_releasing(agent, "go", releaser)

    assert run_on_own_loop(main) == "DONE"
    assert seen == ["before_llm", "after_tool", "before_llm", "guardrail"]


def test_an_async_guardrail_error_reaches_the_caller_under_achat_and_chat(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.default = Text("hello")

    async def main() -> str:
        releaser = Releaser()

        async def broken(output: str) -> GuardrailResult:
            await releaser.wait()
            raise LookupError(f"no verdict on {output}")

        agent = Agent(instructions="x", llm=llm, guardrails=GuardrailConfig(output=broken))
        try:
            await chat_while_releasing(agent, "greet", releaser)
        except LookupError as exc:
            assert agent.chat_history == []
            return str(exc)
        return "no error"

    assert run_on_own_loop(main) == "no verdict on hello"

    async def failing(output: str) -> GuardrailResult:
        await asyncio.sleep(0)
        raise LookupError(f"no verdict on {output}")

    agent = Agent(instructions="x", llm=llm, guardrails=GuardrailConfig(output=failing))
    with pytest.raises(LookupError, match="no verdict on hello"):
        agent.chat("greet")
    assert agent.chat_history == []
