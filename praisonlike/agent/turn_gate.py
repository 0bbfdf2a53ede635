"""One turn at a time on an agent.

Turns of one agent are serialised, whichever entry point starts them: a turn
waits until the previous one has finished, then reads the history that turn
left. Waiters go in arrival order. A thread blocks while it waits; a task
awaits without blocking its event loop, and cancelling it withdraws it from
the queue.

A turn started by code that runs inside a turn of the same agent (one of its
tools, hooks or guardrails, or the loop consuming its events) would wait for
itself forever, so it raises :class:`ConcurrentTurnError` at once; so does a
sync turn started on the thread of the event loop that runs the agent's turn
as a task (waiting there would stop that loop). "Inside" is tracked with a
context variable, which follows the turn into its tool threads and tasks. An
``async for`` over ``astream_events`` left with ``break`` is closed by the
event loop a moment later; a task starting a turn right after it first lets
the loop do that.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeVar

from praisonlike.errors import ConcurrentTurnError

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

_FINALIZER_ROUNDS = 8
"""Loop iterations a task gives an ``astream_events`` it left with ``break`` to be
closed by the loop's async-generator finalizer before its re-entry counts."""

_turns_inside: ContextVar[tuple[object, ...]] = ContextVar("praisonlike_turns_inside", default=())


class _ThreadWaiter:
    loop = None

    def __init__(self) -> None:
        self.woken = threading.Event()

    def wake(self) -> bool:
        self.woken.set()
        return True


class _TaskWaiter:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.woken: asyncio.Future[None] = loop.create_future()

    def wake(self) -> bool:
        try:
            self.loop.call_soon_threadsafe(self._resolve)
        except RuntimeError:  # its loop is closed: nobody waits any more
            return False
        return True

    def _resolve(self) -> None:
        if not self.woken.done():
            self.woken.set_result(None)


W = TypeVar("W", _ThreadWaiter, _TaskWaiter)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, without importing asyncio for sync callers."""
    module = sys.modules.get("asyncio")
    if module is None:
        return None
    try:
        loop: asyncio.AbstractEventLoop = module.get_running_loop()
    except RuntimeError:
        return None
    return loop


class TurnGate:
    """The agent's turn lock: :meth:`enter` / :meth:`aenter` before a turn, :meth:`leave` after.

    Also a context manager for one turn: ``with gate:`` (a thread) or ``async with
    gate:`` (a task) enters and leaves.
    """

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._holder: object | None = None
        self._holder_loop: asyncio.AbstractEventLoop | None = None
        self._waiting: deque[_ThreadWaiter | _TaskWaiter] = deque()

    def enter(self) -> None:
        """Wait (blocking this thread) until no other turn of the agent runs."""
        self._refuse_reentry()
        waiter = self._take_or_queue(_ThreadWaiter)
        if waiter is not None:
            if self._holder_loop is not None and self._holder_loop is _running_loop():
                self._withdraw(waiter)
                raise ConcurrentTurnError(
                    "a turn of this agent is running as a task of this thread's event loop; "
                    "waiting here would block that loop for ever. Use 'await agent.achat(...)'"
                )
            try:
                waiter.woken.wait()
            except BaseException:
                self._withdraw(waiter)
                raise
        self._mark()

    async def aenter(self) -> None:
        """Wait, without blocking the event loop, until no other turn of the agent runs."""
        import asyncio

        for _ in range(_FINALIZER_ROUNDS):
            if not self._inside():
                break
            await asyncio.sleep(0)
        self._refuse_reentry()
        loop = asyncio.get_running_loop()
        waiter = self._take_or_queue(lambda: _TaskWaiter(loop), loop)
        if waiter is not None:
            try:
                await waiter.woken
            except BaseException:
                self._withdraw(waiter)
                raise
        self._mark()

    def __enter__(self) -> None:
        self.enter()

    def __exit__(self, *exc_info: object) -> None:
        self.leave()

    async def __aenter__(self) -> None:
        await self.aenter()

    async def __aexit__(self, *exc_info: object) -> None:
        self.leave()

    def leave(self) -> None:
        """End the turn and hand the agent to the next waiter, if any."""
        holder = self._holder
        inside = _turns_inside.get()
        if holder is not None and holder in inside:
            _turns_inside.set(tuple(turn for turn in inside if turn is not holder))
        self._pass_on()

    def _inside(self) -> bool:
        holder = self._holder
        return holder is not None and holder in _turns_inside.get()

    def _refuse_reentry(self) -> None:
        if self._inside():
            raise ConcurrentTurnError(
                "a turn of this agent was started from inside its running turn (from a tool, "
                "hook or guardrail, or while consuming its events); it would wait for itself. "
                "Finish the running turn first, or use another Agent"
            )

    def _take_or_queue(
        self, make_waiter: Callable[[], W], loop: asyncio.AbstractEventLoop | None = None
    ) -> W | None:
        """Take the turn (``None``) or queue a new waiter and return it."""
        with self._mutex:
            if self._holder is None and not self._waiting:
                self._holder = object()
                self._holder_loop = loop
                return None
            waiter = make_waiter()
            self._waiting.append(waiter)
            return waiter

    def _withdraw(self, waiter: _ThreadWaiter | _TaskWaiter) -> None:
        with self._mutex:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
                return
        self._pass_on()  # the turn was handed over already: hand it on

    def _pass_on(self) -> None:
        with self._mutex:
            while self._waiting:
                waiter = self._waiting.popleft()
                if waiter.wake():
                    self._holder = object()
                    self._holder_loop = waiter.loop
                    return
            self._holder = None
            self._holder_loop = None

    def _mark(self) -> None:
        holder = self._holder
        if holder is not None:
            _turns_inside.set((*_turns_inside.get(), holder))
