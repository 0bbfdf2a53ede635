"""The dispatcher: runs one turn's tool loop with the sync or the async driver.

Handed the turn (messages, tool schemas, models, limits) and an
``execute_tool`` runner, it owns the loop until the model answers with text,
the iteration limit is reached, or the turn fails. Events come out of
:meth:`Dispatcher.events` / :meth:`Dispatcher.aevents` as they happen; the
outcome is on :attr:`Dispatcher.outcome` once they are exhausted. An
awaitable that user code returned mid-turn (:class:`AwaitUserCode`) is settled
here before the loop goes on: awaited on the caller's loop by :meth:`aevents`,
run on the bridge loop by :meth:`events`; it is never an event.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from praisonlike.llm.async_driver import AsyncDriver
from praisonlike.llm.drivers import HookSeam as DriverHooks
from praisonlike.llm.drivers import SyncDriver, ToolRunner, iterate_sync
from praisonlike.llm.tool_loop import ToolLoop
from praisonlike.llm.turn_spec import TurnOutcome, TurnSpec
from praisonlike.llm.user_code import AwaitUserCode


class Dispatcher:
    """One turn. Iterate :meth:`events` or :meth:`aevents` once, then read :attr:`outcome`."""

    def __init__(self, spec: TurnSpec, execute_tool: ToolRunner, hooks: DriverHooks) -> None:
        self.spec = spec
        self.execute_tool = execute_tool
        self.hooks = hooks
        self.outcome: TurnOutcome | None = None

    def _finish(self, outcome: TurnOutcome) -> None:
        self.outcome = outcome

    def events(self) -> Iterator[Any]:
        """Run the turn with blocking I/O, yielding its events."""
        driver = SyncDriver(
            self.spec.run_id,
            self.execute_tool,
            self.hooks,
            cancel=self.spec.cancel,
            deadline=self.spec.deadline,
            interruptible=self.spec.execution.interruptible_calls,
        )
        for item in iterate_sync(driver.drive(ToolLoop(self.spec).steps()), self._finish):
            if isinstance(item, AwaitUserCode):
                item.settle_blocking()
            else:
                yield item

    async def aevents(self) -> AsyncIterator[Any]:
        """Run the turn with asyncio, yielding its events."""
        driver = AsyncDriver(
            self.spec.run_id,
            self.execute_tool,
            self.hooks,
            cancel=self.spec.cancel,
            deadline=self.spec.deadline,
        )
        async for item in driver.drive(ToolLoop(self.spec).steps(), self._finish):
            if isinstance(item, AwaitUserCode):
                await item.settle()
            else:
                yield item

    def run(self) -> TurnOutcome:
        for _ in self.events():
            pass
        assert self.outcome is not None
        return self.outcome

    async def arun(self) -> TurnOutcome:
        async for _ in self.aevents():
            pass
        assert self.outcome is not None
        return self.outcome
