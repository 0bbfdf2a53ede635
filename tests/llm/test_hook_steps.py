"""Running the hooks of an event is written once, as a generator its driver settles."""

from __future__ import annotations

import asyncio

import pytest

from praisonlike.errors import HookError
from praisonlike.hooks import HookContext, HookPoint, HookResult, HookRunner
from praisonlike.loop.user_code import AwaitUserCode


def context() -> HookContext:
    return HookContext(event=HookPoint.BEFORE_TOOL, run_id="r", arguments={"n": 1})


def test_sync_hooks_run_at_once_and_async_ones_are_yielded_in_order() -> None:
    seen: list[str] = []
    runner = HookRunner()

    def first(ctx: HookContext) -> HookResult:
        seen.append(f"first {ctx.arguments}")
        return HookResult(arguments={"n": 2})

    async def second(ctx: HookContext) -> HookResult:
        seen.append(f"second {ctx.arguments}")
        return HookResult(reason="checked")

    def third(ctx: HookContext) -> None:
        seen.append(f"third {ctx.arguments}")

    for hook in (first, second, third):
        runner.register(HookPoint.BEFORE_TOOL, hook)

    steps = runner.steps(context())
    pending = next(steps)
    assert isinstance(pending, AwaitUserCode)
    assert seen == ["first {'n': 1}"]  # the async hook waits for its driver
    asyncio.run(pending.settle())
    with pytest.raises(StopIteration) as done:
        steps.send(None)
    assert done.value.value == HookResult(arguments={"n": 2}, reason="checked")
    assert seen == ["first {'n': 1}", "second {'n': 2}", "third {'n': 2}"]


def test_an_async_hook_that_raises_is_a_hook_error_naming_it_unless_fail_open() -> None:
    async def broken(ctx: HookContext) -> None:
        raise KeyError("x")

    def after(ctx: HookContext) -> HookResult:
        return HookResult(deny=True)

    for fail_open in (False, True):
        runner = HookRunner()
        runner.register(HookPoint.BEFORE_TOOL, broken, fail_open=fail_open)
        runner.register(HookPoint.BEFORE_TOOL, after)
        steps = runner.steps(context())
        pending = next(steps)
        asyncio.run(pending.settle())
        if fail_open:
            with pytest.raises(StopIteration) as done:
                steps.send(None)
            assert done.value.value == HookResult(deny=True)
        else:
            with pytest.raises(HookError, match="broken") as raised:
                steps.send(None)
            assert "broken" in str(raised.value.hook)
